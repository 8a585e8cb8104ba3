// A tree network as a site describes it: switches, the nodes and switches
// below each, and the cables between them. Slurm's topology.conf, its
// block and YAML forms, `scontrol show topology` and InfiniBand's
// `ibnetdiscover` all read into a SiteTree (site_import.hpp); a machine
// file of kind "tree" holds one ([[switches]], docs/formats.md), and
// build_site_tree makes it a Network that scores, routes and maps like any
// tree (machine.hpp, TreeWiring).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "rankmap/machine.hpp"

namespace rankmap {

struct SiteSwitch {
  std::string name;
  std::vector<std::string> nodes;     // in port order
  std::vector<std::string> switches;  // its children, in port order
  int links = 1;                      // cables to each child switch (a node has one)
  double gbps = 0;                    // each cable down, each way; 0: the level's rate, else link_gbps
  std::size_t line = 0;               // where it was described, for errors
};

// Cables between two switches (or a switch and a node) given one by one:
// for a pair named here, these are all its cables, whatever the upper
// switch's `links` says. Several entries of one pair add up (cables of
// different rates).
struct SiteCable {
  std::string upper, lower;
  int links = 1;
  double gbps = 0;
  std::size_t line = 0;
};

struct SiteTree {
  std::string source;  // the file, for errors
  std::vector<SiteSwitch> switches;
  std::vector<SiteCable> cables;
};

// The network and its nodes in port order (leaves left to right), each
// with its coordinate index. A regular tree gives exactly the network
// `levels` would (the site's names kept for reports); an irregular one a
// skeleton with TreeWiring. level_gbps (lowest first, may be shorter than
// the levels, 0 = not given) is each level's rate for cables without
// their own. Errors name the source and line: a switch named twice, a
// child no switch defines, a node under two switches or under none of
// the top's, a switch loop, children on different levels, switches that
// share some children where two of those meet under none of them (how far
// apart they are is not the skeleton's 2 x level), more than 6 levels.
// Switches that share children are one switch of the skeleton.
struct SiteNetwork {
  Network network;
  std::vector<std::string> hosts;
  std::vector<std::size_t> coord_index;
};
SiteNetwork build_site_tree(const SiteTree& tree, const std::vector<double>& level_gbps);

}  // namespace rankmap
