#!/usr/bin/env bash
# MPI's topology calls with reorder = 1, answered by the shim
# (shim/reorder.c) under a real launcher on 4 fake hosts of 4 processes,
# launched round-robin (process p on host p mod 4): the program's own
# reckoning (tests/launch/topology_reorder.c) must show the optimum cut
# worked by hand, topology queries that agree with the topology, and the
# checksum of the reorder-off run (one launch makes each topology with
# reorder = 0, then 1); the same four calls from Fortran (mpif.h and
# mpi_f08). Then the hardening of issue 50: every mix of weights, a
# per-rank RANKMAP_MACHINE, a reordered grid freed unused (and LAMMPS).
#   cart 2x8 periodic: 24 edges; round-robin cuts the 16 along the rows of
#     8; 2x2 blocks a host cut 8, the fewest (each host holds 4 processes,
#     and 4 of a 2x8 torus share at most 4 edges: 24 - 4 x 4 = 8).
#   graph, dist and distgen (MPI_Dist_graph_create), a ring of 16:
#     round-robin cuts all 16; 4 consecutive
#     members a host cut 4, the fewest (each host's set needs 2 edges out).
#   cartmap, graphmap: the cart and graph cases made from MPI_Cart_map /
#     MPI_Graph_map and MPI_Comm_split, as the standard describes: the same
#     cuts.
# Then the same through `rankmap run --reorder`, which preloads the shim
# with RANKMAP_MACHINE itself and keeps the run's profile with --keep.
# Usage: run_reorder_test.sh openmpi|mpich SHIM RANKMAP [calls|fortran|apps]
#   calls: the calls from C, weights, agreement (ctest reorder_MPI_calls);
#   fortran: the calls from mpif.h and mpi_f08 (reorder_MPI_fortran); apps:
#   a grid freed unused, LAMMPS, bound processes, rankmap run --reorder
#   (reorder_MPI_apps); all three when not given.
set -u
mpi=$1
shim=$(realpath "$2")
rankmap=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
part=${4:-all}
in_part() { [ "$part" = all ] || [ "$part" = "$1" ]; }
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
export FAKESSH_TMP=$work
export TOPO_VARY=""  # topology_reorder.c: a per-rank RANKMAP_MACHINE, for the agreement case
cp "$here/../data/fake-switch-4.toml" four.toml
sed 's/fake\[0-3\]/other[0-3]/' four.toml >other.toml
case $mpi in
  openmpi)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # Idle processes yield the CPU: 16 processes polling on 2 cores took
    # 30x longer (bench/RESULTS.md, issue 51).
    export OMPI_MCA_mpi_yield_when_idle=1
    mpicc.openmpi -O1 -o topo "$here/topology_reorder.c" || exit 1
    mpif90.openmpi -o topo_mpif "$here/topology_reorder.F90" || exit 1
    mpif90.openmpi -DUSE_F08 -o topo_f08 "$here/topology_reorder.F90" || exit 1
    # Round-robin over the 4 hosts.
    launcher=(mpirun.openmpi --mca plm_rsh_agent "$here/fakessh" --mca btl self,tcp
      --host fake0:4,fake1:4,fake2:4,fake3:4 --map-by node -np 16)
    # launch MACHINE PROGRAM ARGS: under the shim, reordering by MACHINE.
    launch() {
      local program=$2
      [ "${program#/}" = "$program" ] && program=./$program
      RANKMAP_MACHINE=$1 timeout 120 "${launcher[@]}" -x LD_PRELOAD="$shim" -x RANKMAP_MACHINE -x TOPO_VARY \
        -x OMP_NUM_THREADS=1 "$program" "${@:3}"
    }
    ;;
  mpich)
    mpicc.mpich -O1 -o topo "$here/topology_reorder.c" || exit 1
    mpif90.mpich -o topo_mpif "$here/topology_reorder.F90" || exit 1
    mpif90.mpich -DUSE_F08 -o topo_f08 "$here/topology_reorder.F90" || exit 1
    launcher=(mpiexec.mpich -launcher ssh -launcher-exec "$here/fakessh" -hosts fake0:1,fake1:1,fake2:1,fake3:1 -n 16)
    launch() {
      RANKMAP_MACHINE=$1 LD_PRELOAD=$shim timeout 120 "${launcher[@]}" "./$2" "${@:3}"
    }
    ;;
  *) echo "usage: $0 openmpi|mpich SHIM RANKMAP [calls|fortran|apps]" >&2; exit 2 ;;
esac

if in_part calls; then
  # One launch makes each topology with reorder = 0, then with reorder = 1
  # (topology_reorder.c's "both"), kind after kind: 16 processes start once.
  launch "$work/four.toml" topo cart,graph,dist,distgen,cartmap,graphmap both >calls.out 2>&1
  # check KIND WANT_OFF WANT_ON EDGES: that launch's lines for KIND.
  check() {
    local kind=$1 off=$2 on=$3 edges=$4
    local sum_off sum_on
    sum_off=$(sed -n "s/^$kind reorder=0: .*checksum \([0-9]*\)$/\1/p" calls.out)
    sum_on=$(sed -n "s/^$kind reorder=1: .*checksum \([0-9]*\)$/\1/p" calls.out)
    if grep -q "^$kind reorder=0: $off of $edges edges cross hosts; topology consistent" calls.out &&
      grep -q "^$kind reorder=1: $on of $edges edges cross hosts; topology consistent" calls.out &&
      [ -n "$sum_on" ] && [ "$sum_on" = "$sum_off" ] &&
      ! grep "rankmap: reorder" calls.out | grep -v "weights on some processes\|MPI_COMM_NULL" | grep -q .; then
      ok "$kind: $off of $edges edges cross hosts in the launch order, $on reordered (the fewest); checksum $sum_on"
    else
      bad "$kind"; cat calls.out
    fi
  }
  check cart 16 8 24
  check graph 16 4 16
  check dist 16 4 16
  # The same reorder=1 run then states the odd ring (even processes without
  # edges) in every mix of weights: each process checks the degree,
  # neighbours and weights of the role it got and exchanges through the new
  # communicator. A degree-0 process's MPI_WEIGHTS_EMPTY or MPI_UNWEIGHTED
  # must never reach a process with edges (that crashed Open MPI's shim);
  # weights on some edges and MPI_UNWEIGHTED on others are the MPI's own
  # call, said once.
  mixes_ok=1
  for mix in all empty-on-degree-0 unweighted-on-degree-0 arrays-on-degree-0 unweighted empty-and-unweighted; do
    grep -q "^weights $mix: consistent, reordered$" calls.out || mixes_ok=0
  done
  grep -q "^weights mixed: consistent, the MPI's own order$" calls.out || mixes_ok=0
  [ "$(grep -c "rankmap: reorder: weights on some processes and MPI_UNWEIGHTED" calls.out)" = 1 ] || mixes_ok=0
  # MPI_Cart_create on MPI_COMM_NULL (errors returned): the MPI's error, and
  # the shim names MPI_COMM_NULL for what it is.
  grep -q "^null: the MPI's error$" calls.out || mixes_ok=0
  [ "$(grep -c "rankmap: reorder: MPI_COMM_NULL is not a communicator" calls.out)" = 1 ] || mixes_ok=0
  # A reordered grid used only through its rows, or through its group
  # translated to world ranks, then freed: uses, so the job goes on.
  grep -q "^derived: rows summed, translated neighbours met$" calls.out || mixes_ok=0
  if [ $mixes_ok = 1 ]; then
    ok "weights in every mix: each role's own, or MPI_UNWEIGHTED everywhere; a mixed call is the MPI's own, said once; MPI_COMM_NULL named; a grid used through what is made from it goes on"
  else
    bad "weights in every mix"; cat calls.out
  fi
  check distgen 16 4 16
  check cartmap 16 8 24
  check graphmap 16 4 16

  # The issue's own case: a 4x4 periodic grid (32 edges) from a scattered
  # launch (a fixed shuffle, 4 processes a host; round-robin would give each
  # host a column, already the best). 4 cells of a 4x4 torus share at most 4
  # edges (a 2x2 block or a row), so at least 32 - 4 x 4 = 16 cross hosts.
  for h in 2 0 3 1 1 3 0 2 0 2 1 3 3 1 2 0; do echo "fake$h"; done >seq.hosts
  sed 's/$/:1/' seq.hosts >seq.machinefile
  case $mpi in
    openmpi)
      RANKMAP_MACHINE=$work/four.toml timeout 120 mpirun.openmpi --mca plm_rsh_agent "$here/fakessh" \
        --mca btl self,tcp --hostfile seq.hosts --map-by seq -np 16 -x LD_PRELOAD="$shim" -x RANKMAP_MACHINE \
        ./topo cart both 4x4 >grid.out 2>&1 ;;
    mpich)
      RANKMAP_MACHINE=$work/four.toml LD_PRELOAD=$shim timeout 120 mpiexec.mpich -launcher ssh \
        -launcher-exec "$here/fakessh" -f seq.machinefile -n 16 ./topo cart both 4x4 >grid.out 2>&1 ;;
  esac
  off=$(sed -n 's/^cart reorder=0: \([0-9]*\) of 32 edges cross hosts; topology consistent.*/\1/p' grid.out)
  sum_off=$(sed -n 's/^cart reorder=0: .*checksum \([0-9]*\)$/\1/p' grid.out)
  sum_on=$(sed -n 's/^cart reorder=1: .*checksum \([0-9]*\)$/\1/p' grid.out)
  if [ -n "$off" ] && [ "$off" -gt 16 ] && grep -q "^cart reorder=1: 16 of 32 edges cross hosts; topology consistent" grid.out &&
    [ -n "$sum_on" ] && [ "$sum_on" = "$sum_off" ] && ! grep -q "rankmap: reorder" grid.out; then
    ok "cart 4x4, scattered: $off of 32 edges cross hosts in the launch order, 16 reordered (the fewest); checksum $sum_on"
  else
    bad "cart 4x4, scattered"; cat grid.out
  fi

  # A machine file that names none of the hosts: the MPI's own order, one line.
  launch "$work/other.toml" topo cart 1 >unknown.out 2>&1
  if grep -q "^cart reorder=1: 16 of 24 edges cross hosts; topology consistent" unknown.out &&
    [ "$(grep -c "rankmap: reorder: .*unknown host 'fake0'.*; the MPI's own order is kept" unknown.out)" = 1 ]; then
    ok "an unknown host: the MPI's own order, said once"
  else
    bad "an unknown host"; cat unknown.out
  fi
  # RANKMAP_MACHINE unset on process 5 and another machine file on process 6:
  # every process still agrees at MPI_Init, on a communicator of the shim's
  # own, so the application's first allreduce is right, MPI_Cart_map hands out
  # a permutation (the MPI's own) and rank 0 says why in one line.
  TOPO_VARY="5:unset,6:$work/other.toml" launch "$work/four.toml" topo agree 1 >agree.out 2>&1
  if grep -q "^agree: allreduce 120 (want 120); Cart_map a permutation$" agree.out &&
    grep -q "^cart reorder=1: 16 of 24 edges cross hosts; topology consistent" agree.out &&
    [ "$(grep -c "rankmap: reorder: RANKMAP_MACHINE is not the same machine file on every process" agree.out)" = 1 ] &&
    [ "$(grep -c "rankmap" agree.out)" = 1 ]; then
    ok "RANKMAP_MACHINE on some processes only: the application's sums right, the MPI's own order, one line"
  else
    bad "RANKMAP_MACHINE on some processes only"; cat agree.out
  fi
fi

if in_part fortran; then
  # The same calls from Fortran: mpif.h and mpi_f08 (topology_reorder.F90),
  # one launch each.
  fortran() {
    local f=$1 kind=$2 off=$3 on=$4 edges=$5
    if grep -q "^fortran $kind reorder=0: $off of $edges edges cross hosts; topology consistent" "f-$f.out" &&
      grep -q "^fortran $kind reorder=1: $on of $edges edges cross hosts; topology consistent" "f-$f.out" &&
      ! grep -q "rankmap: reorder" "f-$f.out"; then
      ok "Fortran ($f) $kind: $off of $edges edges cut in the launch order, $on reordered"
    else
      bad "Fortran ($f) $kind"; cat "f-$f.out"
    fi
  }
  for f in mpif f08; do
    launch "$work/four.toml" "topo_$f" cart,graph,dist,distgen,cartmap,graphmap both >"f-$f.out" 2>&1
    fortran $f cart 16 8 24
    fortran $f graph 16 4 16
    fortran $f dist 16 4 16
    if grep -q "^fortran weights empty-on-degree-0: consistent, reordered$" "f-$f.out" &&
      grep -q "^fortran weights unweighted-on-degree-0: consistent, reordered$" "f-$f.out" &&
      grep -q "^fortran derived: ran$" "f-$f.out"; then
      ok "Fortran ($f): MPI_WEIGHTS_EMPTY and MPI_UNWEIGHTED on the processes without edges; a grid used through its duplicate"
    else
      bad "Fortran ($f) weights"; cat "f-$f.out"
    fi
    fortran $f distgen 16 4 16
    fortran $f cartmap 16 8 24
    fortran $f graphmap 16 4 16
  done
fi

if in_part apps; then
  # LAMMPS's pattern (ProcMap::cart_map): the grid's neighbours used on
  # MPI_COMM_WORLD after the reordered grid is freed unused. The job must
  # stop at once with one line, never hang at its first exchange.
  launch "$work/four.toml" topo freed 1 >freed.out 2>&1
  status=$?
  if [ $status != 0 ] && [ $status != 124 ] && ! grep -q "^freed: the exchange" freed.out &&
    [ "$(grep -c "rankmap: reorder: the application freed its reordered communicator without communicating on it" freed.out)" = 1 ]; then
    ok "a reordered grid freed unused, its ranks used on MPI_COMM_WORLD: stopped at once (status $status), one line"
  else
    bad "a reordered grid freed unused (status $status)"; cat freed.out
  fi
  # The same without RANKMAP_MACHINE: the MPI's own call, not a word, and the
  # exchange meets.
  launch "" topo freed 1 >freed-off.out 2>&1
  if grep -q "^freed: the exchange on MPI_COMM_WORLD met its neighbours$" freed-off.out && ! grep -q rankmap freed-off.out; then
    ok "the same without RANKMAP_MACHINE runs"
  else
    bad "freed grid without RANKMAP_MACHINE"; cat freed-off.out
  fi

  # Debian's LAMMPS itself (it links Open MPI): `map cart/reorder` stops at
  # once with the line, where it hung at its first exchange; `map cart`, what
  # the line recommends, runs to its end under the same shim and machine.
  if [ "$mpi" = openmpi ]; then
    for map in cart/reorder cart; do
      cat >"in.$(echo $map | tr / -)" <<LAMMPS
processors * * * map $map
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 4 0 4 0 4
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 3.0 87287
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
fix 1 all nve
run 5
LAMMPS
    done
    # 8 processes scattered over the 4 hosts (round-robin is already the
    # best order for LAMMPS's grid, and rankmap keeps it); 8, not 16, for
    # LAMMPS's start-up on 2 cores.
    for h in 2 0 3 1 1 3 0 2; do echo "fake$h"; done >seq8.hosts
    lammps() {
      RANKMAP_MACHINE=$work/four.toml timeout 120 mpirun.openmpi --mca plm_rsh_agent "$here/fakessh" --mca btl self,tcp \
        --hostfile seq8.hosts --map-by seq -np 8 -x LD_PRELOAD="$shim" -x RANKMAP_MACHINE -x OMP_NUM_THREADS=1 \
        /usr/bin/lmp -log none -in "$1"
    }
    lammps in.cart-reorder >lammps-reorder.out 2>&1
    status=$?
    lammps in.cart >lammps-cart.out 2>&1
    if [ $status != 0 ] && [ $status != 124 ] && ! grep -q "Setting up Verlet run" lammps-reorder.out &&
      [ "$(grep -c "rankmap: reorder: the application freed its reordered communicator" lammps-reorder.out)" = 1 ] &&
      grep -q "^Loop time of .* on 8 procs for 5 steps" lammps-cart.out; then
      ok "LAMMPS map cart/reorder: stopped at once (status $status) with one line; map cart runs to its end"
    else
      bad "LAMMPS (status $status)"; cat lammps-reorder.out lammps-cart.out
    fi
  fi

  # Bound processes: 16 on the 8 hosts of 2 cores of a 2x2x2 torus, each
  # bound to a core by a scattered launch (a host's first process on core 0,
  # its second on core 1): every rank of the new communicator must run on
  # the host and the core that `rankmap reorder` (the same choice without
  # MPI) gives it, and the order must have changed. Open MPI's rankfile
  # scatters both processes of a host; MPICH's -bind-to core numbers cores
  # per launch of a machinefile line, so its hosts take two neighbouring
  # ranks each, the hosts shuffled.
  cp "$here/../data/fake-torus-2x2x2.toml" torus.toml
  printf 'rank,host,socket,core,pu\n' >bound.csv
  : >bound.rankfile
  : >bound.machinefile
  declare -A seen=()
  p=0
  order="2 7 1 4 0 5 3 6 1 2 7 0 4 6 3 5"
  [ "$mpi" = mpich ] && order="2 2 7 7 1 1 4 4 0 0 5 5 3 3 6 6"
  for h in $order; do
    core=${seen[$h]:-0}
    seen[$h]=1
    echo "$p,fake$h,0,$core," >>bound.csv
    echo "rank $p=fake$h slot=$core" >>bound.rankfile
    [ "$core" = 0 ] && [ "$mpi" = mpich ] && echo "fake$h:2" >>bound.machinefile
    p=$((p + 1))
  done
  case $mpi in
    openmpi)
      RANKMAP_MACHINE=$work/torus.toml timeout 120 mpirun.openmpi --mca plm_rsh_agent "$here/fakessh" --mca btl self,tcp \
        --host fake0:2,fake1:2,fake2:2,fake3:2,fake4:2,fake5:2,fake6:2,fake7:2 --rankfile bound.rankfile -np 16 \
        -x LD_PRELOAD="$shim" -x RANKMAP_MACHINE ./topo cart 1 >bound.out 2>&1 ;;
    mpich)
      RANKMAP_MACHINE=$work/torus.toml LD_PRELOAD=$shim timeout 120 mpiexec.mpich -launcher ssh \
        -launcher-exec "$here/fakessh" -f bound.machinefile -bind-to core -n 16 ./topo cart 1 >bound.out 2>&1 ;;
  esac
  "$rankmap" reorder --cart 2x8 --periods 1,1 -m torus.toml --mapping bound.csv -f csv -o expect.csv -q >/dev/null
  sed -n 's/^rank \([0-9]*\) on \([^ ]*\) cpu \([0-9-]*\)$/\1,\2,\3/p' bound.out >got.txt
  tail -n +2 expect.csv | cut -d, -f1,2,4 >want.txt
  if [ "$(wc -l <got.txt)" = 16 ] && cmp -s got.txt want.txt && ! cmp -s want.txt <(tail -n +2 bound.csv | cut -d, -f1,2,4) &&
    grep -q "^cart reorder=1: .*topology consistent" bound.out && ! grep -q "rankmap: reorder" bound.out; then
    ok "bound processes: every new rank on the host and core rankmap reorder gives it"
  else
    bad "bound processes"; cat bound.out; paste -d' ' got.txt want.txt
  fi

  # rankmap run --reorder: the launcher's own placement, the shim preloaded
  # by rankmap with the machine; the profile of the same run kept.
  timeout 180 "$rankmap" run -m "$work/four.toml" --reorder --keep kept -- "${launcher[@]}" ./topo cart 1 >run.out 2>&1
  if grep -q "^cart reorder=1: 8 of 24 edges cross hosts; topology consistent" run.out &&
    grep -q "^ranks 16$" kept/profile.rmp && grep -q "rankmap: running as launched" run.out; then
    ok "rankmap run --reorder: 8 of 24 edges cut, the run's profile kept"
  else
    bad "rankmap run --reorder"; cat run.out
  fi
  # A dry run's folder stays for the user to read: here, not in /tmp.
  TMPDIR=$work "$rankmap" run -m "$work/four.toml" --reorder --dry-run -- "${launcher[@]}" ./topo cart 1 >dry.out 2>&1
  if grep -q "RANKMAP_MACHINE=$work/four.toml .*LD_PRELOAD=\|LD_PRELOAD=.*RANKMAP_MACHINE=$work/four.toml" dry.out; then
    ok "rankmap run --reorder --dry-run names the shim and the machine"
  else
    bad "rankmap run --reorder --dry-run"; cat dry.out
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
