/* Collective calls by algorithm, communicator and round: what the gain
 * model needs to replay collectives as the MPI library runs them (rounds
 * one after another, all the ranks of one round at once), where the
 * per-peer totals of state.c only say who sent whom how much.
 *
 * A group is one algorithm of models.c on one communicator slot: the slots
 * number a rank's communicators in the order of their first collective, so
 * that in an SPMD code slot k is "the same" communicator on every rank (the
 * row communicator of a 2D decomposition on each rank of it). A group
 * counts its calls, the rank's call number at its first call (the order of
 * the groups in an iteration), and its sends per round and world peer.
 * Tables are bounded: past RM_MAX_GROUPS groups, or when memory runs out,
 * calls are left out here (the per-peer totals still have them) and the
 * profile says so ("calls_complete 0"). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

enum { RM_MAX_GROUPS = 256 };

static rm_call_group groups[RM_MAX_GROUPS];
static int group_count;
static uint64_t calls_so_far; /* this rank's collective calls */
static int incomplete;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int world_slot = -1, next_slot;
/* Slots of freed communicators, reused smallest first: a code that dups and
 * frees a communicator every iteration numbers it alike on every rank, and
 * its calls join one group instead of filling the table. */
static int free_slots[RM_MAX_GROUPS], free_count;

/* Open addressing on (group, round, peer); grows at half full. */
static rm_call_step* steps;
static size_t capacity, used;

/* The group of the thread's current call; -1 when it is not recorded. */
static __thread int current = -1;

/* The communicator's slot, numbered at its first collective (under lock). */
static int comm_slot(MPI_Comm comm, int* cached_slot) {
  int* slot = comm == MPI_COMM_WORLD ? &world_slot : cached_slot;
  if (!slot) return -1;
  if (*slot >= 0) return *slot;
  if (free_count == 0) return *slot = next_slot++;
  int smallest = 0;
  for (int i = 1; i < free_count; ++i)
    if (free_slots[i] < free_slots[smallest]) smallest = i;
  *slot = free_slots[smallest];
  free_slots[smallest] = free_slots[--free_count];
  return *slot;
}

void rm_call_slot_free(int slot) {
  if (slot < 0) return;
  pthread_mutex_lock(&lock);
  /* Past the table's size a slot is simply not reused. */
  if (free_count < RM_MAX_GROUPS) free_slots[free_count++] = slot;
  pthread_mutex_unlock(&lock);
}

void rm_call_begin(MPI_Comm comm, const char* algorithm) {
  current = -1;
  if (!rm_active()) return;
  rm_comm_info c;
  int* cached_slot = NULL;
  if (rm_comm_cached(comm, &c, &cached_slot) != 0) return;
  pthread_mutex_lock(&lock);
  const int slot = comm_slot(comm, cached_slot);
  const uint64_t call = calls_so_far++;
  int g = 0;
  while (g < group_count && (groups[g].slot != slot || strcmp(groups[g].algorithm, algorithm) != 0)) ++g;
  if (g == group_count) {
    if (group_count == RM_MAX_GROUPS || slot < 0) {
      incomplete = 1;
      pthread_mutex_unlock(&lock);
      return;
    }
    groups[g] = (rm_call_group){algorithm, slot, 0, call};
    ++group_count;
  }
  ++groups[g].calls;
  current = g;
  pthread_mutex_unlock(&lock);
}

static size_t hash(int group, int round, int peer) {
  uint64_t k = ((uint64_t)(unsigned)group << 48) ^ ((uint64_t)(unsigned)round << 32) ^ (uint64_t)(unsigned)peer;
  return (size_t)(k * 0x9E3779B97F4A7C15ull);
}

static rm_call_step* find(rm_call_step* t, size_t cap, int group, int round, int peer) {
  size_t i = hash(group, round, peer) & (cap - 1);
  while (t[i].used && (t[i].group != group || t[i].round != round || t[i].world != peer)) i = (i + 1) & (cap - 1);
  return &t[i];
}

static int grow(void) {
  const size_t cap = capacity ? capacity * 2 : 64;
  rm_call_step* t = calloc(cap, sizeof *t);
  if (!t) return -1;
  for (size_t i = 0; i < capacity; ++i)
    if (steps[i].used) *find(t, cap, steps[i].group, steps[i].round, steps[i].world) = steps[i];
  free(steps);
  steps = t;
  capacity = cap;
  return 0;
}

void rm_call_step_to(int round, int world_dst, uint64_t bytes) {
  if (current < 0 || world_dst < 0 || !rm_active()) return;
  pthread_mutex_lock(&lock);
  if (2 * (used + 1) > capacity && grow() != 0) {
    incomplete = 1;
  } else {
    rm_call_step* s = find(steps, capacity, current, round, world_dst);
    if (!s->used) *s = (rm_call_step){1, current, round, world_dst, 0, 0}, ++used;
    s->bytes += bytes, s->msgs += 1;
  }
  pthread_mutex_unlock(&lock);
}

static int by_group_round_peer(const void* a, const void* b) {
  const rm_call_step *x = a, *y = b;
  if (x->group != y->group) return (x->group > y->group) - (x->group < y->group);
  if (x->round != y->round) return (x->round > y->round) - (x->round < y->round);
  return (x->world > y->world) - (x->world < y->world);
}

rm_call_table rm_calls_take(void) {
  size_t n = 0;
  for (size_t i = 0; i < capacity; ++i)
    if (steps[i].used) steps[n++] = steps[i];
  if (n > 0) qsort(steps, n, sizeof *steps, by_group_round_peer);
  rm_call_table t = {groups, group_count, steps, n, !incomplete};
  return t;
}

void rm_calls_free(void) {
  free(steps);
  steps = NULL;
  capacity = used = 0;
  group_count = 0;
}
