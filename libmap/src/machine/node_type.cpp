// Reads a node's tree through hwloc. Only this file talks to hwloc; its -1 +
// errno convention becomes rankmap::Error here.
#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <map>
#include <memory>

#include "rankmap/error.hpp"
#include "rankmap/io.hpp"
#include "rankmap/machine.hpp"

namespace rankmap {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

// hwloc's synthetic trees must end with PUs; "core:6" means one PU a core.
std::string with_pu_level(const std::string& spec) {
  return spec.find("pu:") == std::string::npos && spec.find("PU:") == std::string::npos ? spec + " pu:1" : spec;
}

int logical_or_zero(hwloc_obj_t obj) { return obj ? static_cast<int>(obj->logical_index) : 0; }

// hwloc builds synthetic trees in time that grows fast with a level's width
// (8,192 packages took over a minute, 16,384 cores three): the widths are
// checked before hwloc sees them. No node has more PUs than this.
constexpr unsigned long long kMaxPus = 4096, kMaxLevelWidth = 1024;

void check_synthetic_size(const std::string& spec, const std::string& source, std::size_t line) {
  unsigned long long pus = 1;
  auto count = [&](unsigned long long width) {
    if (width > kMaxLevelWidth)
      throw Error(source, line,
                  "hwloc description '" + spec + "' has a level of " + std::to_string(width) +
                      " objects; rankmap takes up to " + std::to_string(kMaxLevelWidth) + " a level");
    pus *= std::max(width, 1ULL);
    if (pus > kMaxPus)
      throw Error(source, line,
                  "hwloc description '" + spec + "' has more than " + std::to_string(kMaxPus) +
                      " PUs; rankmap takes up to " + std::to_string(kMaxPus) + " a node");
  };
  // A level's width is the number after a "type:", where hwloc skips
  // spaces ("package: 9182core:1" is 9182 packages), or a bare number
  // starting a word ("2 4 8", which hwloc reads too); attributes in
  // parentheses hold no ':' width.
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const bool after_colon = spec[i] == ':';
    const bool word_start = (i == 0 || std::isspace(static_cast<unsigned char>(spec[i - 1]))) &&
                            std::isdigit(static_cast<unsigned char>(spec[i]));
    if (!after_colon && !word_start) continue;
    std::size_t at = after_colon ? i + 1 : i;
    if (after_colon)
      while (at < spec.size() && std::isspace(static_cast<unsigned char>(spec[at]))) ++at;
    unsigned long long width = 0;
    std::size_t digits = 0;
    for (; at < spec.size() && std::isdigit(static_cast<unsigned char>(spec[at])); ++at, ++digits)
      width = std::min(width * 10 + static_cast<unsigned long long>(spec[at] - '0'), 1ULL << 40);  // saturates
    if (digits == 0) continue;
    count(width);
    i = at - 1;  // past the number, which starts no other width
  }
}

}  // namespace

NodeType load_node_type(const std::string& hwloc_spec, const std::string& source, std::size_t line) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw Error(source, line, "hwloc_topology_init failed");
  Topology topo(raw);
  const bool is_xml = hwloc_spec.rfind("xml:", 0) == 0;
  if (is_xml) {
    // Read here, not by hwloc: read_text_file refuses a FIFO or a device,
    // on which hwloc's own open would block or read forever.
    const std::string path = hwloc_spec.substr(4);
    std::string xml;
    try {
      xml = read_text_file(path);
    } catch (const Error& e) {
      throw Error(source, line, "cannot read hwloc XML '" + path + "': " + e.message(), ErrorKind::io);
    }
    if (hwloc_topology_set_xmlbuffer(raw, xml.data(),
                                     static_cast<int>(std::min<std::size_t>(xml.size() + 1, INT_MAX))) != 0)
      throw Error(source, line, "cannot read hwloc XML '" + path + "'");
  } else if (check_synthetic_size(hwloc_spec, source, line),
             hwloc_topology_set_synthetic(raw, with_pu_level(hwloc_spec).c_str()) != 0) {
    throw Error(source, line,
                "bad hwloc synthetic description '" + hwloc_spec + "' (expected e.g. \"package:2 core:6 pu:2\")");
  }
  if (hwloc_topology_load(raw) != 0) throw Error(source, line, "hwloc could not load '" + hwloc_spec + "'");

  NodeType type;
  type.hwloc = hwloc_spec;
  type.packages = std::max(1, hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PACKAGE));
  const int npus = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PU);
  if (npus <= 0) throw Error(source, line, "hwloc description '" + hwloc_spec + "' has no PU");

  // A tree without Core objects gets one core per PU.
  std::map<int, int> cores_seen_in_package, pus_seen_in_package;
  std::map<std::pair<int, int>, int> core_in_package_of;  // (package, core) -> index
  for (int i = 0; i < npus; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(raw, HWLOC_OBJ_PU, static_cast<unsigned>(i));
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(raw, HWLOC_OBJ_CORE, pu);
    hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(raw, HWLOC_OBJ_PACKAGE, pu);
    Pu p;
    p.package = logical_or_zero(package);
    p.core = core ? static_cast<int>(core->logical_index) : i;
    p.os_index = pu->os_index;
    auto [it, fresh] = core_in_package_of.try_emplace({p.package, p.core}, 0);
    if (fresh) it->second = cores_seen_in_package[p.package]++;
    p.core_in_package = it->second;
    p.pu_in_package = pus_seen_in_package[p.package]++;
    if (p.core >= static_cast<int>(type.core_pus.size())) type.core_pus.resize(p.core + 1);
    type.core_pus[p.core].push_back(i);
    type.pus.push_back(p);
  }
  type.cores = static_cast<int>(type.core_pus.size());
  return type;
}

std::string this_node_xml() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw Error("hwloc_topology_init failed", ErrorKind::internal);
  Topology topo(raw);
  if (hwloc_topology_load(raw) != 0) throw Error("hwloc could not read this node", ErrorKind::io);
  char* buffer = nullptr;
  int length = 0;
  if (hwloc_topology_export_xmlbuffer(raw, &buffer, &length, 0) != 0 || !buffer)
    throw Error("hwloc could not export this node as XML", ErrorKind::internal);
  std::string xml(buffer, length > 0 ? static_cast<std::size_t>(length - 1) : 0);  // length counts the final NUL
  hwloc_free_xmlbuffer(raw, buffer);
  return xml;
}

}  // namespace rankmap
