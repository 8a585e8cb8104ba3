# RANKMAP_HARDENED: build as Fedora and RHEL compile C and C++ by default,
# so that CI sees what their users' builds would abort on:
# _GLIBCXX_ASSERTIONS checks every operator[] and front()/back() of the
# standard containers, _FORTIFY_SOURCE the C library's buffer calls.
# scripts/test.sh, so CI, turns it on; scripts/build.sh leaves it off for
# benchmarks.
option(RANKMAP_HARDENED "Build with _GLIBCXX_ASSERTIONS, _FORTIFY_SOURCE and stack protection" OFF)
if(RANKMAP_HARDENED)
  # _FORTIFY_SOURCE needs the optimiser (glibc warns without it).
  add_compile_definitions(_GLIBCXX_ASSERTIONS $<$<NOT:$<CONFIG:Debug>>:_FORTIFY_SOURCE=2>)
  add_compile_options(-fstack-protector-strong -fstack-clash-protection)
endif()
