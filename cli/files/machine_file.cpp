// The machine file `machine new` and `machine import` write (machine_file.hpp).
#include "files/machine_file.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

#include "common.hpp"
#include "rankmap/error.hpp"
#include "rankmap/io.hpp"
#include "rankmap/machine.hpp"
#include "standard_output.hpp"

namespace rankmap::cli {
namespace {

constexpr const char* kXmlSuffix = ".node.xml";

// Whether `s` is UTF-8, which is all TOML holds.
bool is_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    i += n;
  }
  return true;
}

// The flag behind line `line` of the text a command wrote (an error in
// the file is an error in the flags it was written from): by the key the
// line sets; the [network] table stands for the network's shape.
std::string flag_of_line(const std::string& text, std::size_t line, const MachineText& parts) {
  std::istringstream in(text);
  std::string row;
  for (std::size_t n = 1; n <= line && std::getline(in, row); ++n) {
  }
  if (line == 0 || !in) return parts.command;
  const std::string key = row.substr(0, row.find_first_of(" =["));
  const std::pair<const char*, const char*> flags[] = {
      {"hosts", "--hosts"},         {"hwloc", "--hwloc"},           {"hwloc_xml", "--hwloc-xml"},
      {"link_gbps", "--link-gbps"}, {"t_hop_ns", "--t-hop-ns"},     {"t_inj_ns", "--t-inj-ns"},
      {"t_ej_ns", "--t-ej-ns"},     {"t_local_ns", "--t-local-ns"}, {"name", "--name"}};
  for (const auto& [k, flag] : flags)
    if (key == k) return flag;
  const std::string own =
      parts.flag_of_key ? parts.flag_of_key(row.rfind("[network]", 0) == 0 ? "[network]" : key) : "";
  return own.empty() ? parts.command : own;
}

}  // namespace

std::string toml_string(const std::string& s) {
  if (!is_utf8(s)) throw Error("machine", 0, "'" + s + "' is not UTF-8, and a machine file (TOML) holds UTF-8 only");
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      q += '\\', q += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      q += escaped;
    } else {
      q += c;
    }
  }
  return q + "\"";
}

std::function<void()> add_machine_file_options(Command& cmd, MachineFileOptions& o) {
  cmd.option("--output,-o", o.output, "Machine file to write (.toml)").required();
  cmd.option("--hwloc", o.hwloc, "The nodes' tree as an hwloc synthetic string: 'package:2 core:8 pu:2'");
  cmd.option("--hwloc-xml", o.hwloc_xml, "The nodes' tree from an hwloc XML (lstopo node.xml)");
  cmd.flag("--this-node", o.this_node, "The nodes are like this one: read it through hwloc (kept as XML)");
  cmd.flag("--force", o.force, "Replace the output when it exists");
  cmd.option("--name", o.name, "The machine's name (default: the file's)");
  // The ranges a machine file takes (machine.hpp, docs/formats.md).
  const Check latency = number_from(0, kMaxLatencyNs, "ns");
  Option hop = cmd.option("--t-hop-ns", o.t_hop_ns, "Per hop").show_default().check(latency);
  Option inj = cmd.option("--t-inj-ns", o.t_inj_ns, "Injection").show_default().check(latency);
  Option ej = cmd.option("--t-ej-ns", o.t_ej_ns, "Ejection").show_default().check(latency);
  cmd.option("--t-local-ns", o.t_local_ns, "A message inside a node").check(latency);
  cmd.option("--link-gbps", o.link_gbps, "Each link's rate, each way").check(number_from(kMinGbps, kMaxGbps, "Gbit/s"));
  return [&o, hop, inj, ej] { o.t_hop_given = hop.given(), o.t_inj_given = inj.given(), o.t_ej_given = ej.given(); };
}

int write_machine_file(const MachineFileOptions& o, const MachineText& parts) {
  const int trees = !o.hwloc.empty() + !o.hwloc_xml.empty() + o.this_node;
  if (trees != 1) throw Error(parts.command, 0, "give the nodes' tree once: --hwloc, --hwloc-xml or --this-node");
  StandardOutput standard;
  const std::filesystem::path out = std::filesystem::absolute(standard.path_for(o.output, "machine.toml", "output"));
  const bool to_pipe = out != std::filesystem::absolute(o.output);
  if (to_pipe && o.this_node)
    throw Error(ErrorKind::argument, Parameter{"output"},
                "--this-node writes an hwloc XML file beside the machine file; name a file, not standard output");
  // Where paths in the file are relative to: its folder, or for standard
  // output the folder the command runs in.
  const std::filesystem::path folder = to_pipe ? std::filesystem::current_path() : out.parent_path();

  std::ostringstream t;
  t << parts.written_by << "name = " << toml_string(o.name.empty() ? out.stem().string() : o.name) << "\n\n[network]\n"
    << parts.network;
  // One comment a line: what the value is, and whether it is only a default.
  auto time = [&](const char* key, double v, bool given, const char* what) {
    t << key << " = " << v << "   # " << what << (given ? "" : "; a default: measure it") << "\n";
  };
  time("t_hop_ns", o.t_hop_ns, o.t_hop_given, "a hop (router and link)");
  time("t_inj_ns", o.t_inj_ns, o.t_inj_given, "injection, sender's NIC");
  time("t_ej_ns", o.t_ej_ns, o.t_ej_given, "ejection, receiver's NIC");
  if (o.t_local_ns) t << "t_local_ns = " << *o.t_local_ns << "   # a message inside a node\n";
  if (o.link_gbps)
    t << "link_gbps = " << *o.link_gbps << "   # " << parts.link_gbps_comment << "\n";
  else
    t << "# Each link's rate, each way: give it for the flow model's bandwidth terms.\n# link_gbps = 100\n";
  t << parts.after << "\n[[nodes]]\nhosts = " << toml_string(parts.hosts) << "\n";

  std::vector<FilePart> files;
  std::string xml_name;
  if (!o.hwloc.empty()) {
    load_node_type(o.hwloc, "--hwloc", 0);  // refuses a bad string before anything is written
    t << "hwloc = " << toml_string(o.hwloc) << "\n";
  } else if (!o.hwloc_xml.empty()) {
    const std::filesystem::path xml = std::filesystem::absolute(o.hwloc_xml);
    note_input(xml);
    load_node_type("xml:" + xml.string(), o.hwloc_xml, 0);
    t << "hwloc_xml = " << toml_string(std::filesystem::relative(xml, folder).string())
      << "   # relative to this file\n";
  } else {
    xml_name = out.filename().string() + kXmlSuffix;
    files.push_back({kXmlSuffix, this_node_xml()});
    t << "hwloc_xml = " << toml_string(xml_name) << "   # this node, read by hwloc (--this-node)\n";
  }
  const std::string text = t.str();
  files.insert(files.begin(), {"", text});
  check_outputs({out, xml_name.empty() ? std::filesystem::path() : out.parent_path() / xml_name});
  // A machine file is written by hand as often as by this command: it is
  // replaced only when asked to (after the check that it is no input).
  std::error_code exists_error;
  if (!to_pipe && !o.force && std::filesystem::exists(std::filesystem::symlink_status(out, exists_error)))
    throw Error(o.output, 0, "exists; rankmap " + parts.command + " replaces it only with --force", ErrorKind::io);
  // The file must read back (once: 10^7 hosts take seconds); the XML
  // companion under its temporary name. What the reader refuses, the flags
  // asked for: its error names the flag, not the hidden temporary file.
  Machine m;
  write_files_atomically(out, files, [&](const std::filesystem::path& temp) {
    std::string probe = text;
    if (!xml_name.empty()) {
      const std::string temp_xml = temp.filename().string() + kXmlSuffix;
      probe.replace(probe.find(toml_string(xml_name)), toml_string(xml_name).size(), toml_string(temp_xml));
    }
    try {
      m = parse_machine(probe, temp.string());
    } catch (const Error& e) {
      throw Error(flag_of_line(probe, e.line(), parts), 0, e.message(), e.kind());
    }
  });
  standard.flush();
  standard.lines() << "wrote " << printable(to_pipe ? std::string("standard output") : o.output)
                   << (xml_name.empty() ? "" : " and " + printable(xml_name)) << ": " << m.network.kind_name() << ", "
                   << m.nodes.size() << " nodes of " << m.node_types[0].cores << " cores\n";
  return 0;
}

}  // namespace rankmap::cli
