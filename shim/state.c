/* The profile being collected on this rank: traffic per world peer, time in
 * MPI, and the wall-clock span between MPI_Init and MPI_Finalize. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "write_profile.h"

#if !(defined(__x86_64__) || defined(__i386__))
uint64_t rm_ticks(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
#endif

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__thread rm_thread_state rm_self __attribute__((tls_model("initial-exec")));
int rm_profiling;
unsigned rm_cache_epoch = 1;

enum {
  SPARSE_SHIFT = 6, /* one short call in 64 is timed */
  MAX_GAP = 30000,  /* fits rm_sampling.countdown */
  /* About 26 us at 2.5 GHz: a call this long pays under 0.1 % for its two
   * time stamps, so it is always timed; shorter ones are sampled. */
  RM_LONG_TICKS = 1 << 16,
  RM_SHORT_RUN = 8 /* short calls in a row before sampling */
};

static int multiple; /* MPI_THREAD_MULTIPLE: the table needs the lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t mpi_ticks; /* estimated, see rm_timed */
static uint64_t start_ticks;
static double start_seconds;
static int dropped; /* samples lost because the table could not grow */

/* Open addressing on the world rank; grows at half full. */
static rm_peer* table;
static size_t capacity, used;

static uint64_t xorshift(uint64_t* s) {
  if (*s == 0) *s = 0x9E3779B97F4A7C15ull; /* a thread's first draw */
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

/* Calls up to and including the next timed one when each is timed with
 * probability 2^-SPARSE_SHIFT: a geometric draw, SPARSE_SHIFT random bits
 * per call. Once per timed call, so its loop costs little per call. */
static int sampling_gap(uint64_t* s) {
  const uint64_t mask = (1u << SPARSE_SHIFT) - 1;
  for (int n = 1; n < MAX_GAP;) {
    uint64_t r = xorshift(s);
    for (int i = 0; i < 64 / SPARSE_SHIFT; ++i, ++n, r >>= SPARSE_SHIFT)
      if ((r & mask) == 0) return n;
  }
  return MAX_GAP; /* (1 - 1/64)^30000: never */
}

void rm_timed(uint64_t t0, int wrapper) {
  rm_thread_state* s = &rm_self;
  rm_sampling* w = &s->sampling[wrapper];
  /* A sampled call that turns out long (a late peer, or the thread was
   * descheduled) counts once: weighed 2^shift, it would stand in for the
   * 63 short calls around it as 63 long ones (a 5 ms preemption became
   * 0.3 s). Those short calls go uncounted instead, at most 63 x
   * RM_LONG_TICKS, in practice 63 x a few hundred ns. */
  const uint64_t spent = rm_ticks() - t0;
  const uint64_t weighed = wrapper && spent <= RM_LONG_TICKS ? spent << w->shift : spent;
  /* A locked add costs as much as the clock: only threads need it. */
  if (multiple)
    __atomic_fetch_add(&mpi_ticks, weighed, __ATOMIC_RELAXED);
  else
    mpi_ticks += weighed;
  if (!wrapper) return;
  if (spent > RM_LONG_TICKS) {
    w->shift = 0, w->countdown = 1, w->short_run = 0;
  } else if (w->shift != 0 || ++w->short_run >= RM_SHORT_RUN) {
    w->shift = SPARSE_SHIFT, w->countdown = (int16_t)sampling_gap(&s->rng);
  } else {
    w->countdown = 1;
  }
}

static rm_peer* slot_of(rm_peer* t, size_t cap, int key) {
  size_t i = ((size_t)(unsigned)key * 0x9E3779B97F4A7C15ull) & (cap - 1);
  while (t[i].used && t[i].world != key) i = (i + 1) & (cap - 1);
  return &t[i];
}

static int grow(void) {
  const size_t cap = capacity ? capacity * 2 : 64;
  rm_peer* t = calloc(cap, sizeof *t);
  if (!t) return -1;
  for (size_t i = 0; i < capacity; ++i)
    if (table[i].used) *slot_of(t, cap, table[i].world) = table[i];
  free(table);
  table = t;
  capacity = cap;
  return 0;
}

/* The peer's slot, added if new; NULL when the table cannot grow. */
static rm_peer* peer(int world_dst) {
  if (2 * (used + 1) > capacity && grow() != 0) {
    dropped = 1;
    return NULL;
  }
  rm_peer* p = slot_of(table, capacity, world_dst);
  if (!p->used) p->used = 1, p->world = world_dst, ++used;
  return p;
}

void rm_count(rm_kind kind, int world_dst, uint64_t bytes, uint64_t msgs) {
  if (world_dst < 0 || !rm_profiling) return;
  if (multiple) pthread_mutex_lock(&lock);
  rm_peer* p = peer(world_dst);
  if (p) p->bytes[kind] += bytes, p->msgs[kind] += msgs;
  if (multiple) pthread_mutex_unlock(&lock);
}

/* Predefined types are never freed, so their sizes can be kept; a derived
 * type's handle may be reused after MPI_Type_free, so MPI is asked. */
enum { KNOWN_TYPES = 16 };
static MPI_Datatype known_type[KNOWN_TYPES];
static MPI_Count known_size[KNOWN_TYPES];

static void learn_predefined_sizes(void) {
  const MPI_Datatype types[KNOWN_TYPES] = {
      MPI_BYTE,          MPI_CHAR,      MPI_INT,           MPI_DOUBLE,  MPI_FLOAT,
      MPI_LONG,          MPI_UNSIGNED,  MPI_UNSIGNED_LONG, MPI_INT64_T, MPI_UINT64_T,
      MPI_INT32_T,       MPI_LONG_LONG, MPI_INTEGER,       MPI_REAL,    MPI_DOUBLE_PRECISION,
      MPI_DOUBLE_COMPLEX};
  for (int i = 0; i < KNOWN_TYPES; ++i) {
    known_type[i] = types[i];
    if (PMPI_Type_size_x(types[i], &known_size[i]) != MPI_SUCCESS || known_size[i] < 0)
      known_type[i] = MPI_DATATYPE_NULL;
  }
}

static int known(MPI_Datatype type) {
  for (int i = 0; i < KNOWN_TYPES; ++i)
    if (known_type[i] == type) return i;
  return -1;
}

uint64_t rm_bytes(MPI_Datatype type, MPI_Count count) {
  if (count <= 0 || type == MPI_DATATYPE_NULL) return 0;
  const int k = known(type);
  if (k >= 0) return (uint64_t)known_size[k] * (uint64_t)count;
  MPI_Count size = 0;
  if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0) return 0;
  return (uint64_t)size * (uint64_t)count;
}

/* The initial thread, when it started the profile and may cache sends. */
static rm_thread_state* caching_thread;

/* Moves a thread's pending repeats of its cached send into the table. */
static void flush_send_cache(rm_thread_state* s) {
  if (s->epoch != rm_cache_epoch || s->pending_msgs == 0) return;
  rm_peer* p = peer(s->last_dest); /* a world rank: the cache is for MPI_COMM_WORLD */
  if (p) p->bytes[RM_P2P] += s->pending_bytes, p->msgs[RM_P2P] += s->pending_msgs;
  s->pending_bytes = s->pending_msgs = 0;
}

void rm_count_send_slow(MPI_Comm comm, int dest, MPI_Datatype type, MPI_Count count) {
  if (count < 0 || !rm_profiling) return; /* an erroneous call sends nothing */
  const int world = rm_world_of(comm, dest);
  const uint64_t bytes = rm_bytes(type, count);
  if (world < 0) return;
  rm_thread_state* s = &rm_self;
  const int k = s == caching_thread && comm == MPI_COMM_WORLD ? known(type) : -1;
  if (k < 0) {
    rm_count(RM_P2P, world, bytes, 1);
    return;
  }
  flush_send_cache(s);
  s->epoch = rm_cache_epoch, s->last_dest = dest, s->last_type = type;
  s->last_size = (uint64_t)known_size[k];
  s->pending_bytes = bytes, s->pending_msgs = 1;
}

void rm_start(int thread_level) {
  /* Once per process: Fortran and C init may both come through here. */
  static int started;
  if (started) return;
  started = 1;
  multiple = thread_level == MPI_THREAD_MULTIPLE;
  rm_peers_init();
  rm_agree_start();
  rm_places_start();
  learn_predefined_sizes();
  start_seconds = now_seconds();
  start_ticks = rm_ticks();
  if (!multiple && gettid() == getpid()) caching_thread = &rm_self;
  rm_profiling = 1;
}

void rm_start_if_initialized(void) {
  int provided = MPI_THREAD_SINGLE, up = 0;
  PMPI_Initialized(&up);
  if (!up) return;
  PMPI_Query_thread(&provided);
  rm_start(provided);
}

static int by_world(const void* a, const void* b) {
  const rm_peer *x = a, *y = b;
  return (x->world > y->world) - (x->world < y->world);
}

void rm_stop_and_write(void) {
  if (!rm_profiling) return;
  if (caching_thread) flush_send_cache(caching_thread);
  if (++rm_cache_epoch == 0) ++rm_cache_epoch; /* no cached send counts any more */
  rm_profiling = 0;
  const double wall = now_seconds() - start_seconds;
  const uint64_t span = rm_ticks() - start_ticks;
  const double mpi = span ? wall * (double)mpi_ticks / (double)span : 0.0;
  /* Peers in rank order, as the profile lists them. */
  size_t n = 0;
  for (size_t i = 0; i < capacity; ++i)
    if (table[i].used) table[n++] = table[i];
  if (n > 0) qsort(table, n, sizeof *table, by_world); /* table is NULL when nothing was sent */
  const rm_call_table calls = rm_calls_take();
  rm_write_profile(table, n, &calls, wall, mpi < wall ? mpi : wall, dropped);
  rm_calls_free();
  free(table);
  table = NULL;
  capacity = used = 0;
}
