// `rankmap machine new` and its arguments, through the CLI itself: the
// input is the argument list, one argument a line, after `machine new -o
// DIR/m.toml`. Whatever the arguments, the command ends with a status:
// 0 with a machine file that reads back, or 1 with one line on stderr and
// no file. Arguments that would write elsewhere (another -o, --output)
// are skipped, and so are host lists past 100,000 hosts (10^7 take about
// ten seconds, past the fuzzer's time limit, and are measured in bench/).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "fuzz_input.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/machine.hpp"

namespace {

bool writes_elsewhere(const std::string& arg) {
  if (arg.rfind("--o", 0) == 0) return true;  // --output and any spelling CLI11 might take for it
  // -o, -oFILE, or a cluster of short flags holding o.
  return arg.size() > 1 && arg[0] == '-' && arg[1] != '-' && arg.find('o') != std::string::npos;
}

bool too_many_hosts(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool flag = args[i] == "--hosts" && i + 1 < args.size();
    const bool joined = args[i].rfind("--hosts=", 0) == 0;
    if (!flag && !joined) continue;
    const std::string list = joined ? args[i].substr(8) : args[i + 1];
    try {
      if (rankmap::expand_hostlist(list, "--hosts").size() > 100'000) return true;
    } catch (const rankmap::Error&) {
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args;
  std::istringstream in{std::string(fuzz::text(data, size))};
  for (std::string line; std::getline(in, line) && args.size() < 64;) {
    if (writes_elsewhere(line)) return 0;
    args.push_back(line);
  }
  if (too_many_hosts(args)) return 0;
  static const std::filesystem::path dir = fuzz::write_file("", "machine-new").string() + ".d";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "m.toml").string();
  std::vector<std::string> words{"rankmap", "machine", "new", "-o", out};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  std::ostringstream quiet;  // "wrote ..." and --help
  std::streambuf* stdout_buffer = std::cout.rdbuf(quiet.rdbuf());
  const int status = rankmap::cli::run(static_cast<int>(words.size()), argv.data());
  std::cout.rdbuf(stdout_buffer);

  if (status == 0 && std::filesystem::exists(out)) {
    (void)rankmap::load_machine(out);  // throws, and so aborts below, if it does not read back
  } else if (status != 0 && std::filesystem::exists(out)) {
    std::fprintf(stderr, "fuzz: machine new failed (status %d) and left %s\n", status, out.c_str());
    std::abort();
  }
  std::filesystem::remove_all(dir);
  return 0;
}
