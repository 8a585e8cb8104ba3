// File helpers shared by the readers and writers.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace rankmap {

// Whole file as a string; throws Error(path, 0, ...) if it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

// One of the files written together: `base` + suffix ("" or ".env").
struct FilePart {
  std::string suffix;
  std::string text;
  std::filesystem::path path = {};  // when set: this file instead of base + suffix (a report beside a launch file)
};

// Throws Error naming `path` when it exists and is not a regular file (a
// symlink, a device, a directory): an output may only replace a file.
void require_replaceable(const std::filesystem::path& path);

// Throws Error when an output is one of the inputs or two outputs are one
// file. Files are compared by device and inode, not by name (`./x` and
// `x`, a hard link, a symlink to an input); an output not there yet by its
// directory's device and inode and its name. Inputs that do not exist are
// skipped.
void require_distinct_files(const std::vector<std::filesystem::path>& inputs,
                            const std::vector<std::filesystem::path>& outputs);

// Removes the temporary files of the writes under way in this process
// (write_files_atomically's `.NAME.tmp.XXXXXX`). Async-signal-safe: for the
// caller's SIGINT/SIGTERM handler, as the library installs none. SIGKILL
// can still leave one behind.
void remove_temporary_files() noexcept;

// A private folder the caller made (mkdtemp) and removes itself when done:
// until forgotten, remove_temporary_files() also unlinks the files in it
// and the folder. Returns a handle for forget_temporary_folder (-1 when
// none is free: then only SIGKILL's rule holds).
int register_temporary_folder(const std::string& path) noexcept;
void forget_temporary_folder(int handle) noexcept;

// Writes each part to a temporary file beside `base` (a mkstemp name +
// suffix, so companions keep their names relative to each other; created
// with O_EXCL, never through a symlink; fsync'ed), calls `check` with the
// temporary base (it throws to refuse), then renames every part into
// place. An existing output that is a symlink or not a regular file is
// refused, and so are two parts that are one file. A replaced file keeps
// its mode (and owner and group where the process may set them); a new one
// gets 0666 under the umask. Nothing is left behind on failure: all parts
// land, or none; a part with its own `path` joins the same transaction.
void write_files_atomically(const std::filesystem::path& base, const std::vector<FilePart>& parts,
                            const std::function<void(const std::filesystem::path& temp_base)>& check = {});

}  // namespace rankmap
