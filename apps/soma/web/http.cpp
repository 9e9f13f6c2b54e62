#include "soma/web/http.hpp"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>
#include <sys/socket.h>

#include "soma/remote/address.hpp"

namespace soma::web {

namespace {

// Whether this thread is one of a pool's: a request that runs elsewhere ran
// on the accepting thread because every pool thread was taken and the queue
// was full, and must not hold it with a live stream.
thread_local bool on_pool_thread = false;

// httplib's ThreadPool queues without bound. This one queues at most `cap`
// connections; past that the accepting thread serves the connection itself,
// so accepting slows to what is served (the kernel's backlog holds the rest).
class bounded_pool final : public httplib::TaskQueue {
public:
  bounded_pool(std::size_t threads, std::size_t cap) : cap_(cap) {
    for (std::size_t i = 0; i < threads; ++i)
      threads_.emplace_back([this] { work(); });
  }

  void enqueue(std::function<void()> fn) override {
    {
      std::unique_lock lock{mutex_};
      if (jobs_.size() < cap_) {
        jobs_.push_back(std::move(fn));
        lock.unlock();
        ready_.notify_one();
        return;
      }
    }
    fn();
  }

  void shutdown() override {
    {
      std::lock_guard lock{mutex_};
      down_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_)
      t.join();
  }

private:
  void work() {
    on_pool_thread = true;
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock lock{mutex_};
        ready_.wait(lock, [&] { return down_ || !jobs_.empty(); });
        if (jobs_.empty())
          return;
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      fn();
    }
  }

  std::size_t cap_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  bool down_ = false;
  std::vector<std::thread> threads_;
};

std::string bracketed(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

} // namespace

http_server::http_server(const http_options& o) : live_cap_(o.live_cap) {
  address where;
  try {
    where = parse_address(o.listen, "--listen");
  } catch (const std::invalid_argument& e) {
    throw http_error(e.what());
  }
  if (o.tls_cert.empty() != o.tls_key.empty())
    throw http_error("HTTPS needs both --tls-cert and --tls-key (the server's certificate and "
                     "its private key, PEM)");
  bool tls = !o.tls_cert.empty();
  if (!tls && !is_loopback(where.host))
    throw http_error("refusing to listen on " + o.listen + " without TLS: anyone who can reach "
                     + o.who + " there would read what it serves. Give --tls-cert and --tls-key "
                       "(soma-certs issues them), or listen on 127.0.0.1");
  if (tls) {
    for (auto* f : {&o.tls_cert, &o.tls_key})
      if (!std::filesystem::is_regular_file(*f))
        throw http_error("cannot read '" + *f + "': no such file");
    auto ssl = std::make_unique<httplib::SSLServer>(o.tls_cert.c_str(), o.tls_key.c_str());
    if (!ssl->is_valid())
      throw http_error("the certificate '" + o.tls_cert + "' and key '" + o.tls_key
                       + "' do not load as a PEM certificate and its private key");
    server_ = std::move(ssl);
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  if (o.live_cap >= o.threads)
    throw http_error("the live streams' cap (" + std::to_string(o.live_cap)
                     + ") must be below the threads (" + std::to_string(o.threads)
                     + "), or a page could not load while streams are open");
  auto threads = o.threads;
  auto queued = o.queued;
  server_->new_task_queue = [threads, queued] { return new bounded_pool(threads, queued); };
  server_->set_payload_max_length(64 * 1024);
  server_->set_read_timeout(5, 0);
  server_->set_write_timeout(5, 0);
  server_->set_keep_alive_max_count(100);
  server_->set_keep_alive_timeout(2); // an idle keep-alive connection holds stop() this long
  server_->set_tcp_nodelay(true);
  // httplib's default also sets SO_REUSEPORT, with which a second server
  // binds a port one already serves and takes half its connections. Only
  // SO_REUSEADDR: a port in TIME_WAIT is taken again, one in use is refused.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server_->set_exception_handler([](const httplib::Request&, httplib::Response& res,
                                    std::exception_ptr ep) {
    std::string what = "unknown";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    refuse(res, 500, "unexpected error: " + what
                       + "; this is a bug in soma, please report it with the address asked");
  });
  if (where.port == 0) {
    port_ = server_->bind_to_any_port(where.host);
  } else {
    port_ = server_->bind_to_port(where.host, where.port) ? where.port : -1;
  }
  if (port_ <= 0)
    throw http_error("cannot listen on " + o.listen + ": " + std::strerror(errno)
                     + " (is the port taken? port 0 takes a free one)");
  url_ = std::string{tls ? "https" : "http"} + "://" + bracketed(where.host) + ":"
         + std::to_string(port_) + "/";
}

http_server::~http_server() {
  stop();
}

bool http_server::run() {
  running_ = true;
  if (stopping_) {
    running_ = false;
    return true;
  }
  bool served = server_->listen_after_bind();
  running_ = false;
  return served;
}

void http_server::stop() {
  stopping_ = true;
  // run() may be between its check of stopping_ and httplib's loop: wait
  // (at most 2 s) for the loop to be there to stop.
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (running_ && !server_->is_running() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_->stop();
}

live_slot http_server::live_slot_for_stream() {
  if (!on_pool_thread || stopping_)
    return {};
  auto n = live_.fetch_add(1);
  if (n >= live_cap_) {
    live_.fetch_sub(1);
    return {};
  }
  return live_slot{&live_};
}

void refuse(httplib::Response& res, int code, const std::string& message) {
  res.status = code;
  res.set_content(message + "\n", "text/plain; charset=utf-8");
}

} // namespace soma::web
