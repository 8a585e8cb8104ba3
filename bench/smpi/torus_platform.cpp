// A torus platform for SimGrid's SMPI with a per-node NIC latency and the
// machine's routing order, which neither the XML <cluster> nor SimGrid's
// torus zone can express. Loaded by smpirun -platform ./torus.so.
//
// Each torus vertex is a zone holding a node: one host per core (named
// "<node>-<core>", so that each rank has a host of its own), a router, and
// the node's NIC link between them (latency t_inj, passed up and down, so
// the ejection side counts it too; full duplex: a bandwidth each way),
// which all the node's hosts share. Directed torus links join the
// routers: one per vertex, dimension and direction, as rankmap's
// Network::link_id. They carry no latency (SimGrid would then share links
// unfairly, by route latency); a latency factor adds t_hop a hop, so a
// message of d hops costs t_inj + t_ej + d * t_hop, the T(d) of rankmap's
// gain model. Runs must not pass smpi/lat-factor, which SimGrid does not
// combine with a factor callback. Two ranks of one node talk over the
// node's memory link, of latency t_local (the machine file's t_local_ns;
// by default t_inj + t_ej, as the model's default), each message alone at
// the link rate. A rank's messages to itself (MPICH-style collectives copy
// buffers that way) take SimGrid's loopback, free as in a real MPI's
// memcpy.
//
// Routes follow the machine's routing order ("+X+Y+Z-X-Y-Z" by default,
// "+X+Y+Z+W-X-Y-Z-W" on Desmos): each dimension the shorter way round,
// half way round in `+`, the dimensions' hops taken in the order's steps.
// That is libmap's LinkLoads::add_route, so the simulator loads the links
// the model loads. (SimGrid's torus zone routes dimension by dimension,
// which on a 4x4x4 torus put a third more bytes on block's busiest link.)
//
// Parameters come from the environment (smpirun passes no arguments here):
//   RANKMAP_SMPI_DIMS    "4,4,4"     torus dimensions, X fastest
//   RANKMAP_SMPI_ROUTING "+X+Y+Z-X-Y-Z" the routing order (default: every
//                                    dimension in +, then every one in -)
//   RANKMAP_SMPI_NIC_NS  425         per-side NIC latency (t_inj = t_ej)
//   RANKMAP_SMPI_HOP_NS  129         per-hop latency
//   RANKMAP_SMPI_LOCAL_NS 2*NIC_NS   a message between ranks of one node
//   RANKMAP_SMPI_GBPS    100         link bandwidth, Gbit/s
//   RANKMAP_SMPI_TORUS_GBPS GBPS     the torus links' alone, and
//   RANKMAP_SMPI_HOPS_AT_MOST -      hops priced at most this many: with
//                                    both, peers_time.py's free network
//                                    (every node one hop from every other,
//                                    no link shared, the NICs as they are)
//   RANKMAP_SMPI_CORES   16          hosts (ranks) per node
//   RANKMAP_SMPI_HOST    "node%02lu" node names by vertex index (X fastest,
//                                    the order of rankmap's machine files)
//   RANKMAP_SMPI_HOSTS   "a01,a02,..." every node's name in that order, for
//                                    a machine whose names no one format
//                                    gives (Angara-K1's a[01-24], b[01-12]);
//                                    it overrides RANKMAP_SMPI_HOST
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "node_zone.hpp"

namespace sg4 = simgrid::s4u;

namespace {

std::string env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
double env_number(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atof(v) : fallback;
}

std::vector<int> dims() {
  std::vector<int> d;
  std::stringstream in(env("RANKMAP_SMPI_DIMS", "4,4,4"));
  for (std::string item; std::getline(in, item, ',');) d.push_back(std::stoi(item));
  return d;
}

struct Step {
  int dim;
  int sign;
};

// "+X+Y+Z-X-Y-Z": the routing order of rankmap's machine files.
std::vector<Step> routing(int ndims) {
  std::string text = env("RANKMAP_SMPI_ROUTING", "");
  if (text.empty()) {
    for (const char sign : {'+', '-'})
      for (int d = 0; d < ndims; ++d) text += std::string(1, sign) + "XYZWVU"[d];
  }
  std::vector<Step> steps;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
    const std::string axes = "XYZWVU";
    const std::size_t dim = axes.find(text[i + 1]);
    if ((text[i] != '+' && text[i] != '-') || dim == std::string::npos || static_cast<int>(dim) >= ndims)
      throw std::invalid_argument("RANKMAP_SMPI_ROUTING: expected steps like +X-Y, got '" + text + "'");
    steps.push_back({static_cast<int>(dim), text[i] == '+' ? +1 : -1});
  }
  if (steps.size() != 2 * static_cast<std::size_t>(ndims))
    throw std::invalid_argument("RANKMAP_SMPI_ROUTING: expected each dimension once with each sign, got '" + text +
                                "'");
  return steps;
}

std::string host_name(unsigned long id) {
  static const std::vector<std::string> listed = [] {
    std::vector<std::string> names;
    std::stringstream in(env("RANKMAP_SMPI_HOSTS", ""));
    for (std::string item; std::getline(in, item, ',');) names.push_back(item);
    return names;
  }();
  if (!listed.empty()) {
    if (id >= listed.size()) throw std::invalid_argument("RANKMAP_SMPI_HOSTS: no name for node " + std::to_string(id));
    return listed[id];
  }
  char name[128];
  std::snprintf(name, sizeof name, env("RANKMAP_SMPI_HOST", "node%02lu").c_str(), id);
  return name;
}

double bytes_per_second() { return env_number("RANKMAP_SMPI_GBPS", 100) * 1e9 / 8; }
double torus_bytes_per_second() {
  return env_number("RANKMAP_SMPI_TORUS_GBPS", env_number("RANKMAP_SMPI_GBPS", 100)) * 1e9 / 8;
}

// One torus vertex: its hosts -- NIC link -- router (node_zone.hpp). The
// NIC is full duplex, like the hardware and the gain model's phase terms:
// the node's injection (UP) and ejection (DOWN) each carry the bandwidth.
rankmap_smpi::NodeZone make_node(const sg4::NetZone* torus, unsigned long id) {
  const std::string name = host_name(id);
  const double nic_ns = env_number("RANKMAP_SMPI_NIC_NS", 425);
  return rankmap_smpi::make_node_zone(
      torus, name, static_cast<int>(env_number("RANKMAP_SMPI_CORES", 16)),
      env_number("RANKMAP_SMPI_LOCAL_NS", 2 * nic_ns), bytes_per_second(), [&](sg4::NetZone* zone) {
        const sg4::Link* nic =
            zone->create_split_duplex_link(name + "-nic", bytes_per_second())->set_latency(nic_ns * 1e-9)->seal();
        return std::pair{sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::UP),
                         sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::DOWN)};
      });
}

}  // namespace

extern "C" void load_platform(const sg4::Engine& /*engine*/);
void load_platform(const sg4::Engine& /*engine*/) {
  const std::vector<int> n = dims();
  const int nd = static_cast<int>(n.size());
  const std::vector<Step> order = routing(nd);
  std::vector<unsigned long> stride(n.size());
  unsigned long count = 1;
  for (int d = 0; d < nd; ++d) {
    stride[d] = count;
    count *= static_cast<unsigned long>(n[d]);
  }
  auto* torus = sg4::create_full_zone("torus");
  std::vector<rankmap_smpi::NodeZone> nodes;
  for (unsigned long id = 0; id < count; ++id) nodes.push_back(make_node(torus, id));
  // Directed links, indexed as Network::link_id: (vertex * dims + dim) * 2 + (sign < 0).
  std::vector<const sg4::Link*> links;
  // Torus links carry no latency of their own: SimGrid shares a link among
  // flows in inverse proportion to their routes' latency (a TCP effect;
  // network_cm02.cpp, whatever network/weight-S), while an HPC fabric's
  // credit-based flow control shares fairly. With every route's latency
  // 2 * t_nic the shares are fair, and a latency factor adds the hops back.
  for (unsigned long id = 0; id < count; ++id)
    for (int d = 0; d < nd; ++d)
      for (const char* sign : {"+", "-"})
        links.push_back(
            torus->create_link("torus-" + std::to_string(id) + "-" + "XYZWVU"[d] + sign, torus_bytes_per_second())
                ->seal());
  const double nic_ns = env_number("RANKMAP_SMPI_NIC_NS", 425), hop_ns = env_number("RANKMAP_SMPI_HOP_NS", 129);
  const double hops_at_most = env_number("RANKMAP_SMPI_HOPS_AT_MOST", 1e9);
  torus->get_network_model()->set_lat_factor_cb(
      [nic_ns, hop_ns, hops_at_most](double, const sg4::Host*, const sg4::Host*, const std::vector<sg4::Link*>& route,
                                     const std::unordered_set<sg4::NetZone*>&) {
        const auto hops = std::min<double>(
            hops_at_most, static_cast<double>(std::count_if(route.begin(), route.end(), [](const sg4::Link* l) {
              return l->get_name().rfind("torus-", 0) == 0;
            })));
        return hops == 0 ? 1.0 : (2 * nic_ns + hop_ns * static_cast<double>(hops)) / (2 * nic_ns);
      });
  auto coord = [&](unsigned long id, int d) { return static_cast<int>((id / stride[d]) % n[d]); };
  for (unsigned long a = 0; a < count; ++a) {
    for (unsigned long b = 0; b < count; ++b) {
      if (a == b) continue;
      std::vector<int> delta(n.size());
      for (int d = 0; d < nd; ++d) {  // the shorter way round; half way round goes `+`
        int dlt = coord(b, d) - coord(a, d);
        if (dlt < 0) dlt += n[d];
        if (n[d] - dlt < dlt) dlt -= n[d];
        delta[d] = dlt;
      }
      std::vector<sg4::LinkInRoute> route;
      unsigned long at = a;
      for (const Step& step : order) {
        const int d = step.dim;
        if (delta[d] == 0 || (delta[d] > 0) != (step.sign > 0)) continue;
        for (int k = std::abs(delta[d]); k > 0; --k) {
          route.emplace_back(links[(at * nd + d) * 2 + (step.sign < 0 ? 1 : 0)]);
          const int next = (coord(at, d) + step.sign + n[d]) % n[d];
          at = at - static_cast<unsigned long>(coord(at, d)) * stride[d] + static_cast<unsigned long>(next) * stride[d];
        }
      }
      torus->add_route(nodes[a].zone, nodes[b].zone, nodes[a].router, nodes[b].router, route, false);
    }
  }
  torus->seal();
}
