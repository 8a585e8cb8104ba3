// What the readers of rankmap's TOML files (machine_toml.cpp, context.cpp)
// check the same way: syntax, unknown keys, and each value's type and
// range, every error naming the file and the line. Internal to libmap.
#pragma once

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/toml_integer.hpp"
#include "rankmap/error.hpp"

namespace rankmap::detail {

class TomlReader {
 public:
  explicit TomlReader(std::string source) : source_(std::move(source)) {}

  // The document, or an Error at the line of its first syntax error.
  toml::table parse(std::string_view text) const {
    try {
      return toml::parse(text, source_);
    } catch (const toml::parse_error& e) {
      throw Error(source_, e.source().begin.line, "TOML syntax: " + std::string(e.description()));
    }
  }

  [[noreturn]] void fail(std::size_t line, const std::string& what) const { throw Error(source_, line, what); }
  [[noreturn]] void fail(const toml::node& n, const std::string& what) const { fail(line_of(n), what); }
  static std::size_t line_of(const toml::node& n) { return n.source().begin.line; }
  const std::string& source() const { return source_; }

  // Every key of `t` is one of `keys`; `where` names the table in messages.
  void reject_unknown(const toml::table& t, std::initializer_list<std::string_view> keys,
                      const std::string& where) const {
    reject_unknown(t, std::vector<std::string_view>(keys), where);
  }
  void reject_unknown(const toml::table& t, const std::vector<std::string_view>& keys, const std::string& where) const {
    for (auto&& [key, value] : t)
      if (std::find(keys.begin(), keys.end(), key.str()) == keys.end())
        fail(value, "unknown key '" + std::string(key.str()) + "' in " + where);
  }

  // The sub-table `key` of `t`, or nullptr when absent.
  const toml::table* table(const toml::table& t, std::string_view key) const {
    const toml::node* n = t.get(key);
    if (n && !n->is_table()) fail(*n, "'" + std::string(key) + "' must be a table");
    return n ? n->as_table() : nullptr;
  }

  std::string string(const toml::node& n, std::string_view key) const {
    auto v = n.value<std::string>();
    if (!n.is_string() || !v) fail(n, "'" + std::string(key) + "' must be a string");
    return *v;
  }

  // A TOML integer from lo to hi (a float is refused, not rounded).
  std::int64_t integer(const toml::node& n, std::string_view key, std::int64_t lo, std::int64_t hi) const {
    auto v = toml_integer(n);
    if (!v || *v < lo || *v > hi)
      fail(n, "'" + std::string(key) + "' must be a whole number from " + std::to_string(lo) + " to " +
                  std::to_string(hi));
    return *v;
  }

  // Sets `out` when `t` has `key`.
  void boolean(const toml::table& t, std::string_view key, bool& out) const {
    if (const toml::node* n = t.get(key)) {
      auto v = n->value<bool>();
      if (!n->is_boolean() || !v) fail(*n, "'" + std::string(key) + "' must be true or false");
      out = *v;
    }
  }

  // A finite number of 0 or more.
  double nonnegative(const toml::node& n, std::string_view key) const {
    auto v = n.value<double>();
    if (!n.is_number() || !v || !std::isfinite(*v) || *v < 0)
      fail(n, "'" + std::string(key) + "' must be a non-negative number");
    return *v;
  }

 private:
  std::string source_;
};

}  // namespace rankmap::detail
