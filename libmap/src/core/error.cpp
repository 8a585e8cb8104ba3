#include "rankmap/error.hpp"

namespace rankmap {
namespace {

std::string locate(const std::string& source, std::size_t line, const std::string& message) {
  if (source.empty()) return message;
  if (line == 0) return source + ": " + message;
  return source + ":" + std::to_string(line) + ": " + message;
}

}  // namespace

Error::Error(std::string source, std::size_t line, const std::string& message)
    : std::runtime_error(locate(source, line, message)), source_(std::move(source)), line_(line) {}

Error::Error(const std::string& message) : std::runtime_error(message) {}

}  // namespace rankmap
