// A torus platform for SimGrid's SMPI with a per-node NIC latency, which
// the XML <cluster> cannot express. Loaded by smpirun -platform ./torus.so.
//
// Each torus vertex is a star zone holding one host (a node) behind a
// router; the host's NIC link (latency t_inj, passed up and down, so the
// ejection side counts it too; full duplex: a bandwidth each way) joins it
// to the router, and torus links of
// latency t_hop join the routers. A message of d hops costs
// t_inj + t_ej + d * t_hop, the T(d) of rankmap's gain model. Ranks on one
// node talk over the host's loopback link, of latency t_local (the machine
// file's t_local_ns; by default t_inj + t_ej, as the model's default).
//
// Parameters come from the environment (smpirun passes no arguments here):
//   RANKMAP_SMPI_DIMS   "4,4,4"      torus dimensions, X fastest
//   RANKMAP_SMPI_NIC_NS  425         per-side NIC latency (t_inj = t_ej)
//   RANKMAP_SMPI_HOP_NS  129         per-hop latency
//   RANKMAP_SMPI_LOCAL_NS 2*NIC_NS   a message between ranks of one node
//   RANKMAP_SMPI_GBPS    100         link bandwidth, Gbit/s
//   RANKMAP_SMPI_CORES   16          cores per node
//   RANKMAP_SMPI_HOST    "node%02lu" host names by vertex index (X fastest,
//                                    the order of rankmap's machine files)
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

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

std::vector<unsigned long> dims() {
  std::vector<unsigned long> d;
  std::stringstream in(env("RANKMAP_SMPI_DIMS", "4,4,4"));
  for (std::string item; std::getline(in, item, ',');) d.push_back(std::stoul(item));
  return d;
}

std::string host_name(unsigned long id) {
  char name[128];
  std::snprintf(name, sizeof name, env("RANKMAP_SMPI_HOST", "node%02lu").c_str(), id);
  return name;
}

double bytes_per_second() { return env_number("RANKMAP_SMPI_GBPS", 100) * 1e9 / 8; }

// One torus vertex: host -- NIC link -- router (the zone's gateway).
std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*> make_node(
    const sg4::NetZone* torus, const std::vector<unsigned long>& /*coord*/, unsigned long id) {
  const std::string name = host_name(id);
  auto* zone = sg4::create_star_zone(name + "-zone");
  zone->set_parent(torus);
  const sg4::Host* host = zone->create_host(name, "1Gf")->set_core_count(static_cast<int>(env_number("RANKMAP_SMPI_CORES", 16)))->seal();
  const double nic_ns = env_number("RANKMAP_SMPI_NIC_NS", 425);
  // Full duplex, like the hardware and the gain model's phase terms: the
  // node's injection (UP) and ejection (DOWN) each carry the bandwidth.
  const sg4::Link* nic = zone->create_split_duplex_link(name + "-nic", bytes_per_second())
                             ->set_latency(nic_ns * 1e-9)
                             ->seal();
  const sg4::Link* loopback = zone->create_link(name + "-loopback", bytes_per_second())
                                  ->set_latency(env_number("RANKMAP_SMPI_LOCAL_NS", 2 * nic_ns) * 1e-9)
                                  ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                                  ->seal();
  auto* router = zone->create_router(name + "-router");
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                  {sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::UP)}, true);
  zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(loopback)}, false);
  zone->seal();
  return {zone->get_netpoint(), router};
}

}  // namespace

extern "C" void load_platform(const sg4::Engine& /*engine*/);
void load_platform(const sg4::Engine& /*engine*/) {
  sg4::create_torus_zone("torus", nullptr, dims(), {make_node, {}, {}}, bytes_per_second(),
                         env_number("RANKMAP_SMPI_HOP_NS", 129) * 1e-9, sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
}
