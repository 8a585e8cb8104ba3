/* Communicator management, timed and counting no traffic: a code that
 * makes and frees communicators in its loop spends MPI time there (a
 * Comm_split is an allgather inside the library), and p_mpi must show it.
 * Slots of freed communicators go back to calls.c through peers.c's
 * attribute destructor. */
#include "shim.h"

#define WRAP RM_WRAP
#define NONE (void)0

WRAP(Comm_dup, (MPI_Comm c, MPI_Comm* n), (c, n), NONE)
WRAP(Comm_dup_with_info, (MPI_Comm c, MPI_Info i, MPI_Comm* n), (c, i, n), NONE)
WRAP(Comm_idup, (MPI_Comm c, MPI_Comm* n, MPI_Request* r), (c, n, r), NONE)
WRAP(Comm_split, (MPI_Comm c, int color, int key, MPI_Comm* n), (c, color, key, n), NONE)
WRAP(Comm_split_type, (MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm* n), (c, type, key, i, n), NONE)
WRAP(Comm_create, (MPI_Comm c, MPI_Group g, MPI_Comm* n), (c, g, n), NONE)
WRAP(Comm_create_group, (MPI_Comm c, MPI_Group g, int tag, MPI_Comm* n), (c, g, tag, n), NONE)
WRAP(Comm_free, (MPI_Comm * c), (c), NONE)
