#include "core/temporary_files.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "rankmap/io.hpp"

namespace rankmap {
namespace {

// The temporaries of the writes under way, for remove_temporary_files():
// fixed buffers, so that a signal handler reads no memory being freed. A
// slot goes free -> claimed (being filled) -> live -> free; the handler
// unlinks live ones. Paths too long for a slot, or writes beyond the slots
// (dozens at once), are not registered, and only SIGKILL's rule holds.
constexpr std::size_t kTempSlots = 64, kTempPathMax = 4096;
enum : int { kSlotFree = 0, kSlotClaimed = 1, kSlotLive = 2 };
struct TempSlot {
  std::atomic<int> state{kSlotFree};
  char path[kTempPathMax];
};
TempSlot temp_slots[kTempSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the handler may only touch lock-free atomics");

// The slot of `slots` (`count` of them) now holding `path`, or -1.
int claim_slot(TempSlot* slots, std::size_t count, const std::string& path) {
  if (path.size() >= kTempPathMax) return -1;
  for (std::size_t i = 0; i < count; ++i) {
    int expected = kSlotFree;
    if (!slots[i].state.compare_exchange_strong(expected, kSlotClaimed)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].state.store(kSlotLive);
    return static_cast<int>(i);
  }
  return -1;
}

int register_temporary(const std::string& path) { return claim_slot(temp_slots, kTempSlots, path); }

void unregister_temporary(int slot) {
  if (slot >= 0) temp_slots[slot].state.store(kSlotFree);
}

// Private folders (a command's mkdtemp folder): the handler empties and
// removes them. Few at once: a command makes one or two.
constexpr std::size_t kFolderSlots = 8;
TempSlot folder_slots[kFolderSlots];

// Unlinks every entry of the folder (see remove_folder).
void unlink_entries(const char* path) noexcept {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buffer[4096];
  for (;;) {
    const long got = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
    if (got <= 0) break;
    for (long at = 0; at < got;) {
      struct Entry {
        std::uint64_t inode;
        std::int64_t offset;
        unsigned short length;
        unsigned char type;
        char name[1];
      };
      const auto* e = reinterpret_cast<const Entry*>(buffer + at);
      const bool dot = e->name[0] == '.' && (e->name[1] == '\0' || (e->name[1] == '.' && e->name[2] == '\0'));
      if (!dot) ::unlinkat(fd, e->name, 0);
      at += e->length;
    }
  }
  ::close(fd);
}

// Unlinks every entry of the folder, then the folder; only system calls
// (getdents64 through syscall, unlinkat), so safe in a signal handler. A
// folder holding a folder keeps it (and itself): rankmap's hold files only.
// The command's other threads run on while the handler does this: a file
// one of them made after the pass is unlinked by another (three at most).
void remove_folder(const char* path) noexcept {
  for (int pass = 0; pass < 3; ++pass) {
    unlink_entries(path);
    if (::rmdir(path) == 0 || (errno != ENOTEMPTY && errno != EEXIST)) return;
  }
}

}  // namespace

void remove_temporary_files() noexcept {
  const int saved = errno;  // a signal handler leaves errno as it found it
  for (TempSlot& slot : temp_slots)
    if (slot.state.load() == kSlotLive) ::unlink(slot.path);
  for (TempSlot& slot : folder_slots)
    if (slot.state.load() == kSlotLive) remove_folder(slot.path);
  errno = saved;
}

int register_temporary_folder(const std::string& path) noexcept { return claim_slot(folder_slots, kFolderSlots, path); }

void forget_temporary_folder(int handle) noexcept {
  if (handle >= 0 && static_cast<std::size_t>(handle) < kFolderSlots) folder_slots[handle].state.store(kSlotFree);
}

namespace detail {

Temporaries::~Temporaries() {
  for (int slot : slots_) unregister_temporary(slot);
}

void Temporaries::add(const std::string& path) {
  paths_.push_back(path);
  slots_.push_back(register_temporary(path));
}

void Temporaries::forget(const std::string& path) {
  for (std::size_t i = 0; i < paths_.size(); ++i)
    if (paths_[i] == path) {
      unregister_temporary(slots_[i]);
      slots_[i] = -1;
    }
}

void Temporaries::remove_all() {
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    if (slots_[i] < 0) continue;
    ::unlink(paths_[i].c_str());
    unregister_temporary(slots_[i]);
    slots_[i] = -1;
  }
}

}  // namespace detail
}  // namespace rankmap
