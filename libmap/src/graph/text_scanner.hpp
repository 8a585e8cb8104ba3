// Line-by-line reading with the line number at hand, so that every reader's
// error names the file and line. Internal to libmap.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "rankmap/error.hpp"

namespace rankmap::detail {

class LineScanner {
 public:
  LineScanner(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

  // Next line without its end-of-line characters; false at the end.
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = end + 1;
    ++line_;
    return true;
  }
  std::size_t line() const { return line_; }
  const std::string& source() const { return source_; }

  [[noreturn]] void fail(const std::string& what) const { throw Error(source_, line_, what); }

 private:
  std::string_view text_;
  std::string source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
};

// Splits one line into fields separated by any of `separators`.
class Fields {
 public:
  explicit Fields(std::string_view line, std::string_view separators = " \t")
      : rest_(line), seps_(separators) {}
  bool next(std::string_view& field) {
    const std::size_t start = rest_.find_first_not_of(seps_);
    if (start == std::string_view::npos) return false;
    rest_.remove_prefix(start);
    const std::size_t end = rest_.find_first_of(seps_);
    field = rest_.substr(0, end);
    rest_.remove_prefix(end == std::string_view::npos ? rest_.size() : end);
    return true;
  }
  bool empty() const { return rest_.find_first_not_of(seps_) == std::string_view::npos; }

 private:
  std::string_view rest_;
  std::string_view seps_;
};

inline bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

// A whole non-negative number; `what` names it in the error ("a byte count").
inline std::uint64_t parse_count(std::string_view field, const LineScanner& at, const char* what) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec == std::errc() && p == field.data() + field.size()) return v;
  if (!field.empty() && field[0] == '-')
    at.fail(std::string("expected ") + what + " (non-negative), got '" + std::string(field) + "'");
  if (ec == std::errc::result_out_of_range)
    at.fail(std::string("expected ") + what + ", got '" + std::string(field) + "', which is too large");
  at.fail(std::string("expected ") + what + " (a whole number), got '" + std::string(field) + "'");
}

// Takes the next field or fails naming what was expected.
inline std::string_view need(Fields& fields, const LineScanner& at, const char* what) {
  std::string_view f;
  if (!fields.next(f)) at.fail(std::string("expected ") + what + ", found the end of the line");
  return f;
}

}  // namespace rankmap::detail
