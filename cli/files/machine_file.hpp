// What `machine new` and `machine import` share: the nodes' tree (hwloc
// string, XML, or this node), the latencies and link rate, and the
// writing of the file, read back before it lands.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "command_line.hpp"

namespace rankmap::cli {

struct MachineFileOptions {
  std::string output, name, hwloc, hwloc_xml;
  bool this_node = false, force = false;
  double t_hop_ns = 100, t_inj_ns = 500, t_ej_ns = 500;
  bool t_hop_given = false, t_inj_given = false, t_ej_given = false;  // a default is marked in the file
  std::optional<double> t_local_ns, link_gbps;
};

// The options above on `cmd`; call the returned function once the command
// line is parsed, to learn which latencies were given.
std::function<void()> add_machine_file_options(Command& cmd, MachineFileOptions& o);

// A TOML basic string (refuses text that is not UTF-8).
std::string toml_string(const std::string& s);

// The parts of a machine file a command makes.
struct MachineText {
  std::string command;     // "machine new", for messages
  std::string written_by;  // the first comment line(s)
  std::string network;     // [network] lines before the latencies: kind and shape
  std::string hosts;       // the [[nodes]] group's hostlist
  std::string after;       // tables after [network] and before [[nodes]] ([[switches]])
  std::string link_gbps_comment = "each link, each way";
  // The flag behind a line of the written text, for errors the reader
  // finds in it (beyond the shared ones).
  std::function<std::string(const std::string& key)> flag_of_key;
};

// Writes the machine file, reads it back and prints one line. 0 on success.
int write_machine_file(const MachineFileOptions& o, const MachineText& text);

}  // namespace rankmap::cli
