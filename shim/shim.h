/* Internal to the PMPI shim: what the wrappers share.
 *
 * Every wrapper follows one pattern: RM_ENTER, count the call's traffic if
 * this is the outermost MPI call of the thread (an MPI call the library makes
 * internally through the public name is neither counted nor timed twice),
 * call PMPI, RM_LEAVE. Counting never fails the application: a table that
 * cannot grow drops the sample and the profile says so. */
#ifndef RANKMAP_SHIM_H
#define RANKMAP_SHIM_H

#include <mpi.h>
#include <stdint.h>

typedef enum { RM_P2P = 0, RM_COLL = 1, RM_RMA = 2, RM_KINDS = 3 } rm_kind;

/* Internal symbols are hidden: calls between the shim's files are direct,
 * not through the PLT, and only MPI's names are exported. */
#pragma GCC visibility push(hidden)

/* Time and nesting, inline because they run on every MPI call.
 *
 * Collectives, one-sided and Fortran calls are timed every time. The C
 * point-to-point, completion and test calls (p2p.c's leaf wrappers) can
 * last 200 ns, where two time stamps cost 26 ns (13 each here), so they
 * are timed by random sampling, each wrapper on its own: a call is timed
 * with probability 2^-shift and weighs 2^shift, which keeps the sum an
 * unbiased estimate (but for a sampled call that turns out long: it
 * weighs 1, state.c). A wrapper times every call (shift 0) at first and
 * after any that lasted over RM_LONG_TICKS, and samples one in 64 only
 * after RM_SHORT_RUN short calls in a row (state.c). So calls that wait now
 * and then (a Recv or Wait that meets a late peer) stay exactly timed, and
 * only streams of short calls, where the stamps would be the cost, are
 * sampled. */
/* Traffic to one world peer (state.c keeps a table of them). */
typedef struct {
  int used;
  int world;
  uint64_t bytes[RM_KINDS];
  uint64_t msgs[RM_KINDS];
} rm_peer;

typedef struct {
  int16_t countdown; /* calls until the next timed one */
  uint8_t shift;     /* a timed call weighs 2^shift */
  uint8_t short_run; /* timed short calls in a row */
} rm_sampling;
enum { RM_SAMPLED_WRAPPERS = 64 };

typedef struct {
  /* The fields every leaf call reads come first, with the sampling state
   * of the first wrappers (the sends): one cache line per call. */
  int depth; /* MPI calls of this thread in progress */
  /* The send cache: the thread's last send, when it went on MPI_COMM_WORLD
   * with a predefined type. Repeats of it add to pending_* here, not to the
   * table, until another send or the end of the profile moves them there.
   * Valid while epoch == rm_cache_epoch. Only the process's initial thread
   * caches, when it started the profile and not under
   * MPI_THREAD_MULTIPLE: its state outlives every other thread, so the end
   * of the profile can always flush it. */
  unsigned epoch;
  int last_dest;
  MPI_Datatype last_type;
  uint64_t last_size;
  uint64_t pending_bytes, pending_msgs;
  uint64_t rng;                              /* xorshift state for the sampling gaps */
  rm_sampling sampling[RM_SAMPLED_WRAPPERS]; /* [0]: unused */
} __attribute__((aligned(64))) rm_thread_state;
extern __thread rm_thread_state rm_self __attribute__((tls_model("initial-exec")));
extern int rm_profiling;        /* between MPI_Init and MPI_Finalize */
extern unsigned rm_cache_epoch; /* never 0; moves when the profile ends */

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* The time-stamp counter costs a few nanoseconds where clock_gettime costs
 * twenty. Ticks are converted with the rate measured between start and
 * stop. */
static inline uint64_t rm_ticks(void) { return __rdtsc(); }
#else
uint64_t rm_ticks(void); /* clock_gettime, in ns */
#endif
__attribute__((cold)) void rm_timed(uint64_t t0, int wrapper); /* adds a timed call */

enum { RM_UNTIMED = -1, RM_NESTED = -2 };
/* RM_NESTED when nested or not profiling, RM_UNTIMED when not sampled, else
 * timed: the wrapper's number (0: always timed). */
static inline int rm_enter(uint64_t* t0, int wrapper) {
  rm_thread_state* s = &rm_self;
  if (s->depth++ != 0 || !rm_profiling) return RM_NESTED;
  if (wrapper && --s->sampling[wrapper].countdown > 0) return RM_UNTIMED;
  *t0 = rm_ticks();
  return wrapper;
}
static inline void rm_leave(int outer, uint64_t t0) {
  --rm_self.depth;
  if (outer >= 0) rm_timed(t0, outer);
}
#define RM_ENTER_AS(WRAPPER)                       \
  uint64_t rm_t0 = 0;                              \
  const int rm_timing = rm_enter(&rm_t0, WRAPPER); \
  const int rm_outer __attribute__((unused)) = rm_timing != RM_NESTED
#define RM_ENTER RM_ENTER_AS(0)
/* Each use takes a number of its own (p2p.c checks there are enough). */
#define RM_ENTER_SAMPLED RM_ENTER_AS(1 + __COUNTER__)
#define RM_LEAVE rm_leave(rm_timing, rm_t0)

/* A C wrapper: COUNT (one expression) when outermost, then PMPI_NAME. */
#define RM_WRAP(NAME, PARAMS, ARGS, COUNT) \
  int MPI_##NAME PARAMS {                  \
    RM_ENTER;                              \
    if (rm_outer) COUNT;                   \
    const int rc = PMPI_##NAME ARGS;       \
    RM_LEAVE;                              \
    return rc;                             \
  }

/* Where processes run (places.c), for reorder.c. */
enum { RM_HOST_MAX = 256 };
typedef struct {
  char host[RM_HOST_MAX]; /* RANKMAP_HOST, or MPI_Get_processor_name */
  int cpu;                /* first CPU of the binding, -1 when bound to every CPU */
} rm_place;
void rm_my_place(rm_place* place);
/* node[p]: the number of places[p]'s host in order of first appearance;
 * *hosts: those hosts as a comma list (malloc'd). Returns how many hosts,
 * or -1 out of memory. */
int rm_number_hosts(rm_place* places, int n, int32_t* node, char** hosts);
/* At MPI_Init, by every process (agree.c): the shim's own duplicate of
 * MPI_COMM_WORLD, on which it makes every collective of its own, and the
 * machine file's text when every process names the same one (else NULL:
 * no reordering). */
extern MPI_Comm rm_private_world;
extern const char* rm_machine_text;
void rm_agree_start(void);
/* When the processes agreed on a machine, learns every world process's
 * place; collective over rm_private_world, once, at MPI_Init. */
void rm_places_start(void);
extern double rm_places_seconds; /* what it took */
/* The same as rm_number_hosts for the `size` processes of comm, with their
 * CPUs, from what rm_places_start learnt, without communicating; -1 when
 * it learnt nothing or out of memory. */
int rm_places_of(MPI_Comm comm, int size, int32_t* node, int32_t* cpu, char** hosts);

/* Life cycle (state.c): started after MPI_Init, stopped in MPI_Finalize. */
void rm_start(int thread_level);
void rm_start_if_initialized(void); /* after a Fortran init */
void rm_stop_and_write(void);
static inline int rm_active(void) { return rm_profiling; }

/* Traffic to a world rank (no-op for a negative rank). */
void rm_count(rm_kind kind, int world_dst, uint64_t bytes, uint64_t msgs);
/* Bytes of count elements; the sizes of the common predefined types are
 * looked up without calling MPI. */
uint64_t rm_bytes(MPI_Datatype type, MPI_Count count);

/* A point-to-point send of count elements of type to dest of comm. */
__attribute__((cold)) void rm_count_send_slow(MPI_Comm comm, int dest, MPI_Datatype type, MPI_Count count);
/* Counts the send if it repeats the thread's cached one (same world peer
 * and predefined type) and returns 1; else returns 0 and counts nothing:
 * then rm_count_send_slow counts it. */
static inline int rm_count_send_cached(MPI_Comm comm, int dest, MPI_Datatype type, MPI_Count count) {
  rm_thread_state* s = &rm_self;
  if (s->epoch != rm_cache_epoch || dest != s->last_dest || type != s->last_type || comm != MPI_COMM_WORLD || count < 0)
    return 0;
  s->pending_bytes += s->last_size * (uint64_t)count;
  s->pending_msgs += 1;
  return 1;
}

/* Ranks (peers.c). A communicator's ranks as world ranks: its local group,
 * or for an inter-communicator its remote group (where sends go). */
typedef struct {
  int size;       /* of the group that ranks refer to */
  int local_rank; /* this process in the local group */
  int local_size;
  int is_inter;
  const int* world; /* world rank of each rank of that group */
} rm_comm_info;
int rm_comm(MPI_Comm comm, rm_comm_info* info); /* 0 on success */
/* The same, and where the communicator keeps its call slot (calls.c); NULL
 * for MPI_COMM_WORLD, which keeps none. */
int rm_comm_cached(MPI_Comm comm, rm_comm_info* info, int** slot);
int rm_world_of_slow(MPI_Comm comm, int rank);
extern int rm_world_size;
/* -1: PROC_NULL or unknown. MPI_COMM_WORLD, the common case, needs no table. */
static inline int rm_world_of(MPI_Comm comm, int rank) {
  if (comm == MPI_COMM_WORLD) return rank >= 0 && rank < rm_world_size ? rank : -1;
  return rm_world_of_slow(comm, rank);
}
int rm_win_world_of(MPI_Win win, int rank);
void rm_peers_init(void);

/* Persistent requests (p2p.c): what Start must count. */
void rm_persistent_add(MPI_Request request, int world_dst, uint64_t bytes);
void rm_persistent_start(MPI_Request request);
void rm_persistent_free(MPI_Request request);

/* Collective models (collectives.c), from the calling rank's view. */
void rm_model_bcast(MPI_Comm comm, int root, uint64_t bytes);
void rm_model_reduce(MPI_Comm comm, int root, uint64_t bytes);
void rm_model_allreduce(MPI_Comm comm, uint64_t bytes);
void rm_model_gather(MPI_Comm comm, int root, uint64_t bytes);
void rm_model_scatterv(MPI_Comm comm, int root, const uint64_t* bytes_to); /* bytes_to[size] at root, else NULL */
void rm_model_scatter(MPI_Comm comm, int root, uint64_t bytes_each);
void rm_model_allgatherv(MPI_Comm comm, const uint64_t* block); /* block[size]; intra-communicators */
void rm_model_allgather(MPI_Comm comm, uint64_t bytes_each);
void rm_model_alltoall_to(MPI_Comm comm, const uint64_t* bytes_to); /* bytes_to[size] */
void rm_model_alltoall(MPI_Comm comm, uint64_t bytes_each);
/* block[size], or NULL when every block has `equal` bytes. */
void rm_model_reduce_scatter(MPI_Comm comm, const uint64_t* block, uint64_t equal);
void rm_model_scan(MPI_Comm comm, uint64_t bytes, int exclusive);
void rm_model_barrier(MPI_Comm comm);
/* What a collective call sends (collectives.c), from its arguments as the C
 * wrappers get them; the Fortran wrappers convert theirs and call these. */
void rm_coll_gather(MPI_Comm comm, int root, int sendcount, MPI_Datatype sendtype);
void rm_coll_scatterv(MPI_Comm comm, int root, const int* sendcounts, MPI_Datatype sendtype);
void rm_coll_allgather(MPI_Comm comm, int sendcount, MPI_Datatype sendtype, int count, MPI_Datatype type);
void rm_coll_allgatherv(MPI_Comm comm, int sendcount, MPI_Datatype sendtype, const int* counts, MPI_Datatype type);
/* Alltoallv when the type arrays are NULL, alltoallw otherwise. */
void rm_coll_alltoallw(MPI_Comm comm, int in_place, const int* scounts, const MPI_Datatype* stypes, MPI_Datatype stype,
                       const int* rcounts, const MPI_Datatype* rtypes, MPI_Datatype rtype);
void rm_coll_reduce_scatter(MPI_Comm comm, const int* counts, MPI_Datatype type);
void rm_coll_neighbours(MPI_Comm comm, uint64_t bytes_each);
void rm_coll_neighbours_v(MPI_Comm comm, const int* counts, MPI_Datatype type);
void rm_coll_neighbours_w(MPI_Comm comm, const int* counts, const MPI_Datatype* types);
/* One-sided (rma.c): count elements of type to a window rank. */
void rm_count_rma(MPI_Win win, int target, MPI_Datatype type, int count);

/* Collective calls by algorithm, communicator slot and round (calls.c). A
 * model starts each call with rm_call_begin (the algorithm's name, as the
 * profile writes it), then adds each of its sends with rm_call_step_to. */
typedef struct {
  const char* algorithm;
  int slot; /* the communicator's number on this rank */
  uint64_t calls;
  uint64_t first; /* this rank's collective call number at the first call */
} rm_call_group;
typedef struct {
  int used, group, round, world;
  uint64_t bytes, msgs;
} rm_call_step;
typedef struct {
  const rm_call_group* groups;
  int group_count;
  const rm_call_step* steps; /* by group, round, peer */
  size_t step_count;
  int complete; /* 0: some calls were left out */
} rm_call_table;
void rm_call_begin(MPI_Comm comm, const char* algorithm);
void rm_call_step_to(int round, int world_dst, uint64_t bytes);
rm_call_table rm_calls_take(void); /* at the end of the profile */
void rm_calls_free(void);
/* A freed communicator's slot (-1: it had none), for the next one to take. */
void rm_call_slot_free(int slot);

/* Reordered communicators freed unused (reorder_watch.c): the job stops
 * rather than hang. rm_watch_reordered is collective over `made`; it keeps
 * *spare (a duplicate of the shim's own with made's processes; then set to
 * MPI_COMM_NULL) rather than make one. Any call that communicates on a
 * communicator, or derives one from it, touches it. */
void rm_watch_reordered(MPI_Comm made, MPI_Comm* spare);
extern int rm_watching;
void rm_reorder_touch_slow(MPI_Comm comm);
static inline void rm_reorder_touch(MPI_Comm comm) {
  if (rm_watching) rm_reorder_touch_slow(comm);
}

/* Neighbourhood: out-neighbours of a topology communicator. */
int rm_out_neighbours(MPI_Comm comm, int** out, int* count); /* caller frees *out */

#pragma GCC visibility pop

#endif
