// rankmap::Error: the one error type of the library.
//
// The library never prints, exits or installs signal handlers: every failure
// is thrown as an Error that names where the problem is (a file and a line
// when there is one) and what was expected. Callers (the CLI, the C API)
// catch it and decide how to report it.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace rankmap {

class Error : public std::runtime_error {
 public:
  // `source` is a file name or a short label ("hostlist", "--nodes");
  // `line` is 1-based, 0 when the problem is not tied to a line. what()
  // is one printable line: control bytes become '?', and the source and
  // the message are cut at 400 characters each.
  Error(std::string source, std::size_t line, const std::string& message);
  explicit Error(const std::string& message);

  const std::string& source() const noexcept { return source_; }
  std::size_t line() const noexcept { return line_; }

 private:
  std::string source_;
  std::size_t line_ = 0;
};

}  // namespace rankmap
