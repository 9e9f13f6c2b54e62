// soma's Python module (docs/python.md): the C++ readers, bound. Every
// reader answers with the rows `soma ... --json` prints, made by the same
// functions (soma/web/json.hpp) and turned into Python's dicts and lists;
// a curve is three NumPy arrays made from the reader's columns, with no
// Python object per point. The GIL is released while a reader reads.

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "soma/health/judge.hpp"
#include "soma/health/rulebook.hpp"
#include "soma/store/critical.hpp"
#include "soma/store/fleet.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/run_query.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/trials.hpp"
#include "soma/web/json.hpp"
#include "soma/web/opened_store.hpp"

namespace py = pybind11;

namespace soma::python {

namespace {

using web::json;

// soma.StoreError, made when the module is.
PyObject* store_error_type = nullptr;

// A text as Python's str. What a store holds is UTF-8 but for what it was
// told (a tag, a text parameter, a fact's text, never checked on write); a
// byte that is not becomes U+FFFD, as --json writes it, rather than failing
// the whole answer.
py::object text_of(std::string_view x) {
  auto* made = PyUnicode_DecodeUTF8(x.data(), static_cast<Py_ssize_t>(x.size()), "replace");
  if (!made)
    throw py::error_already_set();
  return py::reinterpret_steal<py::object>(made);
}

// Makes JSON values Python's: null None, a flag bool, a number int or
// float, a text str, an array a list, an object a dict in the same key
// order. An object's keys repeat from row to row, so each is made once.
// The cyclic collector is paused while it builds (a list of 10,000 rows is
// 10,000 new dicts, each of which would count toward a collection that can
// find no cycle in them), and resumed as it was.
class python_of {
public:
  python_of() : collecting_(PyGC_Disable() != 0) {}
  ~python_of() {
    if (collecting_)
      PyGC_Enable();
  }
  python_of(const python_of&) = delete;
  python_of& operator=(const python_of&) = delete;

  py::object operator()(const json& x) {
    switch (x.type()) {
      case json::value_t::null: return py::none();
      case json::value_t::boolean: return py::bool_(x.get<bool>());
      case json::value_t::number_integer: return py::int_(x.get<std::int64_t>());
      case json::value_t::number_unsigned: return py::int_(x.get<std::uint64_t>());
      case json::value_t::number_float: return py::float_(x.get<double>());
      case json::value_t::string: return text_of(x.get_ref<const std::string&>());
      case json::value_t::array: {
        py::list out(x.size());
        std::size_t i = 0;
        for (auto& e : x)
          out[i++] = (*this)(e);
        return out;
      }
      case json::value_t::object: {
        py::dict out;
        for (auto& [k, v] : x.items())
          out[key(k)] = (*this)(v);
        return out;
      }
      default: return py::none(); // binary and discarded: no reader makes them
    }
  }

  // A key, made once per python_of.
  const py::str& key(const std::string& k) {
    auto at = keys_.find(k);
    if (at == keys_.end())
      at = keys_.emplace(k, py::reinterpret_steal<py::str>(text_of(k).release())).first;
    return at->second;
  }

private:
  bool collecting_;
  std::unordered_map<std::string, py::str> keys_;
};

// The rows of runs() are made with Python's C API directly: a store of
// 10,000 runs is 300,000 values, and pybind11's accessors cost a temporary
// and two reference counts each.
namespace raw {

// A new reference as an owner, or the Python error that made it fail, thrown.
py::object made(PyObject* x) {
  if (!x)
    throw py::error_already_set();
  return py::reinterpret_steal<py::object>(x);
}

py::object integer(std::int64_t x) { return made(PyLong_FromLongLong(x)); }
py::object count(std::uint64_t x) { return made(PyLong_FromUnsignedLongLong(x)); }
py::object none() { return py::none(); }
// A number as --json has it: JSON has no NaN or infinity, so those are None.
py::object finite(double x) { return std::isfinite(x) ? made(PyFloat_FromDouble(x)) : none(); }
py::object maybe(const std::optional<std::int64_t>& x) { return x ? integer(*x) : none(); }

// A dict being filled.
class dict {
public:
  dict() : d_(made(PyDict_New())) {}

  void put(const py::str& key, const py::object& value) {
    if (PyDict_SetItem(d_.ptr(), key.ptr(), value.ptr()) != 0)
      throw py::error_already_set();
  }
  [[nodiscard]] py::object done() { return std::move(d_); }

private:
  py::object d_;
};

// A list of `n`, each filled once by set().
class list {
public:
  explicit list(std::size_t n) : l_(made(PyList_New(static_cast<Py_ssize_t>(n)))) {}

  void set(std::size_t i, py::object value) {
    PyList_SET_ITEM(l_.ptr(), static_cast<Py_ssize_t>(i), value.release().ptr());
  }
  [[nodiscard]] py::object done() { return std::move(l_); }

private:
  py::object l_;
};

// A parameter as --json has it (json_of(values)): a real that is not
// finite is None.
py::object value_of(const value& v) {
  return std::visit(
    [](auto& y) -> py::object {
      using T = std::decay_t<decltype(y)>;
      if constexpr (std::is_same_v<T, bool>)
        return py::bool_(y);
      else if constexpr (std::is_same_v<T, std::int64_t>)
        return integer(y);
      else if constexpr (std::is_same_v<T, double>)
        return finite(y);
      else
        return text_of(y);
    },
    v);
}

} // namespace raw

// A run's row, made straight from the reader's run_row: the dict that
// web::json_of(run_row) would give, at a fraction of the time (runs() on a
// store of 10,000 runs is the module's one target on rows). The tests hold
// the two equal on every run of their stores.
py::object run_dict(const run_row& x, python_of& p) {
  raw::dict out;
  out.put(p.key("run"), text_of(x.run));
  out.put(p.key("forwards"), raw::count(x.forwards));
  out.put(p.key("broke"), raw::count(x.broke));
  out.put(p.key("took_us"), raw::integer(x.took_us));
  out.put(p.key("first"), raw::integer(x.first));
  out.put(p.key("last"), raw::integer(x.last));
  out.put(p.key("duration_us"), raw::maybe(x.duration_us));
  out.put(p.key("status"), p.key(std::string{to_string(x.status)}));
  out.put(p.key("how"), text_of(x.how));
  out.put(p.key("ended_us"), raw::maybe(x.ended_us));
  raw::dict params;
  for (auto& [name, v] : x.params)
    params.put(p.key(name), raw::value_of(v));
  out.put(p.key("params"), params.done());
  raw::list tags(x.tags.size());
  for (std::size_t i = 0; i < x.tags.size(); ++i)
    tags.set(i, text_of(x.tags[i]));
  out.put(p.key("tags"), tags.done());
  if (x.trial) {
    raw::dict trial;
    trial.put(p.key("study"), text_of(x.trial->study));
    trial.put(p.key("trial"), raw::count(x.trial->number));
    trial.put(p.key("state"), text_of(x.trial->state));
    trial.put(p.key("error"), x.trial->error.empty() ? raw::none() : text_of(x.trial->error));
    out.put(p.key("trial"), trial.done());
  } else {
    out.put(p.key("trial"), raw::none());
  }
  raw::dict values;
  for (auto& v : x.summary_values) {
    raw::dict range;
    range.put(p.key("last"), raw::finite(v.last));
    range.put(p.key("min"), raw::finite(v.min));
    range.put(p.key("max"), raw::finite(v.max));
    values.put(p.key(value_name(v)), range.done());
  }
  out.put(p.key("values"), values.done());
  out.put(p.key("executions"), raw::count(x.execution_count()));
  raw::list began(x.executions.size());
  for (std::size_t i = 0; i < x.executions.size(); ++i) {
    auto& e = x.executions[i];
    raw::dict one;
    one.put(p.key("forward"), raw::count(e.forward));
    one.put(p.key("began_us"), e.began_us ? raw::integer(e.began_us) : raw::none());
    one.put(p.key("host"), e.host.empty() ? raw::none() : text_of(e.host));
    one.put(p.key("pid"), e.pid ? raw::integer(e.pid) : raw::none());
    began.set(i, one.done());
  }
  out.put(p.key("began"), began.done());
  return out.done();
}

template <class Rows>
json array_of(const Rows& rows) {
  auto out = json::array();
  for (auto& r : rows)
    out.push_back(web::json_of(r));
  return out;
}

// A filter given as one text or several.
using texts = std::variant<std::string, std::vector<std::string>>;

std::vector<std::string> as_list(const std::optional<texts>& x) {
  if (!x)
    return {};
  if (auto* one = std::get_if<std::string>(&*x))
    return {*one};
  return std::get<std::vector<std::string>>(*x);
}

// A store opened read-only: a directory, or soma://HOST:PORT. A reader
// holds the store for as long as it reads, so close() from another thread
// meanwhile drops only the handle's hold: the store closes when that read is
// done, never under it.
class store_handle {
public:
  using held = std::shared_ptr<web::opened_store>;

  explicit store_handle(const std::string& where) : where_(where) {
    py::gil_scoped_release free;
    opened_ = std::make_shared<web::opened_store>(where, store_options{.read_only = true});
  }

  // The store, held; throws (a ValueError) when it was closed. With the GIL.
  [[nodiscard]] held hold() const {
    if (!opened_)
      throw std::invalid_argument("this soma store was closed; soma.open() opens it again");
    return opened_;
  }

  // Taken from the handle with the GIL (two close() calls never both take
  // it), closed without it.
  void close() {
    auto gone = std::move(opened_);
    py::gil_scoped_release free;
    gone.reset();
  }

  [[nodiscard]] const std::string& where() const noexcept { return where_; }
  [[nodiscard]] bool closed() const noexcept { return !opened_; }

private:
  held opened_;
  std::string where_;
};

// Runs `read(store)` without the GIL, the store held while it reads, and
// returns what it made (no Python object: it has none to make one with).
template <class Read>
auto read_free(const store_handle& h, Read read) {
  auto kept = h.hold();
  py::gil_scoped_release free;
  auto out = read(kept->get());
  kept.reset(); // a store closed meanwhile closes here, still without the GIL
  return out;
}

// read_free(), its JSON then made Python's with the GIL.
template <class Read>
py::object answer(const store_handle& h, Read read) {
  json made = read_free(h, read);
  return python_of{}(made);
}

// `n` as a count of forwards a reader takes: 1 or more, as the soma command
// wants it.
std::size_t forwards_count(std::int64_t n, const char* what) {
  if (n < 1)
    throw std::invalid_argument(std::string{what} + " is how many forwards to read: 1 or more, not "
                                + std::to_string(n));
  return static_cast<std::size_t>(n);
}

// Only the first or the last `n` of `rows`, as --first N and --last N keep.
template <class T>
void keep_asked(std::vector<T>& rows, std::optional<std::int64_t> first,
                std::optional<std::int64_t> last) {
  if (first && last)
    throw std::invalid_argument("first and last together: give one of them");
  if ((first && *first < 0) || (last && *last < 0))
    throw std::invalid_argument("first and last are how many rows to keep: 0 or more");
  if (first && rows.size() > static_cast<std::size_t>(*first))
    rows.resize(static_cast<std::size_t>(*first));
  if (last && rows.size() > static_cast<std::size_t>(*last))
    rows.erase(rows.begin(), rows.end() - *last);
}

py::object runs(const store_handle& h, const std::string& prefix, const std::optional<texts>& status,
                const std::optional<texts>& tag, const std::optional<texts>& param,
                const std::optional<texts>& where, const std::string& sort, bool reverse,
                std::optional<std::int64_t> first, std::optional<std::int64_t> last) {
  run_query q{prefix, as_list(status), as_list(tag), as_list(param), as_list(where), sort, reverse};
  if (auto ok = check_query(q); !ok)
    throw std::invalid_argument(describe(ok.error()));
  auto rows = read_free(h, [&](const store& s) { return select_runs(soma::runs(s), q); });
  keep_asked(rows, first, last);
  python_of p;
  raw::list out(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    out.set(i, run_dict(rows[i], p));
  return out.done();
}

py::object forwards(const store_handle& h, const std::string& run, std::optional<std::int64_t> first,
                    std::optional<std::int64_t> last) {
  if (first && last)
    throw std::invalid_argument("forwards() takes first or last, not both");
  if ((first && *first < 0) || (last && *last < 0))
    throw std::invalid_argument("first and last are how many forwards to read: 0 or more");
  return answer(h, [&](const store& s) {
    if (first)
      return array_of(soma::forwards(s, run, 0, static_cast<std::size_t>(*first)).records);
    if (!last)
      return array_of(soma::forwards(s, run));
    auto total = soma::forwards(s, run, 0, 0).total;
    auto count = std::min<std::uint64_t>(total, static_cast<std::uint64_t>(*last));
    return array_of(soma::forwards(s, run, total - count, static_cast<std::size_t>(count)).records);
  });
}

// A curve as arrays: forward (uint64), value (float64) and when_us (int64),
// each the reader's own vector handed to NumPy without a copy.
template <class T>
py::array_t<T> array_from(std::vector<T>&& xs) {
  auto kept = std::make_unique<std::vector<T>>(std::move(xs));
  auto* data = kept->data();
  auto size = kept->size();
  py::capsule owner(kept.get(), [](void* p) { delete static_cast<std::vector<T>*>(p); });
  kept.release(); // the capsule owns it now
  return py::array_t<T>({size}, {sizeof(T)}, data, owner);
}

py::dict curve(const store_handle& h, const std::string& run, const std::string& name) {
  auto c = read_free(h, [&](const store& s) { return curve_series(s, run, name); });
  bool timed = c.when_us.size() == c.value.size();
  py::dict out;
  out["forward"] = array_from(std::move(c.forward));
  out["value"] = array_from(std::move(c.value));
  // None from a served store of a soma before 0.5, which sends no times.
  out["when_us"] = timed ? py::object(array_from(std::move(c.when_us))) : py::object(py::none());
  return out;
}

// `at` as unix microseconds: unix seconds (a number) or a datetime (its
// timestamp()), from 1970 to 9999 as `soma health --at` takes it.
std::int64_t moment_us(const py::object& at) {
  double seconds = 0;
  if (py::hasattr(at, "timestamp"))
    seconds = at.attr("timestamp")().cast<double>();
  else if (PyNumber_Check(at.ptr()) != 0 && !PyBool_Check(at.ptr()))
    seconds = at.cast<double>();
  else
    throw std::invalid_argument("at is unix seconds (1764625000) or a datetime, not "
                                + std::string{py::str(py::type::of(at).attr("__name__"))});
  if (!(seconds >= 0) || !(seconds <= 253402300799.0))
    throw std::invalid_argument("at is a moment from 1970 to 9999 in unix seconds, not "
                                + std::string{py::str(at)});
  return static_cast<std::int64_t>(seconds * 1e6);
}

py::object health(const store_handle& h, const py::object& at, std::optional<std::string> run,
                  std::optional<std::string> rules) {
  auto book = health::rulebook::shipped();
  if (rules)
    book.read_file(*rules); // a rules_error is a ValueError
  health::judge_options o;
  if (!at.is_none())
    o.at_us = moment_us(at);
  o.run = std::move(run);
  return answer(h, [&](const store& s) {
    auto out = json::array();
    for (auto& op : health::judge(s, book, o).opinions)
      out.push_back(web::json_of(op));
    return out;
  });
}

py::object trials(const store_handle& h, const std::optional<std::string>& study) {
  return answer(h, [&](const store& s) {
    if (!study)
      return array_of(studies(s));
    return web::trials_json(soma::trials(s, *study), standing(s));
  });
}

// soma.StoreError, its kind soma's trouble ("missing", "damaged", ...), or
// "no_such_run" when what is missing is a run.
void raise_store_error(const store_error& e) {
  py::object error = py::reinterpret_borrow<py::object>(store_error_type)(text_of(e.what()));
  bool no_run = dynamic_cast<const no_run_error*>(&e) != nullptr;
  error.attr("kind") = py::str(no_run ? std::string{"no_such_run"} : std::string{to_string(e.trouble())});
  PyErr_SetObject(store_error_type, error.ptr());
}

} // namespace

} // namespace soma::python

PYBIND11_MODULE(_soma, m) {
  using namespace soma::python;
  using soma::store;
  using soma::python::store_handle;
  namespace sp = soma::python;
  m.doc() = "soma's readers: a store's runs, forwards, curves, fleet and trials (docs/python.md)";

  store_error_type = PyErr_NewExceptionWithDoc(
    "soma.StoreError",
    "A store could not be opened or read. str(e) says what was wrong and what to do; e.kind "
    "which kind of trouble: no_such_run, missing (no such forward, study or store), damaged, "
    "invalid, unreachable, timed_out, busy, failed, read_only or refused.",
    PyExc_RuntimeError, nullptr);
  m.attr("StoreError") = py::handle(store_error_type);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const soma::store_error& e) {
      raise_store_error(e);
    }
  });

  py::class_<store_handle>(m, "Store", "A store opened read-only (soma.open).")
    .def(py::init<const std::string&>(), py::arg("where"))
    .def_property_readonly("where", &store_handle::where, "what it was opened as")
    .def_property_readonly("closed", &store_handle::closed)
    .def("close", &store_handle::close, "closes it (a served store: its connection)")
    .def("runs", &sp::runs, py::arg("prefix") = "", py::kw_only(), py::arg("status") = py::none(),
         py::arg("tag") = py::none(), py::arg("param") = py::none(), py::arg("where") = py::none(),
         py::arg("sort") = "first", py::arg("reverse") = false, py::arg("first") = py::none(),
         py::arg("last") = py::none(),
         "every run, summed up, as `soma runs --json` lists them, with its filters and order")
    .def("forwards", &sp::forwards, py::arg("run"), py::arg("first") = py::none(),
         py::arg("last") = py::none(), "the run's forwards (all, or the first or last N)")
    .def(
      "facts",
      [](const store_handle& h, const std::string& run, std::uint64_t n) {
        return answer(h, [&](const store& s) { return array_of(soma::facts(s, run, n)); });
      },
      py::arg("run"), py::arg("n"), "every fact forward n of the run was told, in order")
    .def(
      "nodes",
      [](const store_handle& h, const std::string& run, std::optional<std::int64_t> last) {
        std::optional<std::size_t> tail;
        if (last)
          tail = forwards_count(*last, "last");
        return answer(h, [&](const store& s) { return array_of(soma::nodes(s, run, tail)); });
      },
      py::arg("run"), py::arg("last") = py::none(),
      "each node's time over the run (or its last N forwards)")
    .def(
      "standing",
      [](const store_handle& h) {
        return answer(h, [](const store& s) { return soma::web::standing_json(soma::standing(s)); });
      },
      "each machine's latest reading, with quiet_s and state")
    .def(
      "fleet",
      [](const store_handle& h, const std::string& run, bool all_machines) {
        return answer(h, [&](const store& s) {
          return array_of(soma::fleet(s, run, {.only_the_run = !all_machines}));
        });
      },
      py::arg("run"), py::kw_only(), py::arg("all_machines") = false,
      "one row per machine of the run")
    .def("trials", &sp::trials, py::arg("study") = py::none(),
         "the studies summed up, or one study's trials")
    .def("health", &sp::health, py::arg("at") = py::none(), py::kw_only(),
         py::arg("run") = py::none(), py::arg("rules") = py::none(),
         "opinions (never written): the shipped rules' judgement, or a rules file's, as of `at` "
         "(unix seconds or a datetime) or the newest write")
    .def(
      "critical",
      [](const store_handle& h, const std::string& run, std::int64_t last) {
        auto n = forwards_count(last, "last");
        return answer(h, [&](const store& s) {
          return soma::web::json_of(soma::critical(s, run, {.last = n}));
        });
      },
      py::arg("run"), py::arg("last") = 100,
      "where the run's last forwards spent their time")
    .def("curve", &sp::curve, py::arg("run"), py::arg("name") = "loss",
         "the series NAME (a fact: its value; or fact.field) as NumPy arrays forward, value and "
         "when_us (None from a served store of a soma before 0.5)");
}
