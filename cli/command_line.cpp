// The rankmap command line: parses it, runs the chosen sub-command and
// reports its errors, one line each. main.cpp calls it; so does the fuzz
// harness of `machine new` (tests/fuzz). The only file that includes
// CLI11: the commands describe their options through command_line.hpp.
#include "command_line.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>

#include "commands.hpp"
#include "common.hpp"
#include "rankmap/error.hpp"
#include "rankmap/rankmap.h"
#include "suggest.hpp"

namespace rankmap::cli {

Check number_from(double lo, double hi, const std::string& unit) {
  Check check;
  check.kind = Check::Kind::number;
  check.lo = lo, check.hi = hi, check.unit = unit;
  return check;
}

Check whole_number_from(std::int64_t lo, std::int64_t hi, const std::string& unit) {
  Check check;
  check.kind = Check::Kind::whole_number;
  check.whole_lo = lo, check.whole_hi = hi, check.unit = unit;
  return check;
}

Check one_of(std::vector<std::string> names) {
  Check check;
  check.kind = Check::Kind::one_of;
  check.names = std::move(names);
  return check;
}

namespace {

CLI::App* app_of(void* app) { return static_cast<CLI::App*>(app); }
CLI::Option* option_of(void* option) { return static_cast<CLI::Option*>(option); }

std::string shown(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", v);
  return text;
}

// A value of type T from `lo` to `hi`, read whole by from_chars; `range` and
// `noun` word the error ("expected a whole number from 1 to 8, got '0'").
template <class T>
CLI::Validator range_validator(T lo, T hi, const std::string& range, const std::string& noun,
                               const std::string& type_name) {
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        T v = 0;
        const char* end = value.data() + value.size();
        auto [p, ec] = std::from_chars(value.data(), end, v);
        if (ec == std::errc() && p == end && v >= lo && v <= hi) return "";
        return "expected " + noun + " " + range + ", got '" + printable(value) + "'";
      },
      type_name + " " + range);
}

// A Check as CLI11 runs it: the range in words in --help and in the error.
CLI::Validator validator_of(const Check& check) {
  const std::string unit = check.unit.empty() ? "" : " (" + check.unit + ")";
  switch (check.kind) {
    case Check::Kind::number:
      return range_validator(check.lo, check.hi, "from " + shown(check.lo) + " to " + shown(check.hi) + unit,
                             "a number", "NUMBER");
    case Check::Kind::whole_number:
      return range_validator(check.whole_lo, check.whole_hi,
                             "from " + std::to_string(check.whole_lo) + " to " + std::to_string(check.whole_hi) + unit,
                             "a whole number", "INTEGER");
    case Check::Kind::one_of: break;
  }
  return CLI::IsMember(check.names);
}

}  // namespace

Option& Option::required(bool yes) {
  option_of(option_)->required(yes);
  return *this;
}

Option& Option::show_default() {
  option_of(option_)->capture_default_str();
  return *this;
}

Option& Option::check(const Check& check) {
  option_of(option_)->check(validator_of(check));
  return *this;
}

Option& Option::excludes(const Option& other) {
  option_of(option_)->excludes(option_of(other.option_));
  return *this;
}

bool Option::given() const { return option_of(option_)->count() > 0; }

template <class T>
Option Command::option(const std::string& names, T& into, const std::string& help) {
  return Option(app_of(app_)->add_option(names, into, help));
}
// The types the commands' options hold.
template Option Command::option(const std::string&, std::string&, const std::string&);
template Option Command::option(const std::string&, int&, const std::string&);
template Option Command::option(const std::string&, unsigned&, const std::string&);
template Option Command::option(const std::string&, unsigned long&, const std::string&);
template Option Command::option(const std::string&, long&, const std::string&);
template Option Command::option(const std::string&, double&, const std::string&);
template Option Command::option(const std::string&, std::optional<double>&, const std::string&);
template Option Command::option(const std::string&, std::optional<std::string>&, const std::string&);
template Option Command::option(const std::string&, std::optional<int>&, const std::string&);
template Option Command::option(const std::string&, std::optional<unsigned long>&, const std::string&);
template Option Command::option(const std::string&, std::vector<std::string>&, const std::string&);

Option Command::flag(const std::string& names, bool& into, const std::string& help) {
  return Option(app_of(app_)->add_flag(names, into, help));
}

Option Command::find(const std::string& name) { return Option(app_of(app_)->get_option(name)); }

Command Command::subcommand(const std::string& name, const std::string& description) {
  return Command(app_of(app_)->add_subcommand(name, description));
}

void Command::require_subcommand() { app_of(app_)->require_subcommand(1); }

void Command::footer(const std::string& text) { app_of(app_)->footer(text); }

void Command::on_chosen(std::function<void()> then) {
  app_of(app_)->callback([then = std::move(then)] {
    try {
      then();
    } catch (const UsageError& e) {
      throw CLI::ValidationError(e.command, e.message);
    }
  });
}

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
      "rankmap: place MPI ranks on a machine's network (tori, switches, fat trees, dragonflies) so that heavy talkers "
      "sit close",
      "rankmap"};
  app.set_version_flag("--version", std::string("rankmap ") + rankmap_version());  // the library's, one version
  app.require_subcommand(1);
  app.footer("Run 'rankmap COMMAND --help' for the options of a command.");

  Action action;
  Command commands(&app);
  add_map(commands, action);
  add_eval(commands, action);
  add_gen(commands, action);
  add_inspect(commands, action);
  add_model(commands, action);
  add_profile(commands, action);
  add_convert(commands, action);
  add_machine(commands, action);
  add_plot(commands, action);
  add_run(commands, action);
  add_reorder(commands, action);
  add_bind_task(commands, action);

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
