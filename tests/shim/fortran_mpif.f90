! Known traffic through the mpif.h bindings (tests/shim/check_profile.py,
! program "fortran", which needs 4 ranks):
!   Send 10 doubles and Isend 3 integers to the right; Allreduce of 4 doubles;
!   Bcast of 5 doubles from rank 0; a Barrier;
!   Gatherv of 2 integers to rank 1; Scatterv of i+1 doubles to rank i from 2;
!   Allgatherv of i+2 integers from rank i; Alltoallw of j+1 integers to j;
!   Alltoallv in place of 3 integers each (the send counts are junk);
!   Reduce_scatter of i+1 doubles to rank i; Iallreduce of 6 integers;
!   Neighbor_alltoall of 2 integers on a periodic ring;
!   Put 3 doubles to the right and Get 2 integers from the left.
program fortran_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nranks, right, left, req, i, ring, win
  integer :: status(MPI_STATUS_SIZE)
  double precision :: a(10), b(10), w(10)
  integer :: ia(3), ib(3), big(64), counts(4), displs(4), types(4), junk(4)
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  a = 1.0d0
  ia = 1
  big = 1
  call MPI_Irecv(b, 10, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req, ierr)
  call MPI_Send(a, 10, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Isend(ia, 3, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req, ierr)
  call MPI_Recv(ib, 3, MPI_INTEGER, left, 2, MPI_COMM_WORLD, status, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Allreduce(a, b, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(a, 5, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  counts = 2
  displs = [(2 * i, i = 0, 3)]
  call MPI_Gatherv(ia, 2, MPI_INTEGER, big, counts, displs, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  counts = [(i + 1, i = 0, 3)]
  displs = [0, 1, 3, 6]
  call MPI_Scatterv(a, counts, displs, MPI_DOUBLE_PRECISION, b, rank + 1, MPI_DOUBLE_PRECISION, 2, &
                    MPI_COMM_WORLD, ierr)
  counts = [(i + 2, i = 0, 3)]
  displs = [0, 2, 5, 9]
  call MPI_Allgatherv(big, rank + 2, MPI_INTEGER, big(20), counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  counts = [(i + 1, i = 0, 3)]
  displs = [0, 4, 12, 24]        ! bytes
  types = MPI_INTEGER
  call MPI_Alltoallw(big, counts, displs, types, big(30), [(rank + 1, i = 0, 3)], [(4 * i * (rank + 1), i = 0, 3)], &
                     types, MPI_COMM_WORLD, ierr)
  counts = 3
  displs = [(3 * i, i = 0, 3)]
  junk = 1000
  call MPI_Alltoallv(MPI_IN_PLACE, junk, displs, MPI_INTEGER, big, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  counts = [(i + 1, i = 0, 3)]
  call MPI_Reduce_scatter(a, b, counts, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Iallreduce(big, big(10), 6, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, status, ierr)

  call MPI_Cart_create(MPI_COMM_WORLD, 1, [nranks], [.true.], .false., ring, ierr)
  call MPI_Neighbor_alltoall(big, 2, MPI_INTEGER, big(20), 2, MPI_INTEGER, ring, ierr)
  call MPI_Comm_free(ring, ierr)

  winsize = 80
  call MPI_Win_create(w, winsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(a, 3, MPI_DOUBLE_PRECISION, right, disp, 3, MPI_DOUBLE_PRECISION, win, ierr)
  call MPI_Get(ib, 2, MPI_INTEGER, left, disp, 2, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_Finalize(ierr)
end program fortran_mpif
