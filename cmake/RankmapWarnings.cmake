# The project's warnings, set on each of its targets: -Wall -Wextra, and
# -Werror when RANKMAP_WERROR is ON (scripts/test.sh, so CI, turns it on).
option(RANKMAP_WERROR "Treat compiler warnings as errors" OFF)

# -Wno-restrict: GCC 12's false positive on std::string's operator+ (GCC PR
# 105329); clang has no such warning and would warn about the flag.
function(rankmap_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-restrict> ${ARGN})
  if(RANKMAP_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
