#include "rankmap/error.hpp"

namespace rankmap {
namespace {

// Messages quote the input that is wrong, and input can be anything: each
// part is kept to one printable line of bounded length (a 20 KB line or a
// hostlist with newlines would break the one-line promise, and raw control
// bytes would reach the user's terminal).
constexpr std::size_t kMaxPart = 400;

std::string printable(const std::string& text) {
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

Error::Error(std::string source, std::size_t line, const std::string& message)
    : std::runtime_error(locate(source, line, message)), source_(std::move(source)), line_(line) {}

Error::Error(const std::string& message) : std::runtime_error(printable(message)) {}

}  // namespace rankmap
