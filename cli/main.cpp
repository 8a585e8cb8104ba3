// rankmap: topology-aware MPI rank mapping. A thin shell over libmap: it
// parses the command line, calls the library and reports its errors
// (run.cpp); here only what a process does once, its signal handlers.
#include <signal.h>

#include <cstdio>

#include "commands.hpp"
#include "rankmap/io.hpp"

namespace {

// SIGINT, SIGTERM (a Slurm time limit) and SIGHUP remove the temporary
// files of a write under way, then end the process as the signal would
// have (the handler resets itself; the signal, blocked while it runs, is
// delivered again on return). The library installs no handler of its own.
extern "C" void remove_temporaries_and_stop(int sig) {
  rankmap::remove_temporary_files();
  ::raise(sig);
}

void remove_temporaries_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = remove_temporaries_and_stop;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction before {};
    // A signal the caller ignores (nohup's SIGHUP) stays ignored.
    if (::sigaction(sig, nullptr, &before) == 0 && before.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace

// Nothing escapes: even setting up the command line can run out of memory.
int main(int argc, char** argv) {
  remove_temporaries_on_signals();
  try {
    return rankmap::cli::run(argc, argv);
  } catch (...) {
    std::fprintf(stderr, "rankmap: out of memory or internal error while starting\n");
    return 1;
  }
}
