#!/usr/bin/env bash
# Runs a test program of known traffic under a real MPI with the shim, via
# `rankmap profile`, and checks the profile's exact counts.
# Usage: run_shim_test.sh RANKMAP MPI PROGRAM NP
#   MPI: openmpi | mpich
#   PROGRAM: traffic | threads | fortran_mpif | fortran_f08 | partitioned | timing
#            | unwritable (no profile can be written) | dies (killed before Finalize)
#            | after (rank 1 exits with 3 after MPI_Finalize: the profile kept, the status passed on)
#            | mismatch (built with the other MPI: refused before it runs)
#            | special (the profile path is a device, a symlink or a directory: left alone)
#            | abort, killone (rank 1 calls MPI_Abort, or is killed, while the others wait)
#            | full (the profile's file system is full; skipped, 77, where tmpfs cannot be mounted)
#            | communicators (dup, split and free timed; freed slots reused)
set -euo pipefail
rankmap=$(realpath "$1") mpi=$2 program=$3 np=$4
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Idle processes yield the CPU: 16 processes polling on 2 cores took
# 30x longer (bench/RESULTS.md, issue 51).
export OMPI_MCA_mpi_yield_when_idle=1
case $mpi in
  openmpi) launch=(mpirun.openmpi --oversubscribe --mca btl self,vader -np "$np") ;;
  mpich) launch=(mpiexec.mpich -np "$np") ;;
esac
case $program in
  traffic | unwritable | special | full) mpicc."$mpi" -O1 "$here/traffic.c" -o "$work/app" ;;
  abort | killone | dies | after) mpicc."$mpi" -O1 "$here/faults.c" -o "$work/app" ;;
  mismatch)
    other=$([ "$mpi" = openmpi ] && echo mpich || echo openmpi)
    mpicc."$other" -O1 "$here/traffic.c" -o "$work/app" 2>/dev/null ;;
  partitioned | timing | communicators) mpicc."$mpi" -O1 "$here/$program.c" -o "$work/app" ;;
  threads) mpicc."$mpi" -O1 "$here/threads.c" -o "$work/app" -lpthread ;;
  fortran_mpif | fortran_f08) mpif90."$mpi" "$here/$program.f90" -o "$work/app" ;;
esac
cd "$work"
if [ "$program" = unwritable ]; then
  # The shim cannot write: the job must still finish normally, with one
  # line on stderr and no file.
  RANKMAP_PROFILE=/nonexistent-dir/x.rmp LD_PRELOAD=$(dirname "$rankmap")/../lib/librankmap-pmpi-$mpi.so \
    timeout 120 "${launch[@]}" ./app 2>err.txt
  grep -c "rankmap shim: cannot create /nonexistent-dir/x.rmp" err.txt | grep -qx 1 || { cat err.txt; exit 1; }
  [ ! -e /nonexistent-dir ] || exit 1
  echo "job finished without a profile, one message: $(cat err.txt)"
  exit 0
fi
if [ "$program" = dies ]; then
  # Killed before MPI_Finalize: the launcher fails, and nothing is left in
  # the directory (the shim writes only at Finalize, through a rename).
  if timeout 120 "$rankmap" profile --mpi "$mpi" -o app.rmp -- "${launch[@]}" ./app all >out.txt 2>&1; then
    cat out.txt; echo "the killed job reported success"; exit 1
  fi
  leftovers=$(ls -A | grep -v '^app$\|^out.txt$' || true)
  [ -z "$leftovers" ] || { echo "left behind: $leftovers"; exit 1; }
  grep -q "app.rmp" out.txt || { cat out.txt; echo "rankmap profile did not say the profile is missing"; exit 1; }
  echo "killed job left no file; rankmap profile said: $(grep app.rmp out.txt)"
  exit 0
fi
if [ "$program" = after ]; then
  # Every rank reached MPI_Finalize, then one exited with 3: rankmap profile
  # passes the status on, says so in one line, and keeps the whole profile
  # (each rank sent its right neighbour one int: 4 bytes a message).
  rc=0
  timeout 120 "$rankmap" profile --mpi "$mpi" -o app.rmp -- "${launch[@]}" ./app after >out.txt 2>&1 || rc=$?
  [ "$rc" -eq 3 ] || { cat out.txt; echo "rankmap profile exited $rc, the job's status was 3"; exit 1; }
  [ "$(grep -c "after every rank reached MPI_Finalize; its profile is whole, written to app.rmp" out.txt)" = 1 ] ||
    { cat out.txt; echo "not one line saying the profile was kept"; exit 1; }
  summary=$("$rankmap" inspect app.rmp 2>&1) || { echo "$summary"; exit 1; }
  grep -q "^p2p  *$((4 * np)) bytes in $np messages$" <<<"$summary" ||
    { echo "$summary"; echo "expected $((4 * np)) bytes in $np messages p2p"; exit 1; }
  leftovers=$(ls -A | grep -v '^app$\|^out.txt$\|^app.rmp$' || true)
  [ -z "$leftovers" ] || { echo "left behind: $leftovers"; exit 1; }
  echo "status 3 after MPI_Finalize: passed on, the profile kept ($((4 * np)) bytes in $np messages p2p)"
  exit 0
fi
if [ "$program" = abort ] || [ "$program" = killone ]; then
  # One rank fails while the others wait in MPI: with the shim the job ends
  # as it does without it (same exit status, in bounded time), and no
  # profile or temporary file is left.
  how=$([ "$program" = killone ] && echo kill || echo abort)
  rc_plain=0 rc_shim=0
  timeout 120 "${launch[@]}" ./app "$how" >plain.txt 2>&1 || rc_plain=$?
  RANKMAP_PROFILE=app.rmp LD_PRELOAD=$(dirname "$rankmap")/../lib/librankmap-pmpi-$mpi.so \
    timeout 120 "${launch[@]}" ./app "$how" >shim.txt 2>&1 || rc_shim=$?
  [ "$rc_plain" -ne 0 ] && [ "$rc_plain" -ne 124 ] || { cat plain.txt; echo "the failing job exited $rc_plain"; exit 1; }
  [ "$rc_shim" -eq "$rc_plain" ] || { cat shim.txt; echo "exit $rc_shim with the shim, $rc_plain without"; exit 1; }
  ! grep -q "cannot be preloaded" shim.txt || { cat shim.txt; exit 1; }
  leftovers=$(ls -A | grep -v '^app$\|^plain.txt$\|^shim.txt$' || true)
  [ -z "$leftovers" ] || { echo "left behind: $leftovers"; exit 1; }
  echo "rank 1 ${how}ed: exit $rc_shim with the shim and without, no file left"
  exit 0
fi
if [ "$program" = full ]; then
  # The profile's file system fills up while the shim writes: the job still
  # succeeds, the shim says so in one line, and neither a profile nor its
  # temporary file is left. A 64 KiB tmpfs, filled before the run.
  mkdir small
  mount -t tmpfs -o size=64k tmpfs small 2>/dev/null || { echo "cannot mount a tmpfs here: skipped"; exit 77; }
  trap 'umount "$work/small" 2>/dev/null; rm -rf "$work"' EXIT
  dd if=/dev/zero of=small/fill bs=1k 2>/dev/null || true
  RANKMAP_PROFILE=small/app.rmp LD_PRELOAD=$(dirname "$rankmap")/../lib/librankmap-pmpi-$mpi.so \
    timeout 120 "${launch[@]}" ./app >/dev/null 2>err.txt || { cat err.txt; echo "the job failed"; exit 1; }
  grep -c "rankmap shim: cannot \(write\|create\) small/app.rmp" err.txt | grep -qx 1 || { cat err.txt; exit 1; }
  [ "$(ls -A small)" = fill ] || { echo "left in the full file system: $(ls -A small)"; exit 1; }
  echo "full file system: the job succeeded, the shim said: $(cat err.txt)"
  exit 0
fi
if [ "$program" = special ]; then
  # RANKMAP_PROFILE on a device or a symlink: the job finishes normally, the
  # shim says why in one line, and neither the device nor the victim changes.
  shim=$(dirname "$rankmap")/../lib/librankmap-pmpi-$mpi.so
  RANKMAP_PROFILE=/dev/full LD_PRELOAD=$shim timeout 120 "${launch[@]}" ./app >/dev/null 2>err.txt || { cat err.txt; exit 1; }
  grep -c "rankmap shim: will not replace the non-file /dev/full" err.txt | grep -qx 1 || { cat err.txt; exit 1; }
  [ -c /dev/full ] || { echo "/dev/full was replaced"; exit 1; }
  echo victim >victim.txt
  ln -s victim.txt link.rmp
  RANKMAP_PROFILE=link.rmp LD_PRELOAD=$shim timeout 120 "${launch[@]}" ./app >/dev/null 2>err.txt || { cat err.txt; exit 1; }
  grep -q "rankmap shim: will not replace the symbolic link link.rmp" err.txt || { cat err.txt; exit 1; }
  [ "$(cat victim.txt)" = victim ] && [ -L link.rmp ] || { echo "the symlink's target was written"; exit 1; }
  mkdir adir
  RANKMAP_PROFILE=adir LD_PRELOAD=$shim timeout 120 "${launch[@]}" ./app >/dev/null 2>err.txt || { cat err.txt; exit 1; }
  grep -c "rankmap shim: will not replace the non-file adir" err.txt | grep -qx 1 || { cat err.txt; exit 1; }
  [ -d adir ] && [ -z "$(ls -A adir)" ] || { echo "the directory was touched"; exit 1; }
  leftovers=$(ls -A | grep -v '^app$\|^err.txt$\|^victim.txt$\|^link.rmp$\|^adir$' || true)
  [ -z "$leftovers" ] || { echo "left behind: $leftovers"; exit 1; }
  echo "device, symlink and directory left alone: $(cat err.txt)"
  exit 0
fi
if [ "$program" = mismatch ]; then
  # The program links the other MPI: rankmap refuses, in one line, before
  # the job starts (the other shim would kill it with MPI_ERR_ARG).
  linked=MPICH
  [ "$other" = openmpi ] && linked="Open MPI"
  for how in "--mpi $mpi" ""; do
    rc=0
    # shellcheck disable=SC2086
    timeout 120 "$rankmap" profile $how -o app.rmp -- "${launch[@]}" ./app >out.txt 2>err.txt || rc=$?
    [ "$rc" -eq 1 ] || { cat out.txt err.txt; echo "exit $rc, expected 1 (${how:-mpi from the launcher})"; exit 1; }
    [ "$(wc -l <err.txt)" -eq 1 ] && grep -qF "./app links $linked" err.txt || { cat err.txt; exit 1; }
    leftovers=$(ls -A | grep -v '^app$\|^out.txt$\|^err.txt$' || true)
    [ -z "$leftovers" ] || { echo "left behind: $leftovers"; exit 1; }
  done
  echo "refused: $(cat err.txt)"
  exit 0
fi
if [ "$program" = communicators ]; then
  # Time in communicator calls counts; 300 dup/barrier/free cycles reuse
  # one slot, so each rank has one barrier group of 300 calls and the call
  # records stay complete.
  # MPICH's communicator calls take milliseconds on an oversubscribed node.
  rounds=$([ "$mpi" = mpich ] && echo 100 || echo 1000)
  timeout 120 "$rankmap" profile --mpi "$mpi" -o app.rmp -- "${launch[@]}" ./app "$rounds" >out.txt
  python3 "$here/check_timing.py" app.rmp out.txt
  ! grep -q "^calls_complete 0" app.rmp || { echo "the call records are incomplete"; exit 1; }
  groups=$(grep -c "^call barrier_[a-z_]* [0-9]* 300 " app.rmp || true)
  [ "$groups" -eq "$np" ] || { grep "^call" app.rmp | head; echo "$groups barrier groups of 300 calls, expected $np"; exit 1; }
  echo "communicator calls timed, one barrier group of 300 calls a rank"
  exit 0
fi
if [ "$program" = timing ]; then
  timeout 120 "$rankmap" profile --mpi "$mpi" -o app.rmp -- "${launch[@]}" ./app >out.txt
  python3 "$here/check_timing.py" app.rmp out.txt
  exit 0
fi
timeout 120 "$rankmap" profile --mpi "$mpi" -o app.rmp -- "${launch[@]}" ./app
check=$program
case $program in fortran_*) check=fortran ;; esac
python3 "$here/check_profile.py" app.rmp "$check" "$mpi"
