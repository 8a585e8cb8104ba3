#include "rankmap/error.hpp"

namespace rankmap {
namespace {

// Messages quote the input that is wrong, and input can be anything: each
// part is kept to one printable line of bounded length (a 20 KB line or a
// hostlist with newlines would break the one-line promise, and raw control
// bytes would reach the user's terminal).
constexpr std::size_t kMaxPart = 400;

std::string printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (out.size() >= kMaxPart) {
      out += "...";
      break;
    }
    out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
  }
  return out;
}

std::string locate(const std::string& source, std::size_t line, const std::string& message) {
  if (source.empty()) return printable(message);
  if (line == 0) return printable(source) + ": " + printable(message);
  return printable(source) + ":" + std::to_string(line) + ": " + printable(message);
}

}  // namespace

std::string_view error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::input: return "input";
    case ErrorKind::argument: return "argument";
    case ErrorKind::fit: return "fit";
    case ErrorKind::io: return "io";
    case ErrorKind::internal: return "internal";
  }
  return "?";
}

Error::Error(std::string source, std::size_t line, const std::string& message, ErrorKind kind)
    : std::runtime_error(locate(source, line, message)),
      kind_(kind),
      source_(std::move(source)),
      line_(line),
      message_(printable(message)) {}

Error::Error(const std::string& message, ErrorKind kind)
    : std::runtime_error(printable(message)), kind_(kind), message_(printable(message)) {}

Error::Error(ErrorKind kind, Parameter parameter, const std::string& message)
    : std::runtime_error(locate(parameter.name, 0, message)),
      kind_(kind),
      source_(parameter.name),
      parameter_(std::move(parameter.name)),
      message_(printable(message)) {}

std::string Error::what_with_parameter_called(std::string_view label) const {
  if (parameter_.empty()) return what();
  return printable(label) + ": " + message_;
}

}  // namespace rankmap
