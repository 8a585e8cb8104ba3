! MPI's topology calls with reorder from Fortran, built twice: with
! -DUSE_F08 against mpi_f08, without against mpif.h. Rank 0 of the new
! communicator counts the topology's edges that join processes on
! different hosts (FAKE_HOST, set by the fake remote shell) and checks the
! coordinates or neighbours the MPI returns against the topology.
! Usage: topology_reorder_f KIND[,KIND...] REORDER   (16 processes; REORDER 0, 1, or
! both: 0 then 1 in one run)
!   cart:    2x8, both periodic (24 edges), MPI_Cart_create;
!   graph:   a ring of 16 (16 edges), MPI_Graph_create;
!   dist:    the same ring, MPI_Dist_graph_create_adjacent, MPI_UNWEIGHTED;
!   distgen: the same ring, MPI_Dist_graph_create, each process stating
!            its two out-edges with weights;
!   cartmap, graphmap: the cart and graph cases through MPI_Cart_map /
!            MPI_Graph_map (REORDER 1), MPI_Comm_split by the new rank and
!            the create call with reorder = .false.
! It prints "fortran KIND reorder=R: C of E edges cross hosts; topology
! consistent" (or INCONSISTENT). dist with REORDER 1 then states a graph
! whose even processes have no edges (the odd ones a ring, each joined to
! the odd processes 2 before and after), weighted on the odd processes and
! MPI_WEIGHTS_EMPTY, then MPI_UNWEIGHTED, on the even ones; each process
! checks the degree, neighbours and weights of the role it got, and rank 0
! prints "fortran weights MIX: consistent, reordered".
program topology_reorder_f
#ifdef USE_F08
  use mpi_f08
  implicit none
  type(MPI_Comm) :: comm, old
#else
  implicit none
  include 'mpif.h'
  integer :: comm, old
#endif
  integer, parameter :: n = 16
  integer :: ierr, world, rank, size, dims(2), coords(2), r, cut, edges, good, all_good
  integer :: index(n), ring(2 * n), mine(2), weights(2), got(2), gotw(2), srcs(2), srcw(2)
  integer :: indeg, outdeg, degree(1), me(1), newrank
  integer :: mix, ends(2), iw(2), ow(2), moved, any_moved, pass, first, last
  logical :: periods(2), reorder, weighted
  character(len=32) :: kind, arg, mode, host
  character(len=128) :: kinds
  integer :: comma
  character(len=32) :: hosts(n)

  call mpi_init(ierr)
  call get_command_argument(1, kinds)
  call get_command_argument(2, mode)
  call mpi_comm_rank(MPI_COMM_WORLD, world, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, size, ierr)
  if (size /= n) call mpi_abort(MPI_COMM_WORLD, 2, ierr)
  do r = 0, n - 1
    index(r + 1) = 2 * (r + 1)
    ring(2 * r + 1) = mod(r + n - 1, n)
    ring(2 * r + 2) = mod(r + 1, n)
  end do
  mine = (/ mod(world + n - 1, n), mod(world + 1, n) /)
  weights = (/ 1, 1 /)
  ! The first argument may list several kinds ("cart,graph,dist"): one
  ! launch checks them all, in turn.
  do while (len_trim(kinds) > 0)
    comma = scan(kinds, ',')
    if (comma == 0) then
      kind = kinds
      kinds = ''
    else
      kind = kinds(1:comma - 1)
      kinds = kinds(comma + 1:)
    end if
    first = 0
    if (trim(mode) == '1') first = 1
    last = first
    if (trim(mode) == 'both') last = 1
    do pass = first, last
      reorder = pass == 1
      write (arg, '(i0)') pass
      good = 1
      select case (trim(kind))
      case ('cart', 'cartmap')
        dims = (/ 2, 8 /)
        periods = (/ .true., .true. /)
        if (trim(kind) == 'cartmap') then
          newrank = world
          if (reorder) call mpi_cart_map(MPI_COMM_WORLD, 2, dims, periods, newrank, ierr)
          call mpi_comm_split(MPI_COMM_WORLD, 0, newrank, old, ierr)
          call mpi_cart_create(old, 2, dims, periods, .false., comm, ierr)
          call mpi_comm_free(old, ierr)
        else
          call mpi_cart_create(MPI_COMM_WORLD, 2, dims, periods, reorder, comm, ierr)
        end if
        call mpi_comm_rank(comm, rank, ierr)
        call mpi_cart_coords(comm, rank, 2, coords, ierr)
        if (coords(1) /= rank / 8 .or. coords(2) /= mod(rank, 8)) good = 0
      case ('graph', 'graphmap')
        if (trim(kind) == 'graphmap') then
          newrank = world
          if (reorder) call mpi_graph_map(MPI_COMM_WORLD, n, index, ring, newrank, ierr)
          call mpi_comm_split(MPI_COMM_WORLD, 0, newrank, old, ierr)
          call mpi_graph_create(old, n, index, ring, .false., comm, ierr)
          call mpi_comm_free(old, ierr)
        else
          call mpi_graph_create(MPI_COMM_WORLD, n, index, ring, reorder, comm, ierr)
        end if
        call mpi_comm_rank(comm, rank, ierr)
        call mpi_graph_neighbors(comm, rank, 2, got, ierr)
        if (got(1) /= mod(rank + n - 1, n) .or. got(2) /= mod(rank + 1, n)) good = 0
      case ('dist', 'distgen')
        if (trim(kind) == 'dist') then
          call mpi_dist_graph_create_adjacent(MPI_COMM_WORLD, 2, mine, MPI_UNWEIGHTED, 2, mine, MPI_UNWEIGHTED, &
                                              MPI_INFO_NULL, reorder, comm, ierr)
        else
          me(1) = world
          degree(1) = 2
          call mpi_dist_graph_create(MPI_COMM_WORLD, 1, me, degree, mine, weights, MPI_INFO_NULL, reorder, comm, ierr)
        end if
        call mpi_comm_rank(comm, rank, ierr)
        call mpi_dist_graph_neighbors_count(comm, indeg, outdeg, weighted, ierr)
        if (indeg /= 2 .or. outdeg /= 2 .or. weighted .neqv. (trim(kind) == 'distgen')) then
          good = 0
        else
          call mpi_dist_graph_neighbors(comm, 2, srcs, srcw, 2, got, gotw, ierr)
          ! The general form may list a process's neighbours in either order.
          if (minval(got) /= min(mod(rank + n - 1, n), mod(rank + 1, n)) .or. &
              maxval(got) /= max(mod(rank + n - 1, n), mod(rank + 1, n)) .or. &
              minval(srcs) /= minval(got) .or. maxval(srcs) /= maxval(got)) good = 0
        end if
      case default
        call mpi_abort(MPI_COMM_WORLD, 2, ierr)
      end select
      call mpi_reduce(good, all_good, 1, MPI_INTEGER, MPI_MIN, 0, comm, ierr)
      host = ''
      call get_environment_variable('FAKE_HOST', host)
      call mpi_gather(host, 32, MPI_CHARACTER, hosts, 32, MPI_CHARACTER, 0, comm, ierr)
      if (rank == 0) then
        cut = 0
        edges = 0
        do r = 0, n - 1
          if (trim(kind) == 'cart' .or. trim(kind) == 'cartmap') then
            ! The next along the ring of 8, and one edge a column (the ring of 2).
            edges = edges + 1
            if (hosts(r + 1) /= hosts((r / 8) * 8 + mod(mod(r, 8) + 1, 8) + 1)) cut = cut + 1
            if (r < 8) then
              edges = edges + 1
              if (hosts(r + 1) /= hosts(r + 8 + 1)) cut = cut + 1
            end if
          else
            edges = edges + 1
            if (hosts(r + 1) /= hosts(mod(r + 1, n) + 1)) cut = cut + 1
          end if
        end do
        if (all_good == 1) then
          print '(a,a,a,a,a,i0,a,i0,a)', 'fortran ', trim(kind), ' reorder=', trim(arg), ': ', cut, ' of ', edges, &
            ' edges cross hosts; topology consistent'
        else
          print '(a,a,a,a,a,i0,a,i0,a)', 'fortran ', trim(kind), ' reorder=', trim(arg), ': ', cut, ' of ', edges, &
            ' edges cross hosts; topology INCONSISTENT'
        end if
      end if
      call mpi_comm_free(comm, ierr)
    end do
    if (trim(kind) == 'dist' .and. reorder) then
      do mix = 1, 2
        ends = (/ mod(world + n - 2, n), mod(world + 2, n) /)
        ow = (/ world + 1000, world + 2000 /)
        iw = (/ world + 3000, world + 4000 /)
        if (mod(world, 2) == 1) then
          call mpi_dist_graph_create_adjacent(MPI_COMM_WORLD, 2, ends, iw, 2, ends, ow, MPI_INFO_NULL, .true., comm, ierr)
        else if (mix == 1) then
          call mpi_dist_graph_create_adjacent(MPI_COMM_WORLD, 0, ends, MPI_WEIGHTS_EMPTY, 0, ends, MPI_WEIGHTS_EMPTY, &
                                              MPI_INFO_NULL, .true., comm, ierr)
        else
          call mpi_dist_graph_create_adjacent(MPI_COMM_WORLD, 0, ends, MPI_UNWEIGHTED, 0, ends, MPI_UNWEIGHTED, &
                                              MPI_INFO_NULL, .true., comm, ierr)
        end if
        call mpi_comm_rank(comm, rank, ierr)
        good = 1
        moved = 0
        if (rank /= world) moved = 1
        call mpi_dist_graph_neighbors_count(comm, indeg, outdeg, weighted, ierr)
        if (mod(rank, 2) == 1) then
          if (indeg /= 2 .or. outdeg /= 2 .or. .not. weighted) then
            good = 0
          else
            call mpi_dist_graph_neighbors(comm, 2, srcs, srcw, 2, got, gotw, ierr)
            if (got(1) /= mod(rank + n - 2, n) .or. got(2) /= mod(rank + 2, n) .or. any(srcs /= got) .or. &
                gotw(1) /= rank + 1000 .or. gotw(2) /= rank + 2000 .or. srcw(1) /= rank + 3000 .or. &
                srcw(2) /= rank + 4000) good = 0
          end if
        else if (indeg /= 0 .or. outdeg /= 0) then
          good = 0
        end if
        call mpi_reduce(good, all_good, 1, MPI_INTEGER, MPI_MIN, 0, MPI_COMM_WORLD, ierr)
        call mpi_reduce(moved, any_moved, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
        if (world == 0) then
          if (mix == 1) host = 'empty-on-degree-0'
          if (mix == 2) host = 'unweighted-on-degree-0'
          if (all_good == 1 .and. any_moved == 1) then
            print '(a,a,a)', 'fortran weights ', trim(host), ': consistent, reordered'
          else
            print '(a,a,a,i0,a,i0)', 'fortran weights ', trim(host), ': INCONSISTENT ', all_good, ' moved ', any_moved
          end if
        end if
        call mpi_barrier(comm, ierr)
        call mpi_comm_free(comm, ierr)
      end do
      ! A reordered grid used only through its duplicate, then freed: a use,
      ! so the job goes on.
      dims = (/ 2, 8 /)
      periods = (/ .true., .true. /)
      call mpi_cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., comm, ierr)
      call mpi_comm_dup(comm, old, ierr)
      call mpi_comm_free(comm, ierr)
      call mpi_allreduce(world, all_good, 1, MPI_INTEGER, MPI_SUM, old, ierr)
      call mpi_comm_free(old, ierr)
      if (world == 0) print '(a)', 'fortran derived: ran'
    end if
  end do
  call mpi_finalize(ierr)
end program topology_reorder_f
