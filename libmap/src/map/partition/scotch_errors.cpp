#include "map/partition/scotch_errors.hpp"

#include <cstdarg>
#include <cstdio>

namespace {
thread_local std::string last_scotch_error;

void keep(const char* kind, const char* format, va_list args) {
  char buffer[512];
  std::vsnprintf(buffer, sizeof buffer, format, args);
  last_scotch_error = std::string(kind) + buffer;
}
}  // namespace

extern "C" void SCOTCH_errorPrint(const char* format, ...) {
  va_list args;
  va_start(args, format);
  keep("", format, args);
  va_end(args);
}

extern "C" void SCOTCH_errorPrintW(const char* format, ...) {
  va_list args;
  va_start(args, format);
  keep("warning: ", format, args);
  va_end(args);
}

extern "C" void SCOTCH_errorProg(const char*) {}

namespace rankmap::detail {

std::string take_scotch_error() {
  std::string message = last_scotch_error.empty() ? "no message from Scotch" : last_scotch_error;
  last_scotch_error.clear();
  return message;
}

}  // namespace rankmap::detail
