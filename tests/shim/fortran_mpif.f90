! Known traffic through the mpif.h bindings (tests/shim/check_profile.py,
! program "fortran"): Send 10 doubles and Isend 3 integers to the right,
! Allreduce of 4 doubles, Bcast of 5 doubles from rank 0, a Barrier.
program fortran_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nranks, right, left, req
  integer :: status(MPI_STATUS_SIZE)
  double precision :: a(10), b(10)
  integer :: ia(3), ib(3)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  a = 1.0d0
  ia = 1
  call MPI_Irecv(b, 10, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req, ierr)
  call MPI_Send(a, 10, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Isend(ia, 3, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req, ierr)
  call MPI_Recv(ib, 3, MPI_INTEGER, left, 2, MPI_COMM_WORLD, status, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Allreduce(a, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(a, 5, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program fortran_mpif
