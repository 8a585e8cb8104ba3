#include "core/temporary_files.hpp"

#include <unistd.h>

#include <atomic>
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

// The slot now holding `path`, or -1.
int register_temporary(const std::string& path) {
  if (path.size() >= kTempPathMax) return -1;
  for (std::size_t i = 0; i < kTempSlots; ++i) {
    int expected = kSlotFree;
    if (!temp_slots[i].state.compare_exchange_strong(expected, kSlotClaimed)) continue;
    std::memcpy(temp_slots[i].path, path.c_str(), path.size() + 1);
    temp_slots[i].state.store(kSlotLive);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) temp_slots[slot].state.store(kSlotFree);
}

}  // namespace

void remove_temporary_files() noexcept {
  for (TempSlot& slot : temp_slots)
    if (slot.state.load() == kSlotLive) ::unlink(slot.path);
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
