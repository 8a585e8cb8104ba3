/* Start after MPI_Init (the translation tables need MPI), write the profile
 * at MPI_Finalize while MPI still works. */
#include "shim.h"

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) {
    int provided = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&provided);
    rm_start(provided);
  }
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) rm_start(*provided);
  return rc;
}

int MPI_Finalize(void) {
  rm_stop_and_write();
  return PMPI_Finalize();
}
