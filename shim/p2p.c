/* Point-to-point sends: bytes (type size x count) and one message per send,
 * to the destination's world rank. MPI_PROC_NULL is skipped; sends to self
 * are kept. Persistent and partitioned sends count at each MPI_Start. The
 * receive and completion calls are wrapped only to time them. */
#include <pthread.h>
#include <stdlib.h>

#include "shim.h"

/* ---- Persistent requests: request -> (peer, bytes), open addressing. ---- */

typedef struct {
  uintptr_t key; /* 0: empty */
  int world;
  uint64_t bytes;
} persistent;
static persistent* preq;
static size_t preq_cap, preq_used;
static pthread_mutex_t preq_lock = PTHREAD_MUTEX_INITIALIZER;

static uintptr_t key_of(MPI_Request r) { return (uintptr_t)r; }
static size_t home(uintptr_t key, size_t cap) { return (size_t)(key * 0x9E3779B97F4A7C15ull) & (cap - 1); }

static persistent* find(uintptr_t key) {
  if (!preq_cap) return NULL;
  for (size_t i = home(key, preq_cap);; i = (i + 1) & (preq_cap - 1)) {
    if (preq[i].key == key) return &preq[i];
    if (preq[i].key == 0) return NULL;
  }
}

static void insert(persistent p) {
  size_t i = home(p.key, preq_cap);
  while (preq[i].key != 0 && preq[i].key != p.key) i = (i + 1) & (preq_cap - 1);
  if (preq[i].key == 0) ++preq_used;
  preq[i] = p;
}

void rm_persistent_add(MPI_Request request, int world_dst, uint64_t bytes) {
  const uintptr_t key = key_of(request);
  if (key == 0 || key == key_of(MPI_REQUEST_NULL)) return;
  pthread_mutex_lock(&preq_lock);
  if (2 * (preq_used + 1) > preq_cap) {
    const size_t cap = preq_cap ? 2 * preq_cap : 64;
    persistent* old = preq;
    const size_t old_cap = preq_cap;
    persistent* t = calloc(cap, sizeof *t);
    if (t) {
      preq = t, preq_cap = cap, preq_used = 0;
      for (size_t i = 0; i < old_cap; ++i)
        if (old[i].key) insert(old[i]);
      free(old);
    }
  }
  if (2 * (preq_used + 1) <= preq_cap) insert((persistent){key, world_dst, bytes});
  pthread_mutex_unlock(&preq_lock);
}

void rm_persistent_start(MPI_Request request) {
  pthread_mutex_lock(&preq_lock);
  const persistent* p = find(key_of(request));
  const int found = p != NULL, world = p ? p->world : -1;
  const uint64_t bytes = p ? p->bytes : 0;
  pthread_mutex_unlock(&preq_lock);
  if (found) rm_count(RM_P2P, world, bytes, 1);
}

void rm_persistent_free(MPI_Request request) {
  pthread_mutex_lock(&preq_lock);
  persistent* p = find(key_of(request));
  if (p) {
    /* Backward-shift deletion keeps every probe sequence unbroken. */
    size_t i = (size_t)(p - preq);
    preq[i].key = 0;
    --preq_used;
    for (size_t j = (i + 1) & (preq_cap - 1); preq[j].key; j = (j + 1) & (preq_cap - 1)) {
      const persistent moved = preq[j];
      preq[j].key = 0;
      --preq_used;
      insert(moved);
    }
  }
  pthread_mutex_unlock(&preq_lock);
}

/* ---- Leaf wrappers. ----
 * The point-to-point, completion and probe calls are leaves: MPI libraries
 * implement them without calling back into the public MPI_ names. So an
 * untimed leaf call need not mark its thread as inside MPI, and its wrapper
 * is a fast path with no stack frame that ends in a tail call to PMPI: the
 * shim then costs little more than the interposition itself
 * (bench/shim_overhead.sh). The fast path counts with CACHED, an expression
 * that is 1 when it could count the call without a lookup; anything else
 * (COUNT, the timed call) is in out-of-line functions. A leaf called from
 * inside another MPI call is neither counted nor timed. */
#define LEAF(NAME, PARAMS, ARGS, CACHED, COUNT)                                       \
  enum { rm_wrapper_##NAME = 1 + __COUNTER__ };                                       \
  static __attribute__((noinline)) int rm_timed_##NAME PARAMS {                       \
    rm_thread_state* const rm_s = &rm_self;                                           \
    const uint64_t rm_t0 = rm_ticks();                                                \
    ++rm_s->depth;                                                                    \
    const int rm_rc = PMPI_##NAME ARGS;                                               \
    --rm_s->depth;                                                                    \
    rm_timed(rm_t0, rm_wrapper_##NAME);                                               \
    return rm_rc;                                                                     \
  }                                                                                   \
  static __attribute__((noinline, unused)) int rm_counted_##NAME PARAMS {             \
    COUNT;                                                                            \
    if (--rm_self.sampling[rm_wrapper_##NAME].countdown > 0) return PMPI_##NAME ARGS; \
    return rm_timed_##NAME ARGS;                                                      \
  }                                                                                   \
  __attribute__((hot)) int MPI_##NAME PARAMS {                                        \
    rm_thread_state* const rm_s = &rm_self;                                           \
    if (rm_s->depth != 0) return PMPI_##NAME ARGS;                                    \
    if (!(CACHED)) return rm_profiling ? rm_counted_##NAME ARGS : PMPI_##NAME ARGS;   \
    if (--rm_s->sampling[rm_wrapper_##NAME].countdown > 0) return PMPI_##NAME ARGS;   \
    return rm_timed_##NAME ARGS;                                                      \
  }

/* ---- Blocking and non-blocking sends. ---- */

#define SEND(NAME, COUNT_T)                                                                         \
  LEAF(NAME, (const void* buf, COUNT_T count, MPI_Datatype type, int dest, int tag, MPI_Comm comm), \
       (buf, count, type, dest, tag, comm), rm_count_send_cached(comm, dest, type, count),          \
       rm_count_send_slow(comm, dest, type, count))
#define ISEND(NAME, COUNT_T)                                                                                        \
  LEAF(NAME,                                                                                                        \
       (const void* buf, COUNT_T count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request), \
       (buf, count, type, dest, tag, comm, request), rm_count_send_cached(comm, dest, type, count),                 \
       rm_count_send_slow(comm, dest, type, count))
/* Persistent: counted at every Start, not here. */
#define SEND_INIT(NAME, COUNT_T)                                                                                    \
  int MPI_##NAME(const void* buf, COUNT_T count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,               \
                 MPI_Request* request) {                                                                            \
    RM_ENTER_SAMPLED;                                                                                               \
    const int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, request);                                         \
    if (rm_outer && rc == MPI_SUCCESS) rm_persistent_add(*request, rm_world_of(comm, dest), rm_bytes(type, count)); \
    RM_LEAVE;                                                                                                       \
    return rc;                                                                                                      \
  }

SEND(Send, int)
SEND(Bsend, int)
SEND(Ssend, int)
SEND(Rsend, int)
ISEND(Isend, int)
ISEND(Ibsend, int)
ISEND(Issend, int)
ISEND(Irsend, int)
SEND_INIT(Send_init, int)
SEND_INIT(Bsend_init, int)
SEND_INIT(Ssend_init, int)
SEND_INIT(Rsend_init, int)

LEAF(Sendrecv,
     (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf, int recvcount,
      MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status),
     (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status),
     rm_count_send_cached(comm, dest, sendtype, sendcount), rm_count_send_slow(comm, dest, sendtype, sendcount))
LEAF(Sendrecv_replace,
     (void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
      MPI_Status* status),
     (buf, count, type, dest, sendtag, source, recvtag, comm, status), rm_count_send_cached(comm, dest, type, count),
     rm_count_send_slow(comm, dest, type, count))

#if MPI_VERSION >= 4
/* MPI 4: large counts, non-blocking sendrecv, partitioned sends. */
SEND(Send_c, MPI_Count)
SEND(Bsend_c, MPI_Count)
SEND(Ssend_c, MPI_Count)
SEND(Rsend_c, MPI_Count)
ISEND(Isend_c, MPI_Count)
ISEND(Ibsend_c, MPI_Count)
ISEND(Issend_c, MPI_Count)
ISEND(Irsend_c, MPI_Count)
SEND_INIT(Send_init_c, MPI_Count)
SEND_INIT(Bsend_init_c, MPI_Count)
SEND_INIT(Ssend_init_c, MPI_Count)
SEND_INIT(Rsend_init_c, MPI_Count)

LEAF(Isendrecv,
     (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf, int recvcount,
      MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request* request),
     (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, request),
     rm_count_send_cached(comm, dest, sendtype, sendcount), rm_count_send_slow(comm, dest, sendtype, sendcount))
LEAF(Isendrecv_replace,
     (void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
      MPI_Request* request),
     (buf, count, type, dest, sendtag, source, recvtag, comm, request), rm_count_send_cached(comm, dest, type, count),
     rm_count_send_slow(comm, dest, type, count))

int MPI_Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  RM_ENTER_SAMPLED;
  const int rc = PMPI_Psend_init(buf, partitions, count, type, dest, tag, comm, info, request);
  if (rm_outer && rc == MPI_SUCCESS)
    rm_persistent_add(*request, rm_world_of(comm, dest), (uint64_t)partitions * rm_bytes(type, count));
  RM_LEAVE;
  return rc;
}
#endif

/* Persistent starts look their request up under a lock: never cached. */
LEAF(Start, (MPI_Request * request), (request), 0, rm_persistent_start(*request))
LEAF(Startall, (int count, MPI_Request requests[]), (count, requests), 0,
     for (int i = 0; i < count; ++i) rm_persistent_start(requests[i]))

int MPI_Request_free(MPI_Request* request) {
  RM_ENTER_SAMPLED;
  if (request) rm_persistent_free(*request);
  const int rc = PMPI_Request_free(request);
  RM_LEAVE;
  return rc;
}

/* ---- Timed only. ---- */

#define TIMED(NAME, PARAMS, ARGS) LEAF(NAME, PARAMS, ARGS, rm_profiling, (void)0)

TIMED(Recv, (void* b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Status* st),
      (b, c, t, s, tag, comm, st))
TIMED(Irecv, (void* b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Request* r),
      (b, c, t, s, tag, comm, r))
TIMED(Wait, (MPI_Request * r, MPI_Status* st), (r, st))
TIMED(Waitall, (int n, MPI_Request r[], MPI_Status st[]), (n, r, st))
TIMED(Waitany, (int n, MPI_Request r[], int* i, MPI_Status* st), (n, r, i, st))
TIMED(Waitsome, (int n, MPI_Request r[], int* o, int i[], MPI_Status st[]), (n, r, o, i, st))
TIMED(Test, (MPI_Request * r, int* f, MPI_Status* st), (r, f, st))
TIMED(Testall, (int n, MPI_Request r[], int* f, MPI_Status st[]), (n, r, f, st))
TIMED(Testany, (int n, MPI_Request r[], int* i, int* f, MPI_Status* st), (n, r, i, f, st))
TIMED(Testsome, (int n, MPI_Request r[], int* o, int i[], MPI_Status st[]), (n, r, o, i, st))
TIMED(Probe, (int s, int tag, MPI_Comm comm, MPI_Status* st), (s, tag, comm, st))
TIMED(Iprobe, (int s, int tag, MPI_Comm comm, int* f, MPI_Status* st), (s, tag, comm, f, st))
TIMED(Mprobe, (int s, int tag, MPI_Comm comm, MPI_Message* m, MPI_Status* st), (s, tag, comm, m, st))
TIMED(Improbe, (int s, int tag, MPI_Comm comm, int* f, MPI_Message* m, MPI_Status* st), (s, tag, comm, f, m, st))
TIMED(Mrecv, (void* b, int c, MPI_Datatype t, MPI_Message* m, MPI_Status* st), (b, c, t, m, st))
TIMED(Imrecv, (void* b, int c, MPI_Datatype t, MPI_Message* m, MPI_Request* r), (b, c, t, m, r))

_Static_assert(__COUNTER__ < RM_SAMPLED_WRAPPERS, "more sampled wrappers than rm_thread_state holds");
