! MPI_Cart_create with reorder from Fortran (mpif.h): 2x8, both periodic,
! 16 processes; rank 0 of the new communicator counts the grid edges that
! join processes on different hosts (FAKE_HOST) and checks the coordinates.
! Usage: topology_reorder_mpif REORDER (0 or 1)
program topology_reorder_mpif
  implicit none
  include 'mpif.h'
  integer :: ierr, cart, rank, size, dims(2), coords(2), r, cut, next, below, good, all_good
  logical :: periods(2), reorder
  character(len=32) :: arg, host
  character(len=32) :: hosts(16)
  call mpi_init(ierr)
  call get_command_argument(1, arg)
  reorder = trim(arg) == '1'
  dims = (/ 2, 8 /)
  periods = (/ .true., .true. /)
  call mpi_cart_create(MPI_COMM_WORLD, 2, dims, periods, reorder, cart, ierr)
  call mpi_comm_rank(cart, rank, ierr)
  call mpi_comm_size(cart, size, ierr)
  call mpi_cart_coords(cart, rank, 2, coords, ierr)
  good = 0
  if (coords(1) == rank / 8 .and. coords(2) == mod(rank, 8)) good = 1
  call mpi_reduce(good, all_good, 1, MPI_INTEGER, MPI_MIN, 0, cart, ierr)
  host = ''
  call get_environment_variable('FAKE_HOST', host)
  call mpi_gather(host, 32, MPI_CHARACTER, hosts, 32, MPI_CHARACTER, 0, cart, ierr)
  if (rank == 0) then
    cut = 0
    do r = 0, 15
      next = (r / 8) * 8 + mod(mod(r, 8) + 1, 8)
      if (hosts(r + 1) /= hosts(next + 1)) cut = cut + 1
      if (r < 8) then
        below = r + 8
        if (hosts(r + 1) /= hosts(below + 1)) cut = cut + 1
      end if
    end do
    if (all_good == 1) then
      print '(a,a,a,i0,a)', 'fortran cart reorder=', trim(arg), ': ', cut, ' of 24 edges cross hosts; topology consistent'
    else
      print '(a,a,a,i0,a)', 'fortran cart reorder=', trim(arg), ': ', cut, ' of 24 edges cross hosts; topology INCONSISTENT'
    end if
  end if
  call mpi_comm_free(cart, ierr)
  call mpi_finalize(ierr)
end program topology_reorder_mpif
