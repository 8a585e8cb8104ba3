// How a sub-command describes its options and flags, without CLI11: one
// translation unit (command_line.cpp) owns the parser, so a command file
// compiles in seconds (CLI11 is header-only, and its code was built again
// in every file that included it).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rankmap::cli {

// A check of an option's value when it is parsed; the error names the
// range or the choices in words ("expected a whole number from 1 to
// 1000000 (ranks per node), got '0'").
struct Check {
  enum class Kind { number, whole_number, one_of };
  Kind kind = Kind::number;
  double lo = 0, hi = 0;                    // number
  std::int64_t whole_lo = 0, whole_hi = 0;  // whole_number
  std::string unit;                         // number, whole_number: "(ranks per node)"
  std::vector<std::string> names;           // one_of
};
// A number from `lo` to `hi`, said in words rather than 300 digits.
Check number_from(double lo, double hi, const std::string& unit);
// A whole number from `lo` to `hi`.
Check whole_number_from(std::int64_t lo, std::int64_t hi, const std::string& unit);
// One of these words.
Check one_of(std::vector<std::string> names);

// An error in the words of a command's own rule (one line, exit status 1,
// as for any usage error).
struct UsageError {
  std::string command, message;
};

// One option or flag of a command, as declared.
class Option {
 public:
  Option& required(bool yes = true);
  Option& show_default();  // its value before parsing shown in --help
  Option& check(const Check& check);
  Option& excludes(const Option& other);  // not both on one command line
  bool given() const;                     // after parsing: on the command line

 private:
  friend class Command;
  explicit Option(void* option) : option_(option) {}
  void* option_;  // the parser's own
};

// A command or sub-command: its options, flags and positional words, and
// what to do when it is the one chosen.
class Command {
 public:
  // NAMES: "--output,-o", or a positional's name ("graph"). The value is
  // written to `into` when parsed; T is one of the types command_line.cpp
  // instantiates (strings, whole numbers, doubles, their std::optional,
  // lists of strings).
  template <class T>
  Option option(const std::string& names, T& into, const std::string& help);
  Option flag(const std::string& names, bool& into, const std::string& help);
  Option find(const std::string& name);  // an option declared before ("--profile")
  Command subcommand(const std::string& name, const std::string& description);
  void require_subcommand();  // exactly one
  void footer(const std::string& text);
  // Runs when this command was chosen, after its options were parsed and
  // checked. It may throw UsageError.
  void on_chosen(std::function<void()> then);

 private:
  friend int run(int argc, char** argv);
  explicit Command(void* app) : app_(app) {}
  void* app_;  // the parser's own
};

}  // namespace rankmap::cli
