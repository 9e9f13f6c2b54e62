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
      case json::value_t::string: return py::str(x.get_ref<const std::string&>());
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
      at = keys_.emplace(k, py::str(k)).first;
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

// A new reference, or the Python error that made it fail, thrown.
PyObject* made(PyObject* x) {
  if (!x)
    throw py::error_already_set();
  return x;
}

PyObject* text(std::string_view x) {
  return made(PyUnicode_FromStringAndSize(x.data(), static_cast<Py_ssize_t>(x.size())));
}
PyObject* integer(std::int64_t x) { return made(PyLong_FromLongLong(x)); }
PyObject* count(std::uint64_t x) { return made(PyLong_FromUnsignedLongLong(x)); }
PyObject* none() { return Py_NewRef(Py_None); }
// A number as --json has it: JSON has no NaN or infinity, so those are None.
PyObject* finite(double x) { return std::isfinite(x) ? made(PyFloat_FromDouble(x)) : none(); }
PyObject* maybe(const std::optional<std::int64_t>& x) { return x ? integer(*x) : none(); }

// A dict being filled: each put() takes the value's reference.
class dict {
public:
  dict() : d_(made(PyDict_New())) {}
  ~dict() { Py_XDECREF(d_); }
  dict(const dict&) = delete;
  dict& operator=(const dict&) = delete;

  void put(const py::str& key, PyObject* value) {
    int failed = PyDict_SetItem(d_, key.ptr(), value);
    Py_DECREF(value);
    if (failed != 0)
      throw py::error_already_set();
  }
  /// Its reference, handed over.
  PyObject* release() { return std::exchange(d_, nullptr); }

private:
  PyObject* d_;
};

PyObject* value_of(const value& v) {
  return std::visit(
    [](auto& y) -> PyObject* {
      using T = std::decay_t<decltype(y)>;
      if constexpr (std::is_same_v<T, bool>)
        return Py_NewRef(y ? Py_True : Py_False);
      else if constexpr (std::is_same_v<T, std::int64_t>)
        return integer(y);
      else if constexpr (std::is_same_v<T, double>)
        return made(PyFloat_FromDouble(y));
      else
        return text(y);
    },
    v);
}

} // namespace raw

// A run's row, made straight from the reader's run_row: the dict that
// web::json_of(run_row) would give, at a fraction of the time (runs() on a
// store of 10,000 runs is the module's one target on rows). The tests hold
// the two equal on every run of their stores.
PyObject* run_dict(const run_row& x, python_of& p) {
  raw::dict out;
  out.put(p.key("run"), raw::text(x.run));
  out.put(p.key("forwards"), raw::count(x.forwards));
  out.put(p.key("broke"), raw::count(x.broke));
  out.put(p.key("took_us"), raw::integer(x.took_us));
  out.put(p.key("first"), raw::integer(x.first));
  out.put(p.key("last"), raw::integer(x.last));
  out.put(p.key("duration_us"), raw::maybe(x.duration_us));
  out.put(p.key("status"), Py_NewRef(p.key(std::string{to_string(x.status)}).ptr()));
  out.put(p.key("how"), raw::text(x.how));
  out.put(p.key("ended_us"), raw::maybe(x.ended_us));
  raw::dict params;
  for (auto& [name, v] : x.params)
    params.put(p.key(name), raw::value_of(v));
  out.put(p.key("params"), params.release());
  auto* tags = raw::made(PyList_New(static_cast<Py_ssize_t>(x.tags.size())));
  for (std::size_t i = 0; i < x.tags.size(); ++i)
    PyList_SET_ITEM(tags, static_cast<Py_ssize_t>(i), raw::text(x.tags[i]));
  out.put(p.key("tags"), tags);
  if (x.trial) {
    raw::dict trial;
    trial.put(p.key("study"), raw::text(x.trial->study));
    trial.put(p.key("trial"), raw::count(x.trial->number));
    trial.put(p.key("state"), raw::text(x.trial->state));
    trial.put(p.key("error"), x.trial->error.empty() ? raw::none() : raw::text(x.trial->error));
    out.put(p.key("trial"), trial.release());
  } else {
    out.put(p.key("trial"), raw::none());
  }
  raw::dict values;
  for (auto& v : x.summary_values) {
    raw::dict range;
    range.put(p.key("last"), raw::finite(v.last));
    range.put(p.key("min"), raw::finite(v.min));
    range.put(p.key("max"), raw::finite(v.max));
    values.put(p.key(value_name(v)), range.release());
  }
  out.put(p.key("values"), values.release());
  out.put(p.key("executions"), raw::count(x.execution_count()));
  auto* began = raw::made(PyList_New(static_cast<Py_ssize_t>(x.executions.size())));
  for (std::size_t i = 0; i < x.executions.size(); ++i) {
    auto& e = x.executions[i];
    raw::dict one;
    one.put(p.key("forward"), raw::count(e.forward));
    one.put(p.key("began_us"), e.began_us ? raw::integer(e.began_us) : raw::none());
    one.put(p.key("host"), e.host.empty() ? raw::none() : raw::text(e.host));
    one.put(p.key("pid"), e.pid ? raw::integer(e.pid) : raw::none());
    PyList_SET_ITEM(began, static_cast<Py_ssize_t>(i), one.release());
  }
  out.put(p.key("began"), began);
  return out.release();
}

// Runs `read` without the GIL, then makes its answer Python's with it.
template <class Read>
py::object answer(Read read) {
  json made;
  {
    py::gil_scoped_release free;
    made = read();
  }
  return python_of{}(made);
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

// A store opened read-only: a directory, or soma://HOST:PORT.
class store_handle {
public:
  explicit store_handle(const std::string& where) {
    py::gil_scoped_release free;
    opened_ = std::make_unique<web::opened_store>(where, store_options{.read_only = true});
    where_ = where;
  }

  const store& get() const {
    if (!opened_)
      throw std::invalid_argument("this soma store was closed; soma.open() opens it again");
    return opened_->get();
  }

  void close() {
    py::gil_scoped_release free;
    opened_.reset();
  }

  [[nodiscard]] const std::string& where() const noexcept { return where_; }
  [[nodiscard]] bool closed() const noexcept { return !opened_; }

private:
  std::unique_ptr<web::opened_store> opened_;
  std::string where_;
};

py::object runs(const store_handle& h, const std::string& prefix, const std::optional<texts>& status,
                const std::optional<texts>& tag, const std::optional<texts>& param,
                const std::optional<texts>& where, const std::string& sort, bool reverse) {
  run_query q{prefix, as_list(status), as_list(tag), as_list(param), as_list(where), sort, reverse};
  if (auto ok = check_query(q); !ok)
    throw std::invalid_argument(describe(ok.error()));
  auto& s = h.get();
  std::vector<run_row> rows;
  {
    py::gil_scoped_release free;
    rows = select_runs(soma::runs(s), q);
  }
  python_of p;
  auto out = py::reinterpret_steal<py::list>(raw::made(PyList_New(static_cast<Py_ssize_t>(rows.size()))));
  for (std::size_t i = 0; i < rows.size(); ++i)
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), run_dict(rows[i], p));
  return out;
}

py::object forwards(const store_handle& h, const std::string& run, std::optional<std::uint64_t> first,
                    std::optional<std::uint64_t> last) {
  if (first && last)
    throw std::invalid_argument("forwards() takes first or last, not both");
  auto& s = h.get();
  return answer([&] {
    if (first)
      return array_of(soma::forwards(s, run, 0, static_cast<std::size_t>(*first)).records);
    if (!last)
      return array_of(soma::forwards(s, run));
    auto total = soma::forwards(s, run, 0, 0).total;
    auto count = std::min<std::uint64_t>(total, *last);
    return array_of(soma::forwards(s, run, total - count, static_cast<std::size_t>(count)).records);
  });
}

// A curve as arrays: forward (uint64), value (float64) and when_us (int64),
// each the reader's own vector handed to NumPy without a copy.
template <class T>
py::array_t<T> array_from(std::vector<T>&& xs) {
  auto* kept = new std::vector<T>(std::move(xs));
  py::capsule owner(kept, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({kept->size()}, {sizeof(T)}, kept->data(), owner);
}

py::dict curve(const store_handle& h, const std::string& run, const std::string& name) {
  auto& s = h.get();
  curve_columns c;
  {
    py::gil_scoped_release free;
    c = curve_series(s, run, name);
  }
  py::dict out;
  out["forward"] = array_from(std::move(c.forward));
  out["value"] = array_from(std::move(c.value));
  out["when_us"] = array_from(std::move(c.when_us));
  return out;
}

py::object health(const store_handle& h, std::optional<double> at, std::optional<std::string> run,
                  std::optional<std::string> rules) {
  auto book = health::rulebook::shipped();
  if (rules)
    book.read_file(*rules); // a rules_error is a ValueError
  health::judge_options o;
  if (at)
    o.at_us = static_cast<std::int64_t>(*at * 1e6);
  o.run = std::move(run);
  auto& s = h.get();
  return answer([&] {
    auto out = json::array();
    for (auto& op : health::judge(s, book, o).opinions)
      out.push_back(web::json_of(op));
    return out;
  });
}

py::object trials(const store_handle& h, const std::optional<std::string>& study) {
  auto& s = h.get();
  return answer([&] {
    if (!study)
      return array_of(studies(s));
    return web::trials_json(soma::trials(s, *study), standing(s));
  });
}

void raise_store_error(const store_error& e) {
  py::object error = py::reinterpret_borrow<py::object>(store_error_type)(e.what());
  error.attr("kind") = py::str(std::string{to_string(e.trouble())});
  PyErr_SetObject(store_error_type, error.ptr());
}

} // namespace

} // namespace soma::python

PYBIND11_MODULE(_soma, m) {
  using namespace soma::python;
  using soma::python::store_handle;
  namespace sp = soma::python;
  m.doc() = "soma's readers: a store's runs, forwards, curves, fleet and trials (docs/python.md)";

  store_error_type = PyErr_NewExceptionWithDoc(
    "soma.StoreError",
    "A store could not be opened or read. str(e) says what was wrong and what to do; e.kind "
    "which kind of trouble: failed, invalid, missing (no such run, forward or study), damaged, "
    "unreachable, timed_out, busy, read_only or refused.",
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
         py::arg("sort") = "first", py::arg("reverse") = false,
         "every run, summed up, as `soma runs --json` lists them, with its filters and order")
    .def("forwards", &sp::forwards, py::arg("run"), py::arg("first") = py::none(),
         py::arg("last") = py::none(), "the run's forwards (all, or the first or last N)")
    .def(
      "facts",
      [](const store_handle& h, const std::string& run, std::uint64_t n) {
        auto& s = h.get();
        return answer([&] { return array_of(soma::facts(s, run, n)); });
      },
      py::arg("run"), py::arg("n"), "every fact forward n of the run was told, in order")
    .def(
      "nodes",
      [](const store_handle& h, const std::string& run, std::optional<std::size_t> last) {
        auto& s = h.get();
        return answer([&] { return array_of(soma::nodes(s, run, last)); });
      },
      py::arg("run"), py::arg("last") = py::none(),
      "each node's time over the run (or its last N forwards)")
    .def(
      "standing",
      [](const store_handle& h) {
        auto& s = h.get();
        return answer([&] { return soma::web::standing_json(soma::standing(s)); });
      },
      "each machine's latest reading, with quiet_s and state")
    .def(
      "fleet",
      [](const store_handle& h, const std::string& run, bool all_machines) {
        auto& s = h.get();
        return answer(
          [&] { return array_of(soma::fleet(s, run, {.only_the_run = !all_machines})); });
      },
      py::arg("run"), py::kw_only(), py::arg("all_machines") = false,
      "one row per machine of the run")
    .def("trials", &sp::trials, py::arg("study") = py::none(),
         "the studies summed up, or one study's trials")
    .def("health", &sp::health, py::arg("at") = py::none(), py::kw_only(),
         py::arg("run") = py::none(), py::arg("rules") = py::none(),
         "opinions (never written): the shipped rules' judgement, or a rules file's, as of `at` "
         "(unix seconds) or the newest write")
    .def(
      "critical",
      [](const store_handle& h, const std::string& run, std::size_t last) {
        auto& s = h.get();
        return answer([&] { return soma::web::json_of(soma::critical(s, run, {.last = last})); });
      },
      py::arg("run"), py::arg("last") = 100,
      "where the run's last forwards spent their time")
    .def("curve", &sp::curve, py::arg("run"), py::arg("name") = "loss",
         "the series NAME (a fact: its value; or fact.field) as NumPy arrays forward, value and "
         "when_us");
}
