// The sub-commands. Each add_* registers one on `app`; when it is chosen on
// the command line, `action` is set to the code that runs it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace rankmap::cli {

using Action = std::function<int()>;

// The whole command line (argv[0] is "rankmap"): the exit status, every
// error reported on stderr in one line. No signal handler is installed
// here (main() does that).
int run(int argc, char** argv);

void add_eval(CLI::App& app, Action& action);
void add_map(CLI::App& app, Action& action);
void add_gen(CLI::App& app, Action& action);
void add_inspect(CLI::App& app, Action& action);
void add_profile(CLI::App& app, Action& action);
void add_convert(CLI::App& app, Action& action);
void add_model(CLI::App& app, Action& action);
void add_machine(CLI::App& app, Action& action);
void add_plot(CLI::App& app, Action& action);
void add_run(CLI::App& app, Action& action);
void add_reorder(CLI::App& app, Action& action);
void add_bind_task(CLI::App& app, Action& action);

}  // namespace rankmap::cli
