#include "core/mapped_file.hpp"
#include "graph/readers.hpp"
#include "rankmap/error.hpp"
#include "rankmap/profile.hpp"

namespace rankmap {

Graph read_graph(const std::filesystem::path& path) { return read_graph_as(path, path.extension().string()); }

Graph read_graph_as(const std::filesystem::path& path, const std::string& ext) {
  if (ext == ".rmp") return read_profile(path).total();
  using Reader = Graph (*)(std::string_view, const std::string&);
  Reader reader = nullptr;
  if (ext == ".mtx")
    reader = [](std::string_view text, const std::string& source) { return detail::read_mtx(text, source); };
  else if (ext == ".graph")
    reader = [](std::string_view text, const std::string& source) { return detail::read_metis(text, source); };
  else if (ext == ".grf")
    reader = [](std::string_view text, const std::string& source) { return detail::read_scotch(text, source); };
  else if (ext == ".csv")
    reader = [](std::string_view text, const std::string& source) { return detail::read_csv(text, source); };
  else
    throw Error(path.string(), 0, "unknown graph format '" + ext + "' (expected .rmp, .mtx, .graph, .grf or .csv)");
  const detail::MappedFile file(path);
  return reader(file.text(), path.string());
}

}  // namespace rankmap
