// Scotch reports errors by calling SCOTCH_errorPrint, which the application
// must define. libmap defines it to keep the message for the Error it
// throws, so Scotch never prints. Internal to libmap.
#pragma once

#include <string>

namespace rankmap::detail {

// The last message Scotch reported on this thread, cleared by reading.
std::string take_scotch_error();

}  // namespace rankmap::detail
