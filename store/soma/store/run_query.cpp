#include "soma/store/run_query.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>
#include <string_view>
#include <stdexcept>
#include <tuple>
#include <variant>

namespace soma {

namespace {

// The number a parameter holds, if it holds one.
std::optional<double> number_of(const value& v) {
  if (auto* i = std::get_if<std::int64_t>(&v))
    return static_cast<double>(*i);
  if (auto* d = std::get_if<double>(&v))
    return *d;
  return std::nullopt;
}

// `text` read whole as a number, if it is one.
std::optional<double> number_in(std::string_view text) {
  double x = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
    return std::nullopt;
  return x;
}

// A --param filter read once: NAME, or NAME OP VALUE, VALUE's number read
// when it is one.
struct param_filter {
  std::string_view name;
  std::string_view op; // "", "=", "!=", "<", "<=", ">", ">="
  std::string_view value;
  std::optional<double> number;
};

// Which of a value's numbers a --sort or --where key asks for: its last, or
// (min:NAME, max:NAME) its least or greatest.
enum class which_number { last, min, max };

// NAME, min:NAME or max:NAME: which number, and NAME.
std::pair<which_number, std::string_view> value_key(std::string_view k) {
  if (k.starts_with("min:"))
    return {which_number::min, k.substr(4)};
  if (k.starts_with("max:"))
    return {which_number::max, k.substr(4)};
  return {which_number::last, k};
}

// The number `k` (NAME, min:NAME, max:NAME) asks of `r`, if it has one.
std::optional<double> value_number(const run_row& r, std::string_view k) {
  auto [which, name] = value_key(k);
  auto* v = value_named(r, name);
  if (!v)
    return std::nullopt;
  return which == which_number::min ? v->min : which == which_number::max ? v->max : v->last;
}

// NAME OP VALUE split at its operator (one of < <= > >= = !=): the
// operator's place and the operator, or why it cannot be read (signs that
// make no operator, as `=>` or `~`). `at` is npos when there is no sign of
// an operator at all.
struct split_text {
  std::size_t at = std::string_view::npos;
  std::string_view op;
  std::string_view value;
  std::string wrong; // not empty: why the operator cannot be read
};

split_text split_at_operator(std::string_view t) {
  split_text out;
  out.at = t.find_first_of("<>=!~");
  if (out.at == std::string_view::npos)
    return out;
  for (std::string_view op : {"<=", ">=", "!=", "<", ">", "="})
    if (t.substr(out.at).starts_with(op)) {
      out.op = op;
      break;
    }
  if (out.op.empty()) {
    out.wrong = "'" + std::string{t.substr(out.at, 1)} + "' is no operator";
    return out;
  }
  out.value = t.substr(out.at + out.op.size());
  if (!out.value.empty() && std::string_view{"<>=!~"}.find(out.value.front()) != std::string_view::npos)
    out.wrong = "'" + std::string{out.op} + out.value.front() + "' is no operator";
  return out;
}

// A --where filter read once: KEY OP NUMBER.
struct where_filter {
  std::string_view key;
  std::string_view op;
  double number = 0;
};

constexpr std::string_view where_syntax =
  "KEY<NUMBER, KEY<=NUMBER, KEY>NUMBER, KEY>=NUMBER, KEY=NUMBER or KEY!=NUMBER, KEY a summarised "
  "value's name (loss: its last; min:loss, max:loss: its least, its greatest)";

caf::expected<where_filter> read_where(std::string_view w) {
  auto bad = [&](std::string why) -> caf::expected<where_filter> {
    return make_error(error_code::invalid, "where '" + std::string{w} + "': " + why + "; it takes "
                                             + std::string{where_syntax});
  };
  auto split = split_at_operator(w);
  if (split.at == std::string_view::npos)
    return bad("no operator");
  if (split.at == 0 || value_key(w.substr(0, split.at)).second.empty())
    return bad("no KEY before the operator");
  if (!split.wrong.empty())
    return bad(split.wrong);
  auto x = number_in(split.value);
  if (!x)
    return bad("'" + std::string{split.value} + "' is not a number");
  return where_filter{w.substr(0, split.at), split.op, *x};
}

// Whether `x` compares to `f`'s number as `f` says.
bool compares(double x, std::string_view op, double y) {
  if (op == "=")
    return x == y;
  if (op == "!=")
    return x != y;
  if (op == "<")
    return x < y;
  if (op == "<=")
    return x <= y;
  if (op == ">")
    return x > y;
  return x >= y;
}

constexpr std::string_view param_syntax =
  "NAME for any value, or NAME=VALUE, NAME!=VALUE, NAME<VALUE, NAME<=VALUE, NAME>VALUE or "
  "NAME>=VALUE (the last four compare numbers)";

// `p` read as a filter; an error naming the syntax when it is none.
caf::expected<param_filter> read_param(std::string_view p) {
  auto bad = [&](std::string why) -> caf::expected<param_filter> {
    return make_error(error_code::invalid, "param '" + std::string{p} + "': " + why + "; it takes "
                                             + std::string{param_syntax});
  };
  auto split = split_at_operator(p);
  if (split.at == std::string_view::npos)
    return param_filter{p, "", "", std::nullopt};
  if (split.at == 0)
    return bad("no NAME before the operator");
  if (!split.wrong.empty())
    return bad(split.wrong);
  param_filter f{p.substr(0, split.at), split.op, split.value, number_in(split.value)};
  if (f.op != "=" && f.op != "!=" && !f.number)
    return bad(std::string{f.op} + " compares numbers, and '" + std::string{f.value}
               + "' is not one");
  return f;
}

// Whether the parameter `v` is what `NAME=VALUE` asked: the same text, or
// the same number (lr=0.05 matches 5e-2).
bool same_value(const value& v, const param_filter& f) {
  if (text(v) == f.value)
    return true;
  auto x = number_of(v);
  return x && f.number && *x == *f.number;
}

// Whether the parameter `v` passes `f`.
bool passes(const value& v, const param_filter& f) {
  if (f.op.empty())
    return true;
  if (f.op == "=")
    return same_value(v, f);
  if (f.op == "!=")
    return !same_value(v, f);
  auto x = number_of(v);
  if (!x)
    return false; // a text is neither more nor less than a number
  return compares(*x, f.op, *f.number);
}

// Whether run `r` is one `inv` asks for, its --param filters read as
// `params` (one that cannot be read matches nothing).
bool asked_for(const run_row& r, const run_query& inv,
               const std::vector<caf::expected<param_filter>>& params,
               const std::vector<caf::expected<where_filter>>& wheres) {
  if (!r.run.starts_with(inv.prefix))
    return false;
  if (!inv.statuses.empty()
      && std::find(inv.statuses.begin(), inv.statuses.end(), to_string(r.status))
           == inv.statuses.end())
    return false;
  for (auto& tag : inv.tags)
    if (std::find(r.tags.begin(), r.tags.end(), tag) == r.tags.end())
      return false;
  for (auto& f : params) {
    auto* v = f ? r.params.find(f->name) : nullptr;
    if (!v || !passes(*v, *f))
      return false; // a run without the parameter passes no test of it
  }
  for (auto& f : wheres) {
    auto x = f ? value_number(r, f->key) : std::nullopt;
    if (!x || !compares(*x, f->op, f->number))
      return false; // a run without the value passes no test of it
  }
  return true;
}

// Orders `rows` by `inv.sort` (then by id), reversed with `reverse`. A
// parameter's NAME orders by its value, numbers before texts; runs without
// it go last.
void sort_runs(std::vector<run_row>& rows, const run_query& inv) {
  using key = std::tuple<int, double, std::string>; // (kind, number, text)
  std::function<key(const run_row&)> of;
  auto& k = inv.sort;
  auto number = [](double x) { return key{0, x, {}}; };
  if (k == "first")
    of = [&](const run_row& r) { return number(static_cast<double>(r.first)); };
  else if (k == "last")
    of = [&](const run_row& r) { return number(static_cast<double>(r.last)); };
  else if (k == "run")
    of = [](const run_row& r) { return key{1, 0, r.run}; };
  else if (k == "status")
    of = [](const run_row& r) { return key{1, 0, std::string{to_string(r.status)}}; };
  else if (k == "forwards")
    of = [&](const run_row& r) { return number(static_cast<double>(r.forwards)); };
  else if (k == "broke")
    of = [&](const run_row& r) { return number(static_cast<double>(r.broke)); };
  else if (k == "took")
    of = [&](const run_row& r) { return number(static_cast<double>(r.took_us)); };
  else if (k == "duration")
    of = [&](const run_row& r) {
      return r.duration_us ? number(static_cast<double>(*r.duration_us)) : key{3, 0, {}};
    };
  else if (std::any_of(rows.begin(), rows.end(), [&](auto& r) { return value_number(r, k); })) {
    of = [&](const run_row& r) -> key {
      auto x = value_number(r, k);
      return x ? number(*x) : key{3, 0, {}}; // runs without it last
    };
  } else {
    bool any = std::any_of(rows.begin(), rows.end(), [&](auto& r) { return r.params.find(k); });
    if (!any && !rows.empty())
      throw std::invalid_argument(k + ": it is not a column (first, last, run, status, forwards, "
                                  "broke, duration, took), and no run listed has a value (loss, min:loss, "
                                  "max:loss) or a parameter named so");
    of = [&](const run_row& r) -> key {
      auto* v = r.params.find(k);
      if (!v)
        return {3, 0, {}};
      if (auto x = number_of(*v))
        return number(*x);
      return {1, 0, text(*v)};
    };
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const run_row& a, const run_row& b) {
    auto x = of(a), y = of(b);
    if (x != y)
      return inv.reverse ? y < x : x < y;
    return inv.reverse ? b.run < a.run : a.run < b.run;
  });
}

} // namespace

const value_range* value_named(const run_row& r, std::string_view name) {
  auto key = detail::summary_key(name);
  for (auto& v : r.summary_values)
    if (v.key == key)
      return &v;
  return nullptr;
}

std::string value_name(const value_range& v) {
  std::string_view k = v.key;
  return std::string{k.ends_with(".value") ? k.substr(0, k.size() - 6) : k};
}

caf::expected<void> check_query(const run_query& q) {
  for (auto& s : q.statuses)
    if (!run_status_named(s))
      return make_error(error_code::invalid,
                        "status " + s + ": a run stands running, finished, died or unknown");
  for (auto& p : q.params) {
    if (p.empty())
      return make_error(error_code::invalid, "param '': " + std::string{param_syntax});
    if (auto f = read_param(p); !f)
      return f.error();
  }
  for (auto& w : q.where)
    if (auto f = read_where(w); !f)
      return f.error();
  return {};
}

std::vector<run_row> select_runs(std::vector<run_row> rows, const run_query& q) {
  std::vector<caf::expected<param_filter>> params;
  for (auto& p : q.params)
    params.push_back(read_param(p));
  std::vector<caf::expected<where_filter>> wheres;
  for (auto& w : q.where)
    wheres.push_back(read_where(w));
  std::erase_if(rows, [&](const run_row& r) { return !asked_for(r, q, params, wheres); });
  sort_runs(rows, q);
  return rows;
}

} // namespace soma
