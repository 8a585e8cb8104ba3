// InfiniBand's cabling as ibnetdiscover prints it (its default text,
// infiniband-diags' "TOPOLOGY FILE FORMAT"): a record per node, `Switch
// N "S-guid" # "description" ...` or `Ca N "H-guid" # "description"`,
// then a line per connected port, `[port](portguid) "peer-guid"[peer
// port](peer portguid) # ... WIDTHxSPEED`. Switches with hosts' adapters
// (CAs) on them are the leaves; each other switch's level is one more
// than its nearest leaf's. Each cable between switches is a link of its
// own rate; a host's cables to its switch are one link of their sum.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <set>

#include "core/text_scanner.hpp"
#include "rankmap/error.hpp"
#include "rankmap/site_import.hpp"

namespace rankmap {
namespace {

// Data rate of one lane in Gbit/s, by the speed's name (8b/10b coding up
// to QDR, 64b/66b from FDR).
double lane_gbps(std::string_view speed) {
  const std::pair<std::string_view, double> speeds[] = {{"SDR", 2},    {"DDR", 4},     {"QDR", 8},
                                                        {"FDR10", 10}, {"FDR", 13.64}, {"EDR", 25},
                                                        {"HDR", 50},   {"NDR", 100},   {"XDR", 200}};
  for (const auto& [name, rate] : speeds)
    if (speed == name) return rate;
  return 0;
}

struct Port {
  std::string peer;  // "S-..." or "H-..."
  int port = 0, peer_port = 0;
  double gbps = 0;
  std::size_t line = 0;
};

struct Device {
  bool is_switch = false;
  std::string id, description;
  std::size_t line = 0;
  std::vector<Port> ports;
};

using detail::trim_space;

class Reader {
 public:
  Reader(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

  SiteTree read() {
    parse();
    return tree();
  }

 private:
  [[noreturn]] void fail(std::size_t line, const std::string& why) const { throw Error(source_, line, why); }

  // A quoted string at the start of `s`, taken off it.
  std::string quoted(std::string_view& s, std::size_t line, const std::string& what) const {
    s = trim_space(s);
    const std::size_t end = s.size() > 1 && s.front() == '"' ? s.find('"', 1) : std::string_view::npos;
    if (end == std::string_view::npos) fail(line, "expected " + what + " in quotes");
    std::string out(s.substr(1, end - 1));
    s.remove_prefix(end + 1);
    return out;
  }

  // "[12]" at the start of `s`, taken off it, with a "(guid)" after it.
  int bracketed(std::string_view& s, std::size_t line) const {
    const std::size_t end = s.find(']');
    int v = 0;
    const auto [at, ec] = s.empty() || s.front() != '[' || end == std::string_view::npos
                              ? std::from_chars_result{nullptr, std::errc::invalid_argument}
                              : std::from_chars(s.data() + 1, s.data() + end, v);
    if (ec != std::errc() || at != s.data() + end || v < 0) fail(line, "expected a port number in brackets, e.g. [12]");
    s.remove_prefix(end + 1);
    if (!s.empty() && s.front() == '(') {
      const std::size_t close = s.find(')');
      if (close == std::string_view::npos) fail(line, "a port GUID's '(' is not closed");
      s.remove_prefix(close + 1);
    }
    return v;
  }

  void parse() {
    detail::LineScanner lines(text_, source_);
    std::string_view raw;
    constexpr std::size_t kNoRecord = ~std::size_t{0};
    std::size_t current = kNoRecord;  // index in devices_
    while (lines.next(raw)) {
      std::string_view line = trim_space(raw);
      const std::size_t n = lines.line();
      if (line.empty() || line.front() == '#' || line.find('=') != std::string_view::npos) {
        if (line.empty()) current = kNoRecord;  // a blank line ends a record
        continue;
      }
      if (line.starts_with("Switch") || line.starts_with("Ca") || line.starts_with("Rt")) {
        if (line.starts_with("Rt")) fail(n, "a router (Rt): rankmap's trees hold switches and hosts only");
        Device d;
        d.is_switch = line.starts_with("Switch");
        d.line = n;
        line.remove_prefix(d.is_switch ? 6 : 2);
        line = trim_space(line);
        while (!line.empty() && std::isdigit(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
        d.id = quoted(line, n, "the node's id (\"S-...\" or \"H-...\")");
        const std::size_t hash = line.find('#');
        if (hash != std::string_view::npos) {
          std::string_view comment = line.substr(hash + 1);
          if (!trim_space(comment).empty() && trim_space(comment).front() == '"')
            d.description = quoted(comment, n, "a description");
        }
        auto [it, fresh] = index_.try_emplace(d.id, devices_.size());
        if (!fresh)
          fail(n,
               "'" + d.id + "' is described twice (first on line " + std::to_string(devices_[it->second].line) + ")");
        current = devices_.size();
        devices_.push_back(std::move(d));
        continue;
      }
      if (line.front() == '[') {
        if (current == kNoRecord) fail(n, "a port line outside a Switch or Ca record");
        Port p;
        p.line = n;
        p.port = bracketed(line, n);
        p.peer = quoted(line, n, "the peer's id");
        p.peer_port = bracketed(line, n);
        // The width and speed end the line: "4xEDR".
        const std::size_t last = line.find_last_of(" \t");
        const std::string_view rate = last == std::string_view::npos ? line : line.substr(last + 1);
        const std::size_t x = rate.find('x');
        int width = 0;
        const auto [at, ec] = std::from_chars(rate.data(), rate.data() + (x == std::string_view::npos ? 0 : x), width);
        p.gbps = x == std::string_view::npos || ec != std::errc() || at != rate.data() + x
                     ? 0
                     : width * lane_gbps(rate.substr(x + 1));
        if (p.gbps <= 0)
          fail(n,
               "expected the link's width and speed at the end of the line (1x, 4x, 8x or 12x, and SDR, DDR, QDR, "
               "FDR10, FDR, EDR, HDR, NDR or XDR: 4xEDR), got '" +
                   std::string(rate) + "'");
        devices_[current].ports.push_back(std::move(p));
        continue;
      }
      if (line.starts_with("Non-Chassis") || line.starts_with("Chassis")) continue;  // grouping (-g)
      fail(n, "expected a Switch or Ca record, a port line ([port] \"peer\"[port]) or key=value, got '" +
                  std::string(line.substr(0, 40)) + "'");
    }
    if (devices_.empty()) fail(0, "no Switch or Ca record");
  }

  // Names: a host by the first word of its adapter's description (as
  // Slurm's topology tools do), a switch by its description, where each is
  // unique; else by the ids ibnetdiscover gives. Hostlist syntax stays out.
  void name_devices() {
    for (bool switches : {true, false}) {
      std::set<std::string> seen;
      bool unique = true;
      for (const Device& d : devices_) {
        if (d.is_switch != switches) continue;
        std::string name = switches ? d.description : d.description.substr(0, d.description.find(' '));
        unique = unique && !name.empty() && seen.insert(name).second;
      }
      for (Device& d : devices_) {
        if (d.is_switch != switches) continue;
        std::string name =
            unique ? (switches ? d.description : d.description.substr(0, d.description.find(' '))) : d.id;
        for (char& c : name)
          if (c == ',' || c == '[' || c == ']' || std::isspace(static_cast<unsigned char>(c))) c = '_';
        name_.emplace(d.id, name);
      }
    }
  }

  const Device& device(const std::string& id, std::size_t line) const {
    auto it = index_.find(id);
    if (it == index_.end()) fail(line, "'" + id + "' has no record of its own");
    return devices_[it->second];
  }

  SiteTree tree() {
    name_devices();
    // Levels: 1 for a switch with hosts, then out from the leaves.
    std::map<std::string, int> level;
    std::vector<const Device*> frontier;
    for (const Device& d : devices_)
      if (d.is_switch &&
          std::any_of(d.ports.begin(), d.ports.end(), [](const Port& p) { return p.peer.starts_with("H-"); }))
        level[d.id] = 1, frontier.push_back(&d);
    if (frontier.empty()) fail(0, "no switch has a host (Ca) on it");
    for (int l = 2; !frontier.empty(); ++l) {
      std::vector<const Device*> next;
      for (const Device* d : frontier)
        for (const Port& p : d->ports) {
          const Device& peer = device(p.peer, p.line);
          if (peer.is_switch && level.emplace(peer.id, l).second) next.push_back(&peer);
        }
      frontier = std::move(next);
    }
    SiteTree out;
    out.source = source_;
    for (const Device& d : devices_) {
      if (!d.is_switch) continue;
      if (!level.count(d.id)) continue;  // reaches no host
      SiteSwitch s;
      s.name = name_.at(d.id);
      s.line = d.line;
      std::map<std::string, double> host_gbps;  // a host's cables to this switch, summed
      for (const Port& p : d.ports) {
        const Device& peer = device(p.peer, p.line);
        if (!peer.is_switch) {
          const std::string host = name_.at(peer.id);
          if (!host_gbps.count(host)) s.nodes.push_back(host);
          host_gbps[host] += p.gbps;
          continue;
        }
        const int mine = level.at(d.id), theirs = level.at(peer.id);
        if (mine == theirs)
          fail(p.line, "a cable between '" + s.name + "' and '" + name_.at(peer.id) + "', both on level " +
                           std::to_string(mine) + " (" + (mine == 1 ? "switches with hosts" : "as far from the hosts") +
                           "): rankmap's trees have cables between levels only");
        if (theirs != mine - 1) continue;  // a cable up: the upper switch's record gives it
        out.cables.push_back({s.name, name_.at(peer.id), 1, p.gbps, p.line});
        if (std::find(s.switches.begin(), s.switches.end(), name_.at(peer.id)) == s.switches.end())
          s.switches.push_back(name_.at(peer.id));
      }
      for (const std::string& host : s.nodes) out.cables.push_back({s.name, host, 1, host_gbps[host], d.line});
      out.switches.push_back(std::move(s));
    }
    return out;
  }

  std::string_view text_;
  std::string source_;
  std::vector<Device> devices_;
  std::map<std::string, std::size_t> index_;
  std::map<std::string, std::string> name_;
};

}  // namespace

SiteTree read_ibnetdiscover(std::string_view text, const std::string& source) { return Reader(text, source).read(); }

}  // namespace rankmap
