// rankmap::Error: the one error type of the library.
//
// The library never prints, exits or installs signal handlers: every failure
// is thrown as an Error that says what kind of failure it is, names where
// the problem is (a file and a line, or a parameter of the call) and what
// was expected. Callers (the CLI, the C API) catch it and decide how to
// report it: the CLI names its flags, the C API returns a status per kind.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rankmap {

enum class ErrorKind {
  input,     // a file, text or array the caller gave is malformed or inconsistent
  argument,  // a parameter's value is unknown or out of range
  fit,       // the ranks do not fit the allocation (slots, cores of a node)
  io,        // a file cannot be opened, read or written
  internal,  // a broken promise inside the library
};

std::string_view error_kind_name(ErrorKind kind);  // "input", "argument", ...

// The parameter a value came from, in the library's own words ("nodes",
// "ranks_per_node", "format"); each caller names it its own way.
struct Parameter {
  std::string name;
};

class Error : public std::runtime_error {
 public:
  // `source` is a file name or a short label ("machine text"); `line` is
  // 1-based, 0 when the problem is not tied to a line. what() is one
  // printable line: control bytes become '?', and the source and the
  // message are cut at 400 characters each.
  Error(std::string source, std::size_t line, const std::string& message, ErrorKind kind = ErrorKind::input);
  explicit Error(const std::string& message, ErrorKind kind = ErrorKind::input);
  // A problem with the value of a parameter: what() is "name: message".
  Error(ErrorKind kind, Parameter parameter, const std::string& message);

  ErrorKind kind() const noexcept { return kind_; }
  const std::string& source() const noexcept { return source_; }  // the parameter's name for parameter errors
  std::size_t line() const noexcept { return line_; }
  // The parameter's name, empty when the error is about a file or nothing.
  const std::string& parameter() const noexcept { return parameter_; }
  // The message without its source and line.
  const std::string& message() const noexcept { return message_; }
  // what(), with the parameter called `label` (a CLI flag, a C argument).
  std::string what_with_parameter_called(std::string_view label) const;

 private:
  ErrorKind kind_;
  std::string source_;
  std::size_t line_ = 0;
  std::string parameter_;
  std::string message_;
};

}  // namespace rankmap
