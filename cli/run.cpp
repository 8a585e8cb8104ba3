// The rankmap command line: parses it, runs the chosen sub-command and
// reports its errors, one line each. main.cpp calls it; so does the fuzz
// harness of `machine new` (tests/fuzz).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/error.hpp"
#include "rankmap/rankmap.h"
#include "suggest.hpp"

namespace rankmap::cli {
namespace {

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
    text += std::string(e.parameter() == "cpus_per_rank"
                            ? " (more --nodes, fewer --ppn, fewer --cpus-per-rank or --hwthreads"
                            : " (more --nodes, another --ppn or --hwthreads") +
            (can_oversubscribe ? ", or --oversubscribe" : "") + " make room)";
  }
  return text;
}

// For a word CLI11 did not expect: which command or flag the user meant,
// as "unknown command 'mapp'; did you mean 'map'?" (empty when no word of
// the command line is unknown, or the error is another).
std::string unknown_word(CLI::App& app, const CLI::ParseError& e) {
  CLI::App* deepest = &app;
  std::string path = "rankmap";
  while (!deepest->get_subcommands().empty()) {
    deepest = deepest->get_subcommands()[0];
    path += " " + deepest->get_name();
  }
  for (const std::string& word : deepest->remaining()) {
    if (word == "--") break;  // the job's words follow (run, profile)
    if (word.empty()) continue;
    if (word[0] != '-') {
      // A word where a command was required.
      if (!dynamic_cast<const CLI::RequiredError*>(&e)) continue;
      std::vector<std::string> commands;
      for (const CLI::App* sub : deepest->get_subcommands([](CLI::App*) { return true; }))
        commands.push_back(sub->get_name());
      if (commands.empty()) continue;
      const std::string near = nearest_word(word, commands);
      return path + ": unknown command '" + printable(word, 60) + "'" +
             (near.empty() ? "" : "; did you mean '" + near + "'?") + " (see '" + path + " --help')";
    }
    const std::string flag = word.substr(0, word.find('='));
    std::vector<std::string> flags;
    for (const CLI::Option* option : deepest->get_options()) {
      for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
      for (const std::string& name : option->get_snames()) flags.push_back("-" + name);
    }
    if (std::find(flags.begin(), flags.end(), flag) != flags.end()) continue;  // a value that looks like a flag
    const std::string near = nearest_word(flag, flags);
    return path + ": unknown option '" + printable(flag, 60) + "'" +
           (near.empty() ? "" : "; did you mean '" + near + "'?") + " (see '" + path + " --help')";
  }
  return "";
}

}  // namespace

int run(int argc, char** argv) {
  clear_inputs();  // a new command: none of its files read yet
  CLI::App app{
      "rankmap: place MPI ranks on a machine's network (tori, switches, fat trees) so that heavy talkers sit close",
      "rankmap"};
  app.set_version_flag("--version", std::string("rankmap ") + rankmap_version());  // the library's, one version
  app.require_subcommand(1);
  app.footer("Run 'rankmap COMMAND --help' for the options of a command.");

  Action action;
  add_map(app, action);
  add_eval(app, action);
  add_gen(app, action);
  add_inspect(app, action);
  add_model(app, action);
  add_profile(app, action);
  add_convert(app, action);
  add_machine(app, action);
  add_plot(app, action);
  add_run(app, action);
  add_reorder(app, action);
  add_bind_task(app, action);

  // mpirun's -np, as users type it, for run (CLI11 takes -np for -n p):
  // before the job's '--' only.
  std::vector<std::string> words(argv + std::min(argc, 1), argv + argc);  // without the program's name
  if (!words.empty() && words[0] == "run")
    for (std::size_t i = 1; i < words.size() && words[i] != "--"; ++i)
      if (words[i] == "-np") words[i] = "--np";
  std::reverse(words.begin(), words.end());  // CLI11 takes the words last first
  try {
    app.parse(words);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // README promises exit status 1 and one line for every usage error.
    if (const std::string unknown = unknown_word(app, e); !unknown.empty() && !app.got_subcommand("profile")) {
      std::fprintf(stderr, "%s\n", unknown.c_str());
      return 1;
    }
    const auto given = app.get_subcommands();
    std::string hint = "; see 'rankmap " + (given.empty() ? std::string() : given[0]->get_name() + " ") + "--help'";
    if (dynamic_cast<const CLI::ExtrasError*>(&e) && app.got_subcommand("profile"))
      hint = "; put '--' before the launcher, e.g. rankmap profile -o app.rmp -- mpirun -np 4 ./app";
    // CLI11 quotes the arguments it did not expect: control bytes and a
    // 120 KB argument stay out of the one line.
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "rankmap: %s%s\n", printable(what, 400).c_str(), hint.c_str());
    return 1;
  }
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

}  // namespace rankmap::cli
