// Slurm's topology.yaml (topology.yaml(5), Slurm 25.05+): several
// topologies, each a tree (switches), a block (blocks and block_sizes) or
// flat; one chosen by name, else the cluster default. Read with libyaml's
// document API, which keeps each node's line for errors.
#include <yaml.h>

#include <charconv>
#include <memory>

#include "machine/import/name_budget.hpp"
#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/site_import.hpp"

namespace rankmap {
namespace {

class YamlReader {
 public:
  YamlReader(std::string_view text, std::string source) : source_(std::move(source)) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) throw Error(source_, 0, "cannot start the YAML parser");
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    const bool loaded = yaml_parser_load(&parser, &doc_);
    if (!loaded) {
      const std::string why = parser.problem ? parser.problem : "malformed";
      const std::size_t line = parser.problem_mark.line + 1;
      yaml_parser_delete(&parser);
      throw Error(source_, line, "YAML syntax: " + why);
    }
    yaml_parser_delete(&parser);
    loaded_ = true;
  }
  ~YamlReader() {
    if (loaded_) yaml_document_delete(&doc_);
  }
  YamlReader(const YamlReader&) = delete;
  YamlReader& operator=(const YamlReader&) = delete;

  yaml_node_t* root() { return yaml_document_get_root_node(&doc_); }
  static std::size_t line(const yaml_node_t* n) { return n->start_mark.line + 1; }
  [[noreturn]] void fail(const yaml_node_t* n, const std::string& why) const {
    throw Error(source_, n ? line(n) : 0, why);
  }

  std::string scalar(const yaml_node_t* n, const std::string& what) const {
    if (!n || n->type != YAML_SCALAR_NODE) fail(n, "'" + what + "' must be a single value");
    return {reinterpret_cast<const char*>(n->data.scalar.value), n->data.scalar.length};
  }

  // A mapping's entries as (key, value), keys checked against `keys`.
  std::vector<std::pair<std::string, yaml_node_t*>> mapping(yaml_node_t* n, const std::string& what,
                                                            std::initializer_list<const char*> keys) {
    if (!n || n->type != YAML_MAPPING_NODE) fail(n, what + " must be a mapping (key: value lines)");
    std::vector<std::pair<std::string, yaml_node_t*>> out;
    for (yaml_node_pair_t* p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
      yaml_node_t* k = yaml_document_get_node(&doc_, p->key);
      const std::string key = scalar(k, "a key");
      bool known = false;
      for (const char* allowed : keys) known = known || key == allowed;
      if (!known) {
        std::string list;
        for (const char* allowed : keys) list += std::string(list.empty() ? "" : ", ") + allowed;
        fail(k, "unknown key '" + key + "' in " + what + "; expected " + list);
      }
      out.emplace_back(key, yaml_document_get_node(&doc_, p->value));
    }
    return out;
  }

  std::vector<yaml_node_t*> sequence(yaml_node_t* n, const std::string& what) {
    if (!n || n->type != YAML_SEQUENCE_NODE) fail(n, "'" + what + "' must be a list ('- ' lines)");
    std::vector<yaml_node_t*> out;
    for (yaml_node_item_t* i = n->data.sequence.items.start; i < n->data.sequence.items.top; ++i)
      out.push_back(yaml_document_get_node(&doc_, *i));
    return out;
  }

  // Names: a hostlist, or a list of hostlists.
  std::vector<std::string> names(yaml_node_t* n, const std::string& what) {
    std::vector<std::string> out;
    if (n && n->type == YAML_SEQUENCE_NODE) {
      for (yaml_node_t* item : sequence(n, what)) {
        auto more = budget_.expand(scalar(item, what), source_, line(item));
        out.insert(out.end(), more.begin(), more.end());
      }
      return out;
    }
    return budget_.expand(scalar(n, what), source_, n ? line(n) : 0);
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
  detail::NameBudget budget_;
  yaml_document_t doc_{};
  bool loaded_ = false;
};

SiteTree tree_of(YamlReader& y, yaml_node_t* tree) {
  SiteTree out;
  out.source = y.source();
  for (const auto& [key, value] : y.mapping(tree, "a tree", {"switches"}))
    for (yaml_node_t* e : y.sequence(value, "switches")) {
      SiteSwitch s;
      s.line = YamlReader::line(e);
      bool named = false;
      for (const auto& [k, v] : y.mapping(e, "a switch", {"switch", "children", "nodes"})) {
        if (k == "switch") s.name = y.scalar(v, "switch"), named = true;
        if (k == "children") s.switches = y.names(v, "children");
        if (k == "nodes") s.nodes = y.names(v, "nodes");
      }
      if (!named) y.fail(e, "a switch needs 'switch' (its name)");
      if (s.nodes.empty() && s.switches.empty()) y.fail(e, "switch '" + s.name + "' has neither children nor nodes");
      out.switches.push_back(std::move(s));
    }
  if (out.switches.empty()) y.fail(tree, "the tree lists no switches");
  return out;
}

SiteTree block_of(YamlReader& y, yaml_node_t* block) {
  std::vector<SlurmBlock> blocks;
  std::vector<std::size_t> sizes;
  std::size_t sizes_line = YamlReader::line(block);
  for (const auto& [key, value] : y.mapping(block, "a block topology", {"block_sizes", "blocks"})) {
    if (key == "block_sizes") {
      sizes_line = YamlReader::line(value);
      for (yaml_node_t* item : y.sequence(value, "block_sizes")) {
        const std::string text = y.scalar(item, "block_sizes");
        std::size_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || v == 0 || v > kMaxHostlistHosts)
          y.fail(item, "block_sizes must list node counts, not '" + text + "'");
        sizes.push_back(v);
      }
      continue;
    }
    for (yaml_node_t* e : y.sequence(value, "blocks")) {
      SlurmBlock b;
      b.line = YamlReader::line(e);
      for (const auto& [k, v] : y.mapping(e, "a block", {"block", "nodes"})) {
        if (k == "block") b.name = y.scalar(v, "block");
        if (k == "nodes") b.nodes = y.names(v, "nodes");
      }
      if (b.name.empty()) y.fail(e, "a block needs 'block' (its name)");
      if (b.nodes.empty()) y.fail(e, "block '" + b.name + "' has no nodes");
      blocks.push_back(std::move(b));
    }
  }
  return slurm_blocks_tree(blocks, sizes, sizes_line, y.source());
}

}  // namespace

SiteTree read_slurm_topology_yaml(std::string_view text, const std::string& source, const std::string& name) {
  YamlReader y(text, source);
  yaml_node_t* root = y.root();
  if (!root) throw Error(source, 0, "no topology (an empty YAML document)");
  struct Topology {
    std::string name;
    bool cluster_default = false;
    yaml_node_t* node = nullptr;
    std::string kind;
    yaml_node_t* body = nullptr;
  };
  std::vector<Topology> all;
  for (yaml_node_t* e : y.sequence(root, "the topologies")) {
    Topology t;
    t.node = e;
    for (const auto& [key, value] :
         y.mapping(e, "a topology", {"topology", "cluster_default", "tree", "block", "flat"})) {
      if (key == "topology") {
        t.name = y.scalar(value, "topology");
      } else if (key == "cluster_default") {
        const std::string v = y.scalar(value, key);
        if (v != "true" && v != "True" && v != "false" && v != "False")
          y.fail(value, "cluster_default must be true or false, not '" + v + "'");
        t.cluster_default = v == "true" || v == "True";
      } else {
        if (!t.kind.empty()) y.fail(value, "topology '" + t.name + "' is both " + t.kind + " and " + key);
        t.kind = key, t.body = value;
      }
    }
    if (t.name.empty()) y.fail(e, "a topology needs 'topology' (its name)");
    if (t.kind.empty()) y.fail(e, "topology '" + t.name + "' is none of tree, block, flat");
    all.push_back(t);
  }
  const Topology* chosen = nullptr;
  std::string names;
  for (const Topology& t : all) {
    names += (names.empty() ? "" : ", ") + t.name;
    if (name.empty() ? (t.cluster_default && !chosen) : t.name == name) chosen = &t;
  }
  if (!chosen && name.empty() && all.size() == 1) chosen = &all.front();
  if (!chosen)
    throw Error(source, 0,
                (name.empty() ? std::string("no topology is cluster_default") : "no topology '" + name + "'") +
                    "; name one of: " + names);
  if (chosen->kind == "flat")
    y.fail(chosen->node, "topology '" + chosen->name +
                             "' is flat: Slurm knows no shape for it (write kind = \"switch\" with machine new)");
  return chosen->kind == "tree" ? tree_of(y, chosen->body) : block_of(y, chosen->body);
}

}  // namespace rankmap
