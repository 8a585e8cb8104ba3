// rankmap: topology-aware MPI rank mapping. A thin shell over libmap: it
// parses the command line, calls the library and reports its errors.
#include <cstdio>
#include <exception>
#include <string>

#include "commands.hpp"
#include "rankmap/error.hpp"
#include "rankmap/rankmap.h"

int main(int argc, char** argv) {
  CLI::App app{"rankmap: place MPI ranks on torus machines so that heavy talkers sit close",
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
  try {
    return action ? action() : 2;
  } catch (const rankmap::Error& e) {
    std::fprintf(stderr, "rankmap: %s\n", e.what());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "rankmap: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rankmap: internal error: %s\n", e.what());
  }
  return 1;
}
