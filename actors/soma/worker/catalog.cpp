#include "soma/worker/catalog.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace soma::serve {

namespace {

std::string file_name(const std::string& path) {
  return std::filesystem::path{path}.filename().string();
}

} // namespace

std::shared_ptr<const detail::node_library> load_node_library(const std::string& path) {
  return detail::load_node_library(path);
}

worker_state::worker_state(std::vector<std::shared_ptr<const detail::node_library>> libraries,
                           bool accept_code, std::string code_dir)
  : libraries_(std::move(libraries)), accept_code_(accept_code), code_dir_(std::move(code_dir)) {}

std::shared_ptr<const detail::node_library> worker_state::shipped(const std::string& definition) const {
  std::lock_guard guard{lock_};
  auto i = shipped_.find(definition);
  return i == shipped_.end() ? nullptr : i->second;
}

std::shared_ptr<const detail::node_library> worker_state::ship(const std::string& definition,
                                                               const std::string& bytes) {
  if (!accept_code_)
    throw std::runtime_error("this worker does not run shipped code: it was not started with "
                             "--accept-code");
  auto actual = detail::sha256_hex(bytes);
  if (actual != definition)
    throw std::runtime_error("the shipped library's bytes hash to " + actual + ", not to "
                             + definition + " as announced; nothing was loaded");
  std::lock_guard guard{lock_};
  if (auto i = shipped_.find(definition); i != shipped_.end())
    return i->second;
  // The name is the hash, checked above to be 64 hex digits' worth of SHA-256
  // of these very bytes: it cannot climb out of the private directory.
  auto path = code_dir_ + "/" + definition + ".so";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0500);
  if (fd < 0)
    throw std::runtime_error("cannot write the shipped library to '" + path + "': "
                             + std::strerror(errno));
  std::size_t done = 0;
  while (done < bytes.size()) {
    auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      ::close(fd);
      throw std::runtime_error("cannot write the shipped library to '" + path + "'");
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  auto lib = detail::load_node_library(path);
  if (lib->definition != definition)
    throw std::runtime_error("the shipped library changed on disk before it was loaded");
  shipped_.emplace(definition, lib);
  return lib;
}

session_catalog::refusal session_catalog::bind(const std::string& type,
                                               const std::string& definition,
                                               const std::string& client_library) {
  if (auto i = bound_.find(type); i != bound_.end()) {
    if (i->second->definition == definition)
      return {};
    return {refusal::conflict,
            "it knows node type " + type + " as " + i->second->definition + " ("
              + file_name(i->second->path) + "), but this graph's " + type + " is " + definition
              + " (" + client_library + "); a worker holds one catalog per session: use another "
              "worker for a graph made of other code"};
  }
  auto candidates = worker_.libraries();
  candidates.insert(candidates.end(), shipped_.begin(), shipped_.end());
  const detail::node_library* other = nullptr;
  for (auto& lib : candidates) {
    if (!lib->find(type))
      continue;
    if (lib->definition == definition) {
      bound_.emplace(type, lib);
      return {};
    }
    other = lib.get();
  }
  if (network_) {
    if (auto lib = worker_.shipped(definition); lib && lib->find(type)) {
      shipped_.push_back(lib);
      bound_.emplace(type, lib);
      return {};
    }
    return {refusal::needs_code, "it needs the library that defines " + type};
  }
  if (other)
    return {refusal::conflict,
            "it knows node type " + type + " as " + other->definition + " ("
              + file_name(other->path) + "), but this graph's " + type + " is " + definition
              + " (" + client_library + "); they are different code: give the worker the "
              "library the client was built with"};
  std::string serves;
  for (auto& lib : worker_.libraries())
    for (auto& e : *lib->entries)
      serves += (serves.empty() ? "" : ", ") + e.type;
  return {refusal::unknown,
          "it has no node type " + type + " (it serves: " + (serves.empty() ? "nothing" : serves)
            + "); start it with --nodes " + client_library
            + ", or connect with soma::mode::network to ship it"};
}

void session_catalog::add(std::shared_ptr<const detail::node_library> lib) {
  shipped_.push_back(std::move(lib));
}

detail::remote_node& session_catalog::instance(const std::string& type, const std::string& name,
                                               const std::string& state) {
  auto key = std::make_tuple(name, type, state);
  auto i = instances_.find(key);
  if (i == instances_.end()) {
    auto* entry = bound_.at(type)->find(type);
    i = instances_.emplace(std::move(key), entry->make(state)).first;
  }
  return *i->second;
}

} // namespace soma::serve
