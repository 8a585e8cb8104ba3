/* One-sided communication, counted per target as RMA traffic: the bytes of
 * the origin buffer for Put and Accumulate, of the target data for Get
 * (they cross the same pair of nodes), one message per call. */
#include "shim.h"

void rm_count_rma(MPI_Win win, int target, MPI_Datatype type, int count) {
  rm_count(RM_RMA, rm_win_world_of(win, target), rm_bytes(type, count), 1);
}

#define WRAP RM_WRAP
#define TIMED(NAME, PARAMS, ARGS) WRAP(NAME, PARAMS, ARGS, (void)0)

WRAP(Put, (const void* o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt, MPI_Win w),
     (o, on, ot, tr, td, tn, tt, w), rm_count_rma(w, tr, ot, on))
WRAP(Rput,
     (const void* o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt, MPI_Win w, MPI_Request* r),
     (o, on, ot, tr, td, tn, tt, w, r), rm_count_rma(w, tr, ot, on))
WRAP(Get, (void* o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt, MPI_Win w),
     (o, on, ot, tr, td, tn, tt, w), rm_count_rma(w, tr, tt, tn))
WRAP(Rget, (void* o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt, MPI_Win w, MPI_Request* r),
     (o, on, ot, tr, td, tn, tt, w, r), rm_count_rma(w, tr, tt, tn))
WRAP(Accumulate,
     (const void* o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt, MPI_Op op, MPI_Win w),
     (o, on, ot, tr, td, tn, tt, op, w), rm_count_rma(w, tr, ot, on))
WRAP(Raccumulate,
     (const void* o, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt, MPI_Op op, MPI_Win w,
      MPI_Request* r),
     (o, on, ot, tr, td, tn, tt, op, w, r), rm_count_rma(w, tr, ot, on))
WRAP(Get_accumulate,
     (const void* o, int on, MPI_Datatype ot, void* res, int rn, MPI_Datatype rt, int tr, MPI_Aint td, int tn,
      MPI_Datatype tt, MPI_Op op, MPI_Win w),
     (o, on, ot, res, rn, rt, tr, td, tn, tt, op, w), rm_count_rma(w, tr, tt, tn))
WRAP(Rget_accumulate,
     (const void* o, int on, MPI_Datatype ot, void* res, int rn, MPI_Datatype rt, int tr, MPI_Aint td, int tn,
      MPI_Datatype tt, MPI_Op op, MPI_Win w, MPI_Request* r),
     (o, on, ot, res, rn, rt, tr, td, tn, tt, op, w, r), rm_count_rma(w, tr, tt, tn))
WRAP(Fetch_and_op, (const void* o, void* res, MPI_Datatype t, int tr, MPI_Aint td, MPI_Op op, MPI_Win w),
     (o, res, t, tr, td, op, w), rm_count_rma(w, tr, t, 1))
WRAP(Compare_and_swap, (const void* o, const void* cmp, void* res, MPI_Datatype t, int tr, MPI_Aint td, MPI_Win w),
     (o, cmp, res, t, tr, td, w), rm_count_rma(w, tr, t, 1))

TIMED(Win_fence, (int a, MPI_Win w), (a, w))
TIMED(Win_lock, (int l, int r, int a, MPI_Win w), (l, r, a, w))
TIMED(Win_unlock, (int r, MPI_Win w), (r, w))
TIMED(Win_lock_all, (int a, MPI_Win w), (a, w))
TIMED(Win_unlock_all, (MPI_Win w), (w))
TIMED(Win_flush, (int r, MPI_Win w), (r, w))
TIMED(Win_flush_all, (MPI_Win w), (w))
TIMED(Win_start, (MPI_Group g, int a, MPI_Win w), (g, a, w))
TIMED(Win_complete, (MPI_Win w), (w))
TIMED(Win_post, (MPI_Group g, int a, MPI_Win w), (g, a, w))
TIMED(Win_wait, (MPI_Win w), (w))
