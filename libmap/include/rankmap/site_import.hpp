// Readers of the files where sites already describe their network, each
// into a SiteTree (site_tree.hpp) for `rankmap machine import`. Each
// refuses malformed input with an Error naming the source and line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rankmap/site_tree.hpp"

namespace rankmap {

// Node and switch names a file may make in all (the largest machines have
// about 160,000 nodes): a few bytes of hostlist can name millions, so each
// reader stops there, before anything is built.
inline constexpr std::size_t kMaxSiteNames = std::size_t{1} << 20;

// Slurm's topology.conf for topology/tree (topology.conf(5)): one switch a
// line, `SwitchName=` with `Switches=` or `Nodes=` (hostlists) and an
// optional `LinkSpeed=`; keys case-insensitive, `#` comments, a trailing
// `\` continues a line. Slurm gives LinkSpeed no unit: it becomes each
// cable's rate (down from the switch) as `link_speed_gbps` Gbit/s a unit,
// and is left out when that is 0.
// topology/block's lines (Slurm 23.11+) in the same file, `BlockName=` with
// `Nodes=` and `BlockSizes=`, make a tree by slurm_blocks_tree.
SiteTree read_slurm_topology_conf(std::string_view text, const std::string& source, double link_speed_gbps = 0);

// Slurm's blocks as a tree, as topology/block aggregates them: a switch
// per block; per aggregation level (BlockSizes over the base size, each a
// power of two; without BlockSizes 2, 4, 8, 16 blocks) a switch over each
// run of consecutive blocks, up to the first level that takes them all;
// a top switch over what is left. sizes_line names BlockSizes in errors.
struct SlurmBlock {
  std::string name;
  std::vector<std::string> nodes;
  std::size_t line = 0;
};
SiteTree slurm_blocks_tree(const std::vector<SlurmBlock>& blocks, const std::vector<std::size_t>& sizes,
                           std::size_t sizes_line, const std::string& source);

// Slurm's topology.yaml (Slurm 25.05+): the topology named `name`, else
// the first with cluster_default: true, else the only one; a tree
// (switches: switch, children, nodes) or a block (blocks, block_sizes, as
// slurm_blocks_tree). A flat one is refused: it has no shape.
SiteTree read_slurm_topology_yaml(std::string_view text, const std::string& source, const std::string& name = "");

// `scontrol show topology`: the same records with `Level=`, where a switch
// of switches also lists every node below it under `Nodes=` (ignored).
SiteTree read_scontrol_topology(std::string_view text, const std::string& source, double link_speed_gbps = 0);

// SLURM_TOPOLOGY_ADDR of each node, one a line (as `srun -l
// --ntasks-per-node=1 printenv SLURM_TOPOLOGY_ADDR` writes them: an
// optional "N: " first): the switches from the top down to the node,
// separated by dots ("s3.s0.dev5"). `pattern` is SLURM_TOPOLOGY_ADDR_PATTERN
// ("switch.switch.node"); empty: every part but the last is a switch.
SiteTree read_slurm_topology_addr(std::string_view text, const std::string& source, const std::string& pattern = "");

// ibnetdiscover's default output (infiniband-diags, "TOPOLOGY FILE
// FORMAT"): Switch and Ca records and their port lines. Switches with
// hosts on them are the leaves, each other switch one level above its
// nearest leaf; every cable between switches is a link of the rate its
// width and speed give (4xEDR: 100 Gbit/s), several between two switches
// parallel links; a host's cables to its switch one link of their sum.
// Hosts are named by the first word of their adapters' descriptions,
// switches by their descriptions, where each is unique (else by the ids
// ibnetdiscover prints; --node-name-map gives it better ones). A cable
// between two switches of one level, or a router, is refused.
SiteTree read_ibnetdiscover(std::string_view text, const std::string& source);

}  // namespace rankmap
