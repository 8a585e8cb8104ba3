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
  // line_before: the number of the line before text's first (a piece of a
  // file read on several threads).
  LineScanner(std::string_view text, std::string source, std::size_t line_before = 0)
      : text_(text), source_(std::move(source)), line_(line_before) {}

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
  std::string_view rest() const { return pos_ < text_.size() ? text_.substr(pos_) : std::string_view(); }
  std::size_t text_size() const { return text_.size(); }
  const std::string& source() const { return source_; }

  [[noreturn]] void fail(const std::string& what) const { throw Error(source_, line_, what); }

 private:
  std::string_view text_;
  std::string source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
};

// Splits one line into fields separated by one or two separator characters
// (" \t", ","...). Compared directly: the generic find_first_of calls memchr
// once per character, which dominated reading a 500 MB graph.
class Fields {
 public:
  explicit Fields(std::string_view line, std::string_view separators = " \t")
      : rest_(line), a_(separators.empty() ? ' ' : separators[0]), b_(separators.size() > 1 ? separators[1] : a_) {}
  bool next(std::string_view& field) {
    std::size_t i = 0;
    const std::size_t n = rest_.size();
    while (i < n && is_sep(rest_[i])) ++i;
    if (i == n) {
      rest_ = {};
      return false;
    }
    std::size_t j = i;
    while (j < n && !is_sep(rest_[j])) ++j;
    field = rest_.substr(i, j - i);
    rest_.remove_prefix(j);
    return true;
  }
  bool empty() const {
    for (char c : rest_)
      if (!is_sep(c)) return false;
    return true;
  }

 private:
  bool is_sep(char c) const { return c == a_ || c == b_; }
  std::string_view rest_;
  char a_, b_;
};

// Without leading and trailing white space (any the C locale calls so).
inline std::string_view trim_space(std::string_view s) {
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

inline bool is_blank(std::string_view line) { return line.find_first_not_of(" \t") == std::string_view::npos; }

// The fields of a line separated by blanks, counted without reading them.
inline std::uint64_t count_fields(std::string_view line) {
  std::uint64_t fields = 0;
  bool in_field = false;
  for (char c : line) {
    const bool sep = c == ' ' || c == '\t';
    fields += !sep && !in_field ? 1 : 0;
    in_field = !sep;
  }
  return fields;
}

// The failure paths, kept out of line so the parsing loops stay small.
[[noreturn, gnu::cold, gnu::noinline]] inline void fail_count(std::string_view field, const LineScanner& at,
                                                              const char* what, std::errc ec) {
  if (!field.empty() && field[0] == '-')
    at.fail(std::string("expected ") + what + " (non-negative), got '" + std::string(field) + "'");
  if (ec == std::errc::result_out_of_range)
    at.fail(std::string("expected ") + what + ", got '" + std::string(field) + "', which is too large");
  at.fail(std::string("expected ") + what + " (a whole number), got '" + std::string(field) + "'");
}
[[noreturn, gnu::cold, gnu::noinline]] inline void fail_missing(const LineScanner& at, const char* what) {
  at.fail(std::string("expected ") + what + ", found the end of the line");
}

// A whole non-negative number; `what` names it in the error ("a byte count").
inline std::uint64_t parse_count(std::string_view field, const LineScanner& at, const char* what) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec == std::errc() && p == field.data() + field.size()) [[likely]]
    return v;
  fail_count(field, at, what, ec);
}

// Bytes between two ranks (one entry): at most 2^48, 256 TiB, so that sums
// over a graph and bytes x hops stay far inside 64 bits.
inline constexpr std::uint64_t kMaxEntryBytes = std::uint64_t{1} << 48;
inline std::uint64_t parse_bytes(std::string_view field, const LineScanner& at, const char* what) {
  const std::uint64_t v = parse_count(field, at, what);
  if (v > kMaxEntryBytes)
    at.fail(std::string(what) + " of " + std::to_string(v) + " is beyond the " + std::to_string(kMaxEntryBytes) +
            " bytes rankmap takes for one entry");
  return v;
}

// Past the blanks at p.
inline void skip_blanks(const char*& p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
}

// The digits at p as a whole number, p past them; false when there are
// none or more than 19 (which might not fit 64 bits).
inline bool scan_digits(const char*& p, const char* end, std::uint64_t& out) {
  const char* start = p;
  std::uint64_t v = 0;
  while (p < end && static_cast<unsigned>(*p - '0') < 10) v = v * 10 + static_cast<unsigned>(*p++ - '0');
  if (p == start || p - start > 19) return false;
  out = v;
  return true;
}

// The common line of k whole numbers separated by blanks, read in one
// sweep; false for anything else (a sign, a fraction, a 20-digit number, a
// missing or extra field), which the caller then reads field by field to
// report it. Halves the time of reading a 400 MB graph.
inline bool scan_counts(std::string_view line, std::uint64_t* out, int k) {
  const char* p = line.data();
  const char* const end = p + line.size();
  for (int i = 0; i < k; ++i) {
    skip_blanks(p, end);
    if (!scan_digits(p, end, out[i])) return false;
    if (p < end && *p != ' ' && *p != '\t') return false;
  }
  skip_blanks(p, end);
  return p == end;
}

// The common CSV line of up to max_k whole numbers separated by `sep`
// (blanks allowed around each), read in one sweep: how many it holds, or 0
// for anything else (an empty field, a sign, a 20-digit number, more than
// max_k), which the caller then reads field by field, to the same numbers
// or to the line's error.
inline int scan_separated_counts(std::string_view line, char sep, std::uint64_t* out, int max_k) {
  const char* p = line.data();
  const char* const end = p + line.size();
  for (int i = 0; i < max_k; ++i) {
    skip_blanks(p, end);
    if (!scan_digits(p, end, out[i])) return 0;
    skip_blanks(p, end);
    if (p == end) return i + 1;
    if (*p++ != sep) return 0;
  }
  return 0;
}

// The whole number a line starts with, up to a blank (`sep` ' ') or up to
// `sep` after any blanks: an edge line's sender, read alone where only
// the rows' edges are counted. False for anything else, which the caller
// then reads in full, to the same number or to the line's error.
inline bool first_count(std::string_view line, char sep, std::uint64_t& out) {
  const char* p = line.data();
  const char* const end = p + line.size();
  skip_blanks(p, end);
  std::uint64_t v = 0;
  if (!scan_digits(p, end, v)) return false;
  if (sep != ' ') skip_blanks(p, end);
  if (p == end || !(*p == sep || (sep == ' ' && *p == '\t'))) return false;
  out = v;
  return true;
}

// Takes the next field or fails naming what was expected.
inline std::string_view need(Fields& fields, const LineScanner& at, const char* what) {
  std::string_view f;
  if (!fields.next(f)) [[unlikely]]
    fail_missing(at, what);
  return f;
}

}  // namespace rankmap::detail
