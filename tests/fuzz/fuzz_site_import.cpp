// The readers of sites' network descriptions (site_import.hpp), one
// harness per format (RANKMAP_FUZZ_FORMAT): Slurm's topology.conf (tree
// and block), topology.yaml, `scontrol show topology`, SLURM_TOPOLOGY_ADDR
// lines, ibnetdiscover's output. What reads is then built into a network
// (build_site_tree), which must refuse with an Error or give a tree whose
// every node's route ends on its own links.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "rankmap/metrics.hpp"
#include "rankmap/site_import.hpp"

namespace {

rankmap::SiteTree read(std::string_view text) {
  const std::string format = RANKMAP_FUZZ_FORMAT;
  if (format == "slurm") return rankmap::read_slurm_topology_conf(text, "topology.conf", 25);
  if (format == "slurm-yaml") return rankmap::read_slurm_topology_yaml(text, "topology.yaml");
  if (format == "scontrol") return rankmap::read_scontrol_topology(text, "topo.txt", 25);
  if (format == "slurm-addr") return rankmap::read_slurm_topology_addr(text, "addrs.txt");
  return rankmap::read_ibnetdiscover(text, "fabric.txt");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_only_errors([&] {
    const rankmap::SiteTree tree = read(fuzz::text(data, size));
    const rankmap::SiteNetwork site = rankmap::build_site_tree(tree, {});
    const rankmap::Network& net = site.network;
    if (net.num_links() > (std::size_t{1} << 20) || site.hosts.size() < 2) return;
    // A route from the first node to the last leaves by the first's cable
    // and arrives by the last's, over links that exist.
    const std::size_t a = site.coord_index.front(), b = site.coord_index.back();
    std::vector<std::size_t> route;
    rankmap::for_each_link(net, a, b, [&](std::size_t link) { route.push_back(link); });
    bool exists = true;
    for (std::size_t link : route) exists = exists && link < net.num_links() && net.has_link(link);
    if (route.empty() || !exists || route.front() != net.tree_link_id(0, a, 0, false) ||
        route.back() != net.tree_link_id(0, b, 0, true)) {
      std::fprintf(stderr, "fuzz: a site's tree routes position %zu to %zu over a link it does not have\n", a, b);
      std::abort();
    }
  });
  return 0;
}
