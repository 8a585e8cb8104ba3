// rankmap: topology-aware MPI rank mapping. A thin shell over libmap: it
// parses the command line, calls the library and reports its errors.
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "commands.hpp"
#include "rankmap/error.hpp"
#include "rankmap/io.hpp"
#include "rankmap/rankmap.h"

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

// The flag that sets each of the library's parameters: its name with
// dashes, but for the few the CLI spells its own way.
std::string flag_of(const std::string& parameter) {
  if (parameter == "ranks_per_node") return "--ppn";
  std::string flag = "--" + parameter;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

// The library's error in the CLI's words: its parameter as a flag, and for
// ranks that do not fit, the flags that make room.
std::string describe(const rankmap::Error& e, const CLI::App& app) {
  std::string text = e.what_with_parameter_called(flag_of(e.parameter()));
  if (e.kind() == rankmap::ErrorKind::fit) {
    const auto given = app.get_subcommands();
    const bool can_oversubscribe = !given.empty() && given[0]->get_option_no_throw("--oversubscribe") != nullptr;
    text += std::string(" (more --nodes, another --ppn or --hwthreads") +
            (can_oversubscribe ? ", or --oversubscribe" : "") + " make room)";
  }
  return text;
}

int run(int argc, char** argv) {
  CLI::App app{
      "rankmap: place MPI ranks on a machine's network (tori, switches, fat trees) so that heavy talkers sit close",
      "rankmap"};
  app.set_version_flag("--version", std::string("rankmap ") + rankmap_version());  // the library's, one version
  app.require_subcommand(1);
  app.footer("Run 'rankmap COMMAND --help' for the options of a command.");

  rankmap::cli::Action action;
  rankmap::cli::add_map(app, action);
  rankmap::cli::add_eval(app, action);
  rankmap::cli::add_gen(app, action);
  rankmap::cli::add_inspect(app, action);
  rankmap::cli::add_model(app, action);
  rankmap::cli::add_profile(app, action);
  rankmap::cli::add_convert(app, action);
  rankmap::cli::add_machine(app, action);
  rankmap::cli::add_plot(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // README promises exit status 1 and one line for every usage error.
    const auto given = app.get_subcommands();
    std::string hint = "; see 'rankmap " + (given.empty() ? std::string() : given[0]->get_name() + " ") + "--help'";
    if (dynamic_cast<const CLI::ExtrasError*>(&e) && app.got_subcommand("profile"))
      hint = "; put '--' before the launcher, e.g. rankmap profile -o app.rmp -- mpirun -np 4 ./app";
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "rankmap: %s%s\n", what.c_str(), hint.c_str());
    return 1;
  }
  remove_temporaries_on_signals();
  try {
    return action ? action() : 2;
  } catch (const rankmap::Error& e) {
    std::fprintf(stderr, "rankmap: %s\n", describe(e, app).c_str());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "rankmap: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rankmap: internal error: %s\n", e.what());
  }
  return 1;
}

}  // namespace

// Nothing escapes: even setting up the command line can run out of memory.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (...) {
    std::fprintf(stderr, "rankmap: out of memory or internal error while starting\n");
    return 1;
  }
}
