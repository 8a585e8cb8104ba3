#include "partition/metis_threads.hpp"

#include <dlfcn.h>
#include <link.h>
#include <metis.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstring>
#include <mutex>
#include <utility>

namespace rankmap::detail {

void GlibcRandom::reseed(unsigned seed) {
  // glibc's __srandom_r, step by step (stdlib/random_r.c).
  if (seed == 0) seed = 1;
  auto word = static_cast<std::int32_t>(seed);
  state_[0] = word;
  for (int i = 1; i < 31; ++i) {
    // 16807 x mod (2^31 - 1) without overflowing 31 bits (Schrage).
    const long hi = word / 127773, lo = word % 127773;
    word = static_cast<std::int32_t>(16807 * lo - 2836 * hi);
    if (word < 0) word += 2147483647;
    state_[i] = word;
  }
  front_ = 3;
  rear_ = 0;
  for (int i = 0; i < 310; ++i) next();
}

int GlibcRandom::next() {
  const auto sum = static_cast<std::uint32_t>(state_[front_]) + static_cast<std::uint32_t>(state_[rear_]);
  state_[front_] = static_cast<std::int32_t>(sum);
  front_ = (front_ + 1) % 31;
  rear_ = (rear_ + 1) % 31;
  return static_cast<int>(sum >> 1);
}

namespace {

using Handler = void (*)(int);

// The relocations that fill a GOT entry with a function's address, on the
// 64-bit machines this is built for; elsewhere nothing is patched and
// METIS's calls take turns.
#if defined(__x86_64__)
constexpr unsigned kJumpSlot = R_X86_64_JUMP_SLOT, kGlobDat = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
constexpr unsigned kJumpSlot = R_AARCH64_JUMP_SLOT, kGlobDat = R_AARCH64_GLOB_DAT;
#else
constexpr unsigned kJumpSlot = ~0u, kGlobDat = ~0u;
#endif

struct ThisThread {
  bool in_metis = false;
  GlibcRandom random;
  int seeded = 0, trapped = 0;       // calls seen, for may_overlap()
  std::array<bool, 65> open_trap{};  // per signal: this call's trap is set
};
thread_local ThisThread this_thread;

// What METIS's calls were bound to, for calls outside MetisCall.
struct Bound {
  int (*rand)() = nullptr;
  void (*srand)(unsigned) = nullptr;
  Handler (*signal)(int, Handler) = nullptr;
};
Bound bound;

// One trap for every METIS call in flight: the first call's signal() sets
// METIS's handler and keeps the one it found, the last one's puts that back.
struct SharedTrap {
  std::mutex lock;
  std::array<int, 65> calls{};
  std::array<Handler, 65> found{};
};
SharedTrap& shared_trap() {
  static SharedTrap trap;
  return trap;
}

int metis_rand() {
  if (this_thread.in_metis) return this_thread.random.next();
  return bound.rand();
}

void metis_srand(unsigned seed) {
  if (!this_thread.in_metis) return bound.srand(seed);
  ++this_thread.seeded;
  this_thread.random.reseed(seed);
}

Handler metis_signal(int sig, Handler handler) {
  if (!this_thread.in_metis || sig < 0 || sig >= 65) return bound.signal(sig, handler);
  ++this_thread.trapped;
  const auto s = static_cast<std::size_t>(sig);
  // SIGTERM comes from outside (a user, a scheduler ending the job), to
  // whichever thread: METIS's handler would longjmp on a thread that is
  // not inside METIS (a SIGSEGV under `map` on two threads), and it would
  // take the signal from the process's own handler. So its trap is not set
  // (nor its put-back): the process's handler stays, and a SIGTERM METIS
  // raises itself ends the process as any SIGTERM does.
  if (sig == SIGTERM) {
    this_thread.open_trap[s] = !this_thread.open_trap[s];
    return SIG_DFL;
  }
  SharedTrap& trap = shared_trap();
  const std::lock_guard<std::mutex> guard(trap.lock);
  if (!this_thread.open_trap[s]) {  // gk_sigtrap(): METIS keeps the answer to put back
    this_thread.open_trap[s] = true;
    if (trap.calls[s]++ == 0) trap.found[s] = bound.signal(sig, handler);
    return trap.found[s];
  }
  this_thread.open_trap[s] = false;  // gk_siguntrap()
  if (--trap.calls[s] == 0) bound.signal(sig, trap.found[s]);
  return handler;
}

// Points the loaded METIS's GOT entries for rand, srand and __sysv_signal
// (the name its signal() calls) at the functions above, as Open MPI's
// patcher does for its memory hooks; only METIS's own calls change. The
// object is the one holding METIS_PartGraphKway's code. Counts the entries
// set.
struct Patch {
  ElfW(Addr) metis_code = 0;
  int set = 0;
};

void point_entry(void** entry, void* to, ElfW(Addr) relro_begin, ElfW(Addr) relro_end) {
  const auto at = reinterpret_cast<ElfW(Addr)>(entry);
  if (at >= relro_begin && at < relro_end) {
    // Bound at load time (-z now) and then made read-only: open the page
    // for the one write.
    const auto page = static_cast<ElfW(Addr)>(sysconf(_SC_PAGESIZE));
    void* first = reinterpret_cast<void*>(at & ~(page - 1));
    if (mprotect(first, page, PROT_READ | PROT_WRITE) != 0) return;
    *entry = to;
    mprotect(first, page, PROT_READ);
  } else {
    *entry = to;
  }
}

int patch_object(dl_phdr_info* info, std::size_t /*size*/, void* data) {
  auto* patch = static_cast<Patch*>(data);
  if (kJumpSlot == ~0u) return 1;  // a machine this does not know
  const ElfW(Dyn)* dynamic = nullptr;
  ElfW(Addr) relro_begin = 0, relro_end = 0;
  bool holds_metis = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const ElfW(Addr) begin = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && patch->metis_code >= begin && patch->metis_code < begin + ph.p_memsz)
      holds_metis = true;
    if (ph.p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(begin);
    if (ph.p_type == PT_GNU_RELRO) relro_begin = begin, relro_end = begin + ph.p_memsz;
  }
  if (!holds_metis || !dynamic) return 0;
  // glibc has already added the load address to these (its link map's own
  // copy of the dynamic section); other loaders may not have.
  auto absolute = [&](ElfW(Addr) p) { return p < info->dlpi_addr ? p + info->dlpi_addr : p; };
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  const ElfW(Rela)* plt = nullptr, *other = nullptr;
  std::size_t plt_bytes = 0, other_bytes = 0;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) symbols = reinterpret_cast<const ElfW(Sym)*>(absolute(d->d_un.d_ptr));
    if (d->d_tag == DT_STRTAB) names = reinterpret_cast<const char*>(absolute(d->d_un.d_ptr));
    if (d->d_tag == DT_JMPREL) plt = reinterpret_cast<const ElfW(Rela)*>(absolute(d->d_un.d_ptr));
    if (d->d_tag == DT_PLTRELSZ) plt_bytes = d->d_un.d_val;
    if (d->d_tag == DT_RELA) other = reinterpret_cast<const ElfW(Rela)*>(absolute(d->d_un.d_ptr));
    if (d->d_tag == DT_RELASZ) other_bytes = d->d_un.d_val;
  }
  if (!symbols || !names) return 1;
  const std::pair<const char*, void*> redirects[] = {{"rand", reinterpret_cast<void*>(&metis_rand)},
                                                     {"srand", reinterpret_cast<void*>(&metis_srand)},
                                                     {"__sysv_signal", reinterpret_cast<void*>(&metis_signal)}};
  for (auto [table, bytes] : {std::pair{plt, plt_bytes}, std::pair{other, other_bytes}}) {
    if (!table) continue;
    for (std::size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
      const ElfW(Rela)& r = table[i];
      const auto type = static_cast<unsigned>(ELF64_R_TYPE(r.r_info));
      if (type != kJumpSlot && type != kGlobDat) continue;
      const char* name = names + symbols[ELF64_R_SYM(r.r_info)].st_name;
      for (const auto& [wanted, to] : redirects)
        if (std::strcmp(name, wanted) == 0) {
          point_entry(reinterpret_cast<void**>(info->dlpi_addr + r.r_offset), to, relro_begin, relro_end);
          ++patch->set;
        }
    }
  }
  return 1;
}

}  // namespace

MetisCall::MetisCall() { this_thread.in_metis = true; }
MetisCall::~MetisCall() { this_thread.in_metis = false; }

bool MetisCall::may_overlap() {
  static const bool answer = [] {
    bound.rand = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "rand"));
    bound.srand = reinterpret_cast<void (*)(unsigned)>(dlsym(RTLD_DEFAULT, "srand"));
    bound.signal = reinterpret_cast<Handler (*)(int, Handler)>(dlsym(RTLD_DEFAULT, "__sysv_signal"));
    if (!bound.rand || !bound.srand || !bound.signal) return false;
    Patch patch;
    patch.metis_code = reinterpret_cast<ElfW(Addr)>(&METIS_PartGraphKway);
    dl_iterate_phdr(patch_object, &patch);
    // A 4-cycle into 2 parts: METIS seeds its random numbers and sets its
    // trap on every call. Both must have come here.
    idx_t n = 4, ncon = 1, parts = 2, cut = 0;
    idx_t xadj[] = {0, 2, 4, 6, 8}, adjncy[] = {1, 3, 0, 2, 1, 3, 2, 0}, part[4];
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    const MetisCall call;
    this_thread.seeded = this_thread.trapped = 0;
    const int status = METIS_PartGraphKway(&n, &ncon, xadj, adjncy, nullptr, nullptr, nullptr, &parts, nullptr, nullptr,
                                           options, &cut, part);
    return patch.set >= 3 && status == METIS_OK && this_thread.seeded > 0 && this_thread.trapped > 0;
  }();
  return answer;
}

}  // namespace rankmap::detail
