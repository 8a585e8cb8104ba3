/* The floor of any PMPI tool: wrappers that only forward to PMPI. Its cost
 * over calling PMPI directly is that of the interposition itself (one more
 * call through the PLT), which no profiling shim can go below. */
#include <mpi.h>

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return PMPI_Recv(buf, count, type, source, tag, comm, status);
}
