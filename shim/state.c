/* The profile being collected on this rank: traffic per world peer, time in
 * MPI, and the wall-clock span between MPI_Init and MPI_Finalize. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shim.h"
#include "write_profile.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* The time-stamp counter costs a few nanoseconds where clock_gettime costs
 * twenty; a ping-pong of 8 bytes cannot afford two of the latter per call.
 * Ticks are converted with the rate measured between start and stop. */
static inline uint64_t ticks(void) { return __rdtsc(); }
#else
static inline uint64_t ticks(void) {
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

static __thread int depth __attribute__((tls_model("initial-exec")));

static int active;
static int multiple;  /* MPI_THREAD_MULTIPLE: the table needs the lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t mpi_ticks;
static uint64_t start_ticks;
static double start_seconds;
static int dropped;   /* samples lost because the table could not grow */

/* Open addressing on the world rank; grows at half full. */
static rm_peer* table;
static size_t capacity, used;

int rm_active(void) { return active; }

int rm_enter(uint64_t* t0) {
  if (depth++ != 0 || !active) return 0;
  *t0 = ticks();
  return 1;
}

void rm_leave(int outer, uint64_t t0) {
  --depth;
  if (!outer) return;
  const uint64_t spent = ticks() - t0;
  /* A locked add costs as much as the clock: only threads need it. */
  if (multiple) __atomic_fetch_add(&mpi_ticks, spent, __ATOMIC_RELAXED);
  else mpi_ticks += spent;
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

void rm_count(rm_kind kind, int world_dst, uint64_t bytes, uint64_t msgs) {
  if (world_dst < 0 || !active) return;
  if (multiple) pthread_mutex_lock(&lock);
  if (2 * (used + 1) > capacity && grow() != 0) {
    dropped = 1;
  } else {
    rm_peer* p = slot_of(table, capacity, world_dst);
    if (!p->used) p->used = 1, p->world = world_dst, ++used;
    p->bytes[kind] += bytes;
    p->msgs[kind] += msgs;
  }
  if (multiple) pthread_mutex_unlock(&lock);
}

uint64_t rm_bytes(MPI_Datatype type, MPI_Count count) {
  MPI_Count size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0) return 0;
  return (uint64_t)size * (uint64_t)count;
}

void rm_start(int thread_level) {
  /* Once per process: Fortran and C init may both come through here. */
  static int started;
  if (started) return;
  started = 1;
  multiple = thread_level == MPI_THREAD_MULTIPLE;
  rm_peers_init();
  start_seconds = now_seconds();
  start_ticks = ticks();
  active = 1;
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
  if (!active) return;
  active = 0;
  const double wall = now_seconds() - start_seconds;
  const uint64_t span = ticks() - start_ticks;
  const double mpi = span ? wall * (double)mpi_ticks / (double)span : 0.0;
  /* Peers in rank order, as the profile lists them. */
  size_t n = 0;
  for (size_t i = 0; i < capacity; ++i)
    if (table[i].used) table[n++] = table[i];
  qsort(table, n, sizeof *table, by_world);
  rm_write_profile(table, n, wall, mpi < wall ? mpi : wall, dropped);
  free(table);
  table = NULL;
  capacity = used = 0;
}
