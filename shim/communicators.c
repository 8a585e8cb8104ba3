/* Communicator management, timed and counting no traffic: a code that
 * makes and frees communicators in its loop spends MPI time there (a
 * Comm_split is an allgather inside the library), and p_mpi must show it.
 * Slots of freed communicators go back to calls.c through peers.c's
 * attribute destructor. A communicator, group or window made from a
 * reordered communicator uses its ranks (reorder_watch.c). */
#include "shim.h"

#define WRAP RM_WRAP
#define NONE (void)0
#define USES(C) rm_reorder_touch(C)

WRAP(Comm_dup, (MPI_Comm c, MPI_Comm* n), (c, n), USES(c))
WRAP(Comm_dup_with_info, (MPI_Comm c, MPI_Info i, MPI_Comm* n), (c, i, n), USES(c))
WRAP(Comm_idup, (MPI_Comm c, MPI_Comm* n, MPI_Request* r), (c, n, r), USES(c))
WRAP(Comm_split, (MPI_Comm c, int color, int key, MPI_Comm* n), (c, color, key, n), USES(c))
WRAP(Comm_split_type, (MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm* n), (c, type, key, i, n), USES(c))
WRAP(Comm_create, (MPI_Comm c, MPI_Group g, MPI_Comm* n), (c, g, n), USES(c))
WRAP(Comm_create_group, (MPI_Comm c, MPI_Group g, int tag, MPI_Comm* n), (c, g, tag, n), USES(c))
WRAP(Comm_free, (MPI_Comm * c), (c), NONE)
WRAP(Comm_group, (MPI_Comm c, MPI_Group* g), (c, g), USES(c))
WRAP(Cart_sub, (MPI_Comm c, const int* keep, MPI_Comm* n), (c, keep, n), USES(c))
WRAP(Intercomm_create, (MPI_Comm l, int ll, MPI_Comm p, int pl, int tag, MPI_Comm* n), (l, ll, p, pl, tag, n),
     (USES(l), USES(p)))
WRAP(Win_create, (void* b, MPI_Aint s, int u, MPI_Info i, MPI_Comm c, MPI_Win* w), (b, s, u, i, c, w), USES(c))
WRAP(Win_allocate, (MPI_Aint s, int u, MPI_Info i, MPI_Comm c, void* b, MPI_Win* w), (s, u, i, c, b, w), USES(c))
WRAP(Win_allocate_shared, (MPI_Aint s, int u, MPI_Info i, MPI_Comm c, void* b, MPI_Win* w), (s, u, i, c, b, w), USES(c))
WRAP(Win_create_dynamic, (MPI_Info i, MPI_Comm c, MPI_Win* w), (i, c, w), USES(c))
