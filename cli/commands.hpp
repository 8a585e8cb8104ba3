// The sub-commands. Each add_* declares one on `app` (command_line.hpp);
// when it is chosen on the command line, `action` is set to the code that
// runs it.
#pragma once

#include <functional>
#include <memory>  // each add_* keeps its options in a shared_ptr

#include "command_line.hpp"

namespace rankmap::cli {

using Action = std::function<int()>;

// The whole command line (argv[0] is "rankmap"): the exit status, every
// error reported on stderr in one line. No signal handler is installed
// here (main() does that).
int run(int argc, char** argv);

void add_eval(Command& app, Action& action);
void add_map(Command& app, Action& action);
void add_gen(Command& app, Action& action);
void add_inspect(Command& app, Action& action);
void add_profile(Command& app, Action& action);
void add_convert(Command& app, Action& action);
void add_model(Command& app, Action& action);
void add_machine(Command& app, Action& action);
void add_machine_import(Command& machine, Action& action);  // cmd_machine_import.cpp
void add_plot(Command& app, Action& action);
void add_run(Command& app, Action& action);
void add_reorder(Command& app, Action& action);
void add_bind_task(Command& app, Action& action);

}  // namespace rankmap::cli
