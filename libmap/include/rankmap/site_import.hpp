// Readers of the files where sites already describe their network, each
// into a SiteTree (site_tree.hpp) for `rankmap machine import`. Each
// refuses malformed input with an Error naming the source and line.
#pragma once

#include <string>
#include <string_view>

#include "rankmap/site_tree.hpp"

namespace rankmap {

// Slurm's topology.conf for topology/tree (topology.conf(5)): one switch a
// line, `SwitchName=` with `Switches=` or `Nodes=` (hostlists) and an
// optional `LinkSpeed=`; keys case-insensitive, `#` comments, a trailing
// `\` continues a line. Slurm gives LinkSpeed no unit: it becomes each
// cable's rate (down from the switch) as `link_speed_gbps` Gbit/s a unit,
// and is left out when that is 0.
SiteTree read_slurm_topology_conf(std::string_view text, const std::string& source, double link_speed_gbps = 0);

// `scontrol show topology`: the same records with `Level=`, where a switch
// of switches also lists every node below it under `Nodes=` (ignored).
SiteTree read_scontrol_topology(std::string_view text, const std::string& source, double link_speed_gbps = 0);

// SLURM_TOPOLOGY_ADDR of each node, one a line (as `srun -l
// --ntasks-per-node=1 printenv SLURM_TOPOLOGY_ADDR` writes them: an
// optional "N: " first): the switches from the top down to the node,
// separated by dots ("s3.s0.dev5"). `pattern` is SLURM_TOPOLOGY_ADDR_PATTERN
// ("switch.switch.node"); empty: every part but the last is a switch.
SiteTree read_slurm_topology_addr(std::string_view text, const std::string& source, const std::string& pattern = "");

}  // namespace rankmap
