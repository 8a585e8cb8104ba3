// The engine's settings: the presets, and the TOML that dump_context()
// writes and load_context() reads back (docs/formats.md, "Engine settings").
#include "rankmap/context.hpp"

#include <sstream>

#include "core/names.hpp"
#include "core/toml_reader.hpp"
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
  c.partition.bisection_cuts = 1;
  c.partition.coarsen_to = 65536;
  c.partition.trials = 1;
  c.placement.greedy = false;
  c.placement.swap_passes = 1;
  c.refinement.rank_swap_passes = 0;
  c.refinement.rank_moves = false;
  c.refinement.program_swaps = 0;
}

void override_default(Context&) {}

// Every partitioner, Scotch included, on the whole graph, with more seeds
// and passes; the general pipelines run even where a grid layout applies
// (small grids only: Context::grid_only). Trials stop once 4
// in a row found nothing better, so the extra seeds are paid for only
// while they pay; the default preset's mapping is a candidate and a
// ceiling, so quality is never worse than default.
void override_quality(Context& c) {
  c.partition.scotch = true;
  c.partition.metis_cuts = 4;
  c.partition.coarsen_to = 0;
  c.partition.grid_only = false;
  c.partition.trials = 16;
  c.partition.patience = 4;
  c.partition.default_candidate = true;
  c.placement.swap_passes = 32;
  c.refinement.rank_swap_passes = 8;
  c.refinement.program_swaps = 1536;
}

struct Preset {
  std::string_view name;
  void (*override)(Context&);
};
constexpr Preset kPresets[] = {{"fast", override_fast}, {"default", override_default}, {"quality", override_quality}};

std::string_view name_of(const Preset& p) { return p.name; }

}  // namespace

std::vector<std::string> preset_names() { return detail::names_of<Preset>(kPresets, name_of); }

Context create_context(std::string_view preset) {
  if (auto p = detail::find_named<Preset>(kPresets, name_of, preset)) {
    Context c;
    c.preset = std::string(preset);
    p->override(c);
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
      << "oversubscribe = " << b(c.oversubscribe) << "\n"
      << "threads = " << c.threads << "\n\n"
      << "[partition]\n"
      << "cartesian = " << b(c.partition.cartesian) << "\n"
      << "metis_kway = " << b(c.partition.metis_kway) << "\n"
      << "recursive_bisection = " << b(c.partition.recursive_bisection) << "\n"
      << "scotch = " << b(c.partition.scotch) << "\n"
      << "metis_cuts = " << c.partition.metis_cuts << "\n"
      << "bisection_cuts = " << c.partition.bisection_cuts << "\n"
      << "coarsen_to = " << c.partition.coarsen_to << "\n"
      << "grid_only = " << b(c.partition.grid_only) << "\n"
      << "trials = " << c.partition.trials << "\n"
      << "patience = " << c.partition.patience << "\n"
      << "default_candidate = " << b(c.partition.default_candidate) << "\n\n"
      << "[placement]\n"
      << "greedy = " << b(c.placement.greedy) << "\n"
      << "cuthill_mckee = " << b(c.placement.cuthill_mckee) << "\n"
      << "rank_order = " << b(c.placement.rank_order) << "\n"
      << "swap_passes = " << c.placement.swap_passes << "\n\n"
      << "[refinement]\n"
      << "rank_swap_passes = " << c.refinement.rank_swap_passes << "\n"
      << "rank_moves = " << b(c.refinement.rank_moves) << "\n"
      << "program_swaps = " << c.refinement.program_swaps << "\n";
  return out.str();
}

namespace {

class ContextReader : private detail::TomlReader {
 public:
  using TomlReader::parse;
  using TomlReader::TomlReader;

  Context read(const toml::table& root) const {
    Context c;
    reject_unknown(
        root, {"preset", "seed", "within_node", "oversubscribe", "threads", "partition", "placement", "refinement"},
        "top level");
    if (auto* p = root.get("preset")) {
      // A preset sets the defaults; the keys below override them.
      try {
        c = create_context(string(*p, "preset"));
      } catch (const Error& e) {
        if (!e.parameter().empty()) fail(*p, e.message());  // an unknown name, not a type error
        throw;
      }
    }
    if (auto* s = root.get("seed")) c.seed = static_cast<std::uint64_t>(integer(*s, "seed", 0, INT64_MAX));
    boolean(root, "within_node", c.within_node);
    boolean(root, "oversubscribe", c.oversubscribe);
    if (auto* n = root.get("threads")) c.threads = static_cast<int>(integer(*n, "threads", 0, kMaxThreads));
    if (const toml::table* t = table(root, "partition")) {
      reject_unknown(*t,
                     {"cartesian", "metis_kway", "recursive_bisection", "scotch", "metis_cuts", "bisection_cuts",
                      "coarsen_to", "grid_only", "trials", "patience", "default_candidate"},
                     "[partition]");
      if (auto* n = t->get("coarsen_to"))
        c.partition.coarsen_to = static_cast<std::uint32_t>(integer(*n, "coarsen_to", 0, 0xffffffffLL));
      boolean(*t, "cartesian", c.partition.cartesian);
      boolean(*t, "metis_kway", c.partition.metis_kway);
      boolean(*t, "recursive_bisection", c.partition.recursive_bisection);
      boolean(*t, "scotch", c.partition.scotch);
      boolean(*t, "grid_only", c.partition.grid_only);
      boolean(*t, "default_candidate", c.partition.default_candidate);
      if (auto* n = t->get("metis_cuts")) c.partition.metis_cuts = static_cast<int>(integer(*n, "metis_cuts", 1, 100));
      if (auto* n = t->get("bisection_cuts"))
        c.partition.bisection_cuts = static_cast<int>(integer(*n, "bisection_cuts", 1, 100));
      if (auto* n = t->get("trials")) c.partition.trials = static_cast<int>(integer(*n, "trials", 1, 1000));
      if (auto* n = t->get("patience")) c.partition.patience = static_cast<int>(integer(*n, "patience", 0, 1000));
      if (!c.partition.metis_kway && !c.partition.recursive_bisection && !c.partition.scotch)
        fail(*t,
             "[partition] must enable at least one of metis_kway, recursive_bisection, scotch "
             "(cartesian alone does not apply to every graph)");
    }
    if (const toml::table* t = table(root, "placement")) {
      reject_unknown(*t, {"greedy", "cuthill_mckee", "rank_order", "swap_passes"}, "[placement]");
      boolean(*t, "greedy", c.placement.greedy);
      boolean(*t, "cuthill_mckee", c.placement.cuthill_mckee);
      boolean(*t, "rank_order", c.placement.rank_order);
      if (auto* n = t->get("swap_passes"))
        c.placement.swap_passes = static_cast<int>(integer(*n, "swap_passes", 0, 10000));
    }
    if (const toml::table* t = table(root, "refinement")) {
      reject_unknown(*t, {"rank_swap_passes", "rank_moves", "program_swaps"}, "[refinement]");
      boolean(*t, "rank_moves", c.refinement.rank_moves);
      if (auto* n = t->get("rank_swap_passes"))
        c.refinement.rank_swap_passes = static_cast<int>(integer(*n, "rank_swap_passes", 0, 10000));
      if (auto* n = t->get("program_swaps"))
        c.refinement.program_swaps = static_cast<int>(integer(*n, "program_swaps", 0, 1000000));
    }
    return c;
  }
};

}  // namespace

Context parse_context(std::string_view text, const std::string& source) {
  const ContextReader reader(source);
  return reader.read(reader.parse(text));
}

Context load_context(const std::filesystem::path& path) { return parse_context(read_text_file(path), path.string()); }

}  // namespace rankmap
