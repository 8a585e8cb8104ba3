#include "rankmap/context.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <sstream>

#include "core/names.hpp"
#include "core/toml_integer.hpp"
#include "rankmap/error.hpp"
#include "rankmap/io.hpp"

namespace rankmap {

namespace {

// Each preset is the default (the struct's own initialisers) with the
// settings it overrides named, as KaMinPar's presets are.

// One partition, one cheap start, a short refinement: for very large jobs.
// The partition is the joint bisection of graph and torus (its own order is
// a good start); k-way with only the RCM start lost to block on irregular
// graphs (bench/RESULTS.md).
void override_fast(Context& c) {
  c.partition.metis_kway = false;
  c.partition.coarsen_to = 65536;
  c.partition.trials = 1;
  c.placement.greedy = false;
  c.placement.swap_passes = 1;
  c.refinement.rank_swap_passes = 0;
}

void override_default(Context&) {}

// Every partitioner, Scotch included, on the whole graph, with more seeds
// and passes; the general pipelines run even where a grid layout applies.
void override_quality(Context& c) {
  c.partition.scotch = true;
  c.partition.metis_cuts = 4;
  c.partition.coarsen_to = 0;
  c.partition.grid_only = false;
  c.partition.trials = 16;
  c.placement.swap_passes = 32;
  c.refinement.rank_swap_passes = 8;
}

struct Preset {
  std::string_view name;
  void (*override)(Context&);
};
constexpr Preset kPresets[] = {{"fast", override_fast}, {"default", override_default}, {"quality", override_quality}};

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const Preset& p : kPresets) names.emplace_back(p.name);
  return names;
}

Context create_context(std::string_view preset) {
  for (const Preset& p : kPresets)
    if (p.name == preset) {
      Context c;
      c.preset = std::string(preset);
      p.override(c);
      return c;
    }
  throw Error(ErrorKind::argument, Parameter{"preset"},
              "unknown preset '" + std::string(preset) + "' (expected " + detail::one_of(preset_names()) + ")");
}

std::string dump_context(const Context& c) {
  std::ostringstream out;
  auto b = [](bool v) { return v ? "true" : "false"; };
  out << "# rankmap context; read back with -C FILE\n"
      << "preset = \"" << c.preset << "\"\n"
      << "seed = " << c.seed << "\n"
      << "within_node = " << b(c.within_node) << "\n"
      << "oversubscribe = " << b(c.oversubscribe) << "\n\n"
      << "[partition]\n"
      << "cartesian = " << b(c.partition.cartesian) << "\n"
      << "metis_kway = " << b(c.partition.metis_kway) << "\n"
      << "recursive_bisection = " << b(c.partition.recursive_bisection) << "\n"
      << "scotch = " << b(c.partition.scotch) << "\n"
      << "metis_cuts = " << c.partition.metis_cuts << "\n"
      << "coarsen_to = " << c.partition.coarsen_to << "\n"
      << "grid_only = " << b(c.partition.grid_only) << "\n"
      << "trials = " << c.partition.trials << "\n\n"
      << "[placement]\n"
      << "greedy = " << b(c.placement.greedy) << "\n"
      << "cuthill_mckee = " << b(c.placement.cuthill_mckee) << "\n"
      << "swap_passes = " << c.placement.swap_passes << "\n\n"
      << "[refinement]\n"
      << "rank_swap_passes = " << c.refinement.rank_swap_passes << "\n";
  return out.str();
}

namespace {

class ContextReader {
 public:
  explicit ContextReader(std::string source) : source_(std::move(source)) {}

  Context read(const toml::table& root) {
    Context c;
    known(root, {"preset", "seed", "within_node", "oversubscribe", "partition", "placement", "refinement"}, "top level");
    if (auto* p = root.get("preset")) {
      // A preset sets the defaults; the keys below override them.
      auto name = p->value<std::string>();
      if (!name) fail(*p, "'preset' must be a string");
      try {
        c = create_context(*name);
      } catch (const Error& e) {
        fail(*p, e.message());
      }
    }
    if (auto* s = root.get("seed")) c.seed = static_cast<std::uint64_t>(integer(*s, "seed", 0, INT64_MAX));
    flag(root, "within_node", c.within_node);
    flag(root, "oversubscribe", c.oversubscribe);
    if (const toml::table* t = table(root, "partition")) {
      known(*t, {"cartesian", "metis_kway", "recursive_bisection", "scotch", "metis_cuts", "coarsen_to", "grid_only", "trials"},
            "[partition]");
      if (auto* n = t->get("coarsen_to"))
        c.partition.coarsen_to = static_cast<std::uint32_t>(integer(*n, "coarsen_to", 0, 0xffffffffLL));
      flag(*t, "cartesian", c.partition.cartesian);
      flag(*t, "metis_kway", c.partition.metis_kway);
      flag(*t, "recursive_bisection", c.partition.recursive_bisection);
      flag(*t, "scotch", c.partition.scotch);
      flag(*t, "grid_only", c.partition.grid_only);
      if (auto* n = t->get("metis_cuts")) c.partition.metis_cuts = static_cast<int>(integer(*n, "metis_cuts", 1, 100));
      if (auto* n = t->get("trials")) c.partition.trials = static_cast<int>(integer(*n, "trials", 1, 1000));
      if (!c.partition.metis_kway && !c.partition.recursive_bisection && !c.partition.scotch)
        fail(*t, "[partition] must enable at least one of metis_kway, recursive_bisection, scotch "
                 "(cartesian alone does not apply to every graph)");
    }
    if (const toml::table* t = table(root, "placement")) {
      known(*t, {"greedy", "cuthill_mckee", "swap_passes"}, "[placement]");
      flag(*t, "greedy", c.placement.greedy);
      flag(*t, "cuthill_mckee", c.placement.cuthill_mckee);
      if (auto* n = t->get("swap_passes")) c.placement.swap_passes = static_cast<int>(integer(*n, "swap_passes", 0, 10000));
    }
    if (const toml::table* t = table(root, "refinement")) {
      known(*t, {"rank_swap_passes"}, "[refinement]");
      if (auto* n = t->get("rank_swap_passes"))
        c.refinement.rank_swap_passes = static_cast<int>(integer(*n, "rank_swap_passes", 0, 10000));
    }
    return c;
  }

 private:
  [[noreturn]] void fail(const toml::node& n, const std::string& what) const {
    throw Error(source_, n.source().begin.line, what);
  }
  void known(const toml::table& t, std::initializer_list<std::string_view> keys, const std::string& where) {
    for (auto&& [k, v] : t)
      if (std::find(keys.begin(), keys.end(), k.str()) == keys.end())
        fail(v, "unknown key '" + std::string(k.str()) + "' in " + where);
  }
  const toml::table* table(const toml::table& root, const char* key) {
    const toml::node* n = root.get(key);
    if (n && !n->is_table()) fail(*n, std::string("'") + key + "' must be a table");
    return n ? n->as_table() : nullptr;
  }
  void flag(const toml::table& t, const char* key, bool& out) {
    if (const toml::node* n = t.get(key)) {
      auto v = n->value<bool>();
      if (!n->is_boolean() || !v) fail(*n, std::string("'") + key + "' must be true or false");
      out = *v;
    }
  }
  std::int64_t integer(const toml::node& n, const char* key, std::int64_t lo, std::int64_t hi) {
    auto v = detail::toml_integer(n);
    if (!n.is_integer() || !v || *v < lo || *v > hi)
      fail(n, std::string("'") + key + "' must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
    return *v;
  }
  std::string source_;
};

}  // namespace

Context parse_context(std::string_view text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw Error(source, e.source().begin.line, "TOML syntax: " + std::string(e.description()));
  }
  return ContextReader(source).read(root);
}

Context load_context(const std::filesystem::path& path) { return parse_context(read_text_file(path), path.string()); }

}  // namespace rankmap
