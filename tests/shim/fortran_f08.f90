! The same traffic as fortran_mpif.f90, through the mpi_f08 bindings.
program fortran_f08
  use mpi_f08
  implicit none
  integer :: rank, nranks, right, left
  type(MPI_Request) :: req
  double precision :: a(10), b(10)
  integer :: ia(3), ib(3)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  a = 1.0d0
  ia = 1
  call MPI_Irecv(b, 10, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req)
  call MPI_Send(a, 10, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_Isend(ia, 3, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req)
  call MPI_Recv(ib, 3, MPI_INTEGER, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_Allreduce(a, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Bcast(a, 5, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program fortran_f08
