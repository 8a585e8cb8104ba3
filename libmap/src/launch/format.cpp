#include "core/names.hpp"
#include "rankmap/error.hpp"
#include "rankmap/io.hpp"
#include "rankmap/launch.hpp"

namespace rankmap {

namespace {
constexpr LaunchFormat kFormats[] = {LaunchFormat::openmpi, LaunchFormat::mpich,    LaunchFormat::slurm,
                                     LaunchFormat::mvapich, LaunchFormat::intelmpi, LaunchFormat::csv};
}  // namespace

std::vector<std::string> launch_format_names() { return detail::names_of<LaunchFormat>(kFormats, launch_format_name); }

LaunchFormat parse_launch_format(std::string_view name) {
  if (auto f = detail::find_named<LaunchFormat>(kFormats, launch_format_name, name)) return *f;
  throw Error(ErrorKind::argument, Parameter{"format"},
              "unknown format '" + std::string(name) + "' (expected " + detail::one_of(launch_format_names()) + ")");
}

std::string_view launch_format_name(LaunchFormat f) {
  switch (f) {
    case LaunchFormat::openmpi: return "openmpi";
    case LaunchFormat::mpich: return "mpich";
    case LaunchFormat::slurm: return "slurm";
    case LaunchFormat::mvapich: return "mvapich";
    case LaunchFormat::intelmpi: return "intelmpi";
    case LaunchFormat::csv: return "csv";
  }
  return "?";
}

std::vector<std::string> launch_file_suffixes(LaunchFormat f) {
  if (f == LaunchFormat::slurm) return {"", ".env", ".bind"};
  if (f == LaunchFormat::mvapich || f == LaunchFormat::intelmpi) return {"", ".env"};
  return {""};
}

LaunchFormat detect_launch_format(const std::filesystem::path& path) {
  const std::string text = read_text_file(path);
  std::size_t pos = 0;
  std::string first;
  while (pos < text.size() && first.empty()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    first = text.substr(pos, end - pos);
    pos = end + 1;
    const auto a = first.find_first_not_of(" \t\r");
    first = a == std::string::npos || first[a] == '#' ? "" : first.substr(a);
  }
  if (first.rfind("rank,host", 0) == 0) return LaunchFormat::csv;
  if (first.rfind("rank ", 0) == 0) return LaunchFormat::openmpi;
  const auto env = std::filesystem::path(path.string() + ".env");
  if (first.find("binding=") != std::string::npos) return LaunchFormat::mpich;
  if (first.find(':') != std::string::npos)
    return std::filesystem::exists(env) && read_text_file(env).find("I_MPI_PIN_") != std::string::npos
               ? LaunchFormat::intelmpi
               : LaunchFormat::mpich;
  if (std::filesystem::exists(env) && read_text_file(env).find("MV2_CPU_MAPPING=") != std::string::npos)
    return LaunchFormat::mvapich;
  return LaunchFormat::slurm;
}

}  // namespace rankmap
