#!/usr/bin/env bash
# The SMPI tree platform (bench/smpi/tree_platform.cpp) routes and times
# messages as the machine files say, worked out here by hand from their
# numbers (issues 35 and 54):
#  - an 8-byte ping-pong, one way: on the CPMD switch (cpmd-ib-16.toml),
#    two nodes 2 hops apart, 450 + 450 + 2 x 50 ns, and two cores of a node
#    t_local 400 ns; on the 4:1 fat tree (fattree-8x16-thin.toml), 1000 ns
#    under one leaf and 450 + 450 + 4 x 50 = 1100 ns across the top; on the
#    KVM machine (jinr-kvm.toml), two VMs of one host the host's 15,000 ns
#    and of two hosts 12,000 + 12,000 + 4 x 1,500 = 30,000 ns. Each plus 8
#    bytes at the first link's rate, within 1 % or 10 ns (SimGrid adds
#    about 4 ns a message: the bytes on each link, the start-up skew);
#  - D-mod-k: a leaf's 4 uplinks are picked by the destination node's index
#    mod 4, so 1 MiB from ft000 to ft016 and from ft001 to ft020 (both 0
#    mod 4) share one 100 Gbit/s uplink and end together near 2 MiB / 12.5
#    B/ns; to ft016 and ft017 they take two and end near 1 MiB / 12.5 B/ns;
#    on a site's irregular tree (tree-irregular.toml, issue 53) the same,
#    modulo the leaf's own 3 cables;
#  - dragonflies as rankmap wires them (issue 54): on the Dragonfly+
#    (dragonfly-plus-4x4x4x8.toml: 500 + 500 + 150 ns a link, 8 nodes a
#    leaf, 32 a group), 2 links under one leaf, 4 through a spine, 5 to
#    another group; on the dragonfly (dragonfly-4x8x4.toml: 400 ns each, 4
#    nodes a router, 32 a group), 2, 3 and 5 links (d000 to d127: group 0's
#    cable 1 to group 3 is on router 5, group 3's on router 3). Across the
#    Dragonfly+, the global cable is picked by the destination mod 4: 1 MiB
#    from p000 to p032 and from p001 to p036 share cable 0 (and leaf 0's
#    link to its spine) at 200 Gbit/s; to p032 and p033 they take two;
#  - both ways at once: 4 ranks on each of two CPMD nodes send 32 KiB (an
#    eager message, 16 bytes of envelope more) to their partner on the
#    other node. Each way 4 flows share a 32 Gbit/s NIC: every exchange ends
#    T(2) = 1000 ns + 4 x 32,784 bytes / 4 B/ns = 33,784 ns after the last
#    one starts. SimGrid 3.32's lazy update gave one way a whole link per
#    flow (9 us); validate.py's options, used here, avoid it.
# Usage: run_smpi_tree_test.sh PLATFORM_SO SOURCE_DIR
set -euo pipefail
platform=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mapfile -t smpi_options < <(python3 "$src/bench/smpi/validate.py" --print-smpi-options)
((${#smpi_options[@]})) || { echo "$0: validate.py --print-smpi-options printed nothing" >&2; exit 1; }
smpicc -O1 "$src/apps/pingpong.c" -o pingpong
failed=0
# machine file, host pair, expected one-way ns, the first link's Gbit/s
while read -r machine a b want gbps; do
  printf '%s\n%s\n' "$a" "$b" >hosts
  round_trip_us=$(RANKMAP_SMPI_MACHINE="$src/$machine" smpirun -np 2 -hostfile hosts -platform "$platform" \
    "${smpi_options[@]}" ./pingpong 8 1000 |
    awk '{print $2}')
  python3 - "$machine" "$a" "$b" "$want" "$gbps" "$round_trip_us" <<'PY' || failed=1
import sys
machine, a, b = sys.argv[1:4]
want = float(sys.argv[4]) + 8 * 8 / float(sys.argv[5])  # ns: 8 bytes at the link's rate
one_way = float(sys.argv[6]) * 1000 / 2
ok = abs(one_way - want) <= max(0.01 * want, 10)
print(f"{machine}: {a} to {b}: simulated {one_way:.1f} ns one way, the model's {want:.1f} ns{'' if ok else '  FAILED'}")
sys.exit(0 if ok else 1)
PY
done <<'PAIRS'
data/machines/cpmd-ib-16.toml cpmd01-0 cpmd02-0 1000 32
data/machines/cpmd-ib-16.toml cpmd01-0 cpmd01-1 400 32
bench/machines/fattree-8x16-thin.toml ft000-0 ft001-0 1000 100
bench/machines/fattree-8x16-thin.toml ft000-0 ft127-0 1100 100
data/machines/jinr-kvm.toml vm1-0 vm2-0 15000 28
data/machines/jinr-kvm.toml vm1-0 vm3-0 30000 28
bench/machines/dragonfly-plus-4x4x4x8.toml p000-0 p001-0 1300 200
bench/machines/dragonfly-plus-4x4x4x8.toml p000-0 p008-0 1600 200
bench/machines/dragonfly-plus-4x4x4x8.toml p000-0 p127-0 1750 200
bench/machines/dragonfly-4x8x4.toml d000-0 d001-0 1600 200
bench/machines/dragonfly-4x8x4.toml d000-0 d004-0 2000 200
bench/machines/dragonfly-4x8x4.toml d000-0 d127-0 2800 200
PAIRS

# Two senders, two receivers: ranks 0 and 1 each send 1 MiB to rank 2 + r.
cat >pairs.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const int n = 1 << 17; /* doubles: 1 MiB */
  double* buf = calloc((size_t)n, sizeof(double));
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (r < 2) {
    MPI_Send(buf, n, MPI_DOUBLE, r + 2, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(buf, n, MPI_DOUBLE, r - 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("%d %.3f\n", r, (MPI_Wtime() - t0) * 1e6);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
C
smpicc -O1 pairs.c -o pairs
# On the irregular tree (tree-irregular.toml), leaf a-l0 has 3 cables up
# (a-s0, a-s0, a-s1): ir08 and ir11 (8 and 11 mod 3 = 2) both take the
# one to a-s1, ir08 and ir09 (2 and 0) two; the same T(4) = 1100 ns.
# machine, senders, receivers, shared or apart, the route's ns, the cable's bytes a ns
for case in "fattree-8x16-thin ft000 ft001 ft016 ft020 shared 1100 12.5" \
  "fattree-8x16-thin ft000 ft001 ft016 ft017 apart 1100 12.5" \
  "tree-irregular ir00 ir01 ir08 ir11 shared 1100 12.5" "tree-irregular ir00 ir01 ir08 ir09 apart 1100 12.5" \
  "dragonfly-plus-4x4x4x8 p000 p001 p032 p036 shared 1750 25" \
  "dragonfly-plus-4x4x4x8 p000 p001 p032 p033 apart 1750 25"; do
  set -- $case
  printf '%s-0\n%s-0\n%s-0\n%s-0\n' "$2" "$3" "$4" "$5" >hosts
  ends=$(RANKMAP_SMPI_MACHINE="$src/bench/machines/$1.toml" smpirun -np 4 -hostfile hosts \
    -platform "$platform" "${smpi_options[@]}" ./pairs | sort | awk '{print $2}')
  python3 - "$6" "$1" "$7" "$8" $ends <<'PY' || failed=1
import sys
case, machine, route_ns, rate = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
first, second = float(sys.argv[5]), float(sys.argv[6])
share = 2 if case == "shared" else 1
want = (route_ns + share * 1048576 / rate) / 1000  # us: T(hops), then the bytes through one cable
ok = abs(first - want) <= 0.01 * want and abs(second - want) <= 0.01 * want
print(f"two 1 MiB flows across {machine}, cables {case}: end at {first:.2f} and {second:.2f} us, "
      f"the model's {want:.2f} us{'' if ok else '  FAILED'}")
sys.exit(0 if ok else 1)
PY
done

# Both ways at once: rank r sends 32 KiB to r ^ 1 and receives 32 KiB from
# it; even ranks on cpmd01, odd ones on cpmd02. Each rank prints when it
# started (after the barrier) and when its two requests were done.
cat >both_ways.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const int bytes = 32768;
  char* out = calloc(bytes, 1);
  char* in = calloc(bytes, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  MPI_Request req[2];
  MPI_Irecv(in, bytes, MPI_BYTE, r ^ 1, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(out, bytes, MPI_BYTE, r ^ 1, 0, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  printf("%d %.3f %.3f\n", r, start * 1e6, MPI_Wtime() * 1e6);
  free(out), free(in);
  MPI_Finalize();
  return 0;
}
C
smpicc -O1 both_ways.c -o both_ways
for core in 0 1 2 3; do printf 'cpmd01-%d\ncpmd02-%d\n' "$core" "$core"; done >hosts
RANKMAP_SMPI_MACHINE="$src/data/machines/cpmd-ib-16.toml" RANKMAP_SMPI_CORES=8 smpirun -np 8 -hostfile hosts \
  -platform "$platform" "${smpi_options[@]}" ./both_ways >both_ways.out
python3 - both_ways.out <<'PY' || failed=1
import sys
rows = [line.split() for line in open(sys.argv[1])]
if len(rows) != 8:
    sys.exit(f"both ways: expected 8 ranks' lines, got {len(rows)}")
last_start = max(float(r[1]) for r in rows)
want = last_start + (1000 + 4 * (32768 + 16) / 4) / 1000  # us: T(2), then 4 messages through one NIC
failed = False
for way, parity in (("cpmd02 to cpmd01", 0), ("cpmd01 to cpmd02", 1)):  # the receivers' parity
    ends = [float(r[2]) for r in rows if int(r[0]) % 2 == parity]
    ok = all(abs(end - want) <= 0.01 * (want - last_start) for end in ends)
    failed |= not ok
    print(f"both ways, {way}: exchanges end {min(ends) - last_start:.2f} to {max(ends) - last_start:.2f} us "
          f"after the last start, the model's {want - last_start:.2f} us{'' if ok else '  FAILED'}")
sys.exit(1 if failed else 0)
PY
exit $failed
