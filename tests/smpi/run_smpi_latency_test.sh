#!/usr/bin/env bash
# The SMPI torus platform (bench/smpi/torus_platform.cpp) gives the gain
# model's message time: an 8-byte ping-pong between node00 and a node d hops
# away, simulated by SimGrid's SMPI, takes T(d) = t_inj + t_ej + t_hop * d
# one way (plus 8 B at 100 Gbit/s), on a 4x4x4 torus with the Desmos
# latencies (425 + 425 ns, 129 ns a hop); between two cores of node00 it
# takes t_local (by default t_inj + t_ej). Within 1 %: SimGrid adds about
# 1.3 ns a hop for the 8 bytes on each link, and the ping-pong's start-up
# skew spread over its 1000 rounds. Then that links are shared fairly.
# Usage: run_smpi_latency_test.sh PLATFORM_SO SOURCE_DIR
set -euo pipefail
platform=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
smpicc -O1 "$src/apps/pingpong.c" -o pingpong
mapfile -t smpi_options < <(python3 "$src/bench/smpi/validate.py" --print-smpi-options)
((${#smpi_options[@]})) || { echo "$0: validate.py --print-smpi-options printed nothing" >&2; exit 1; }
export RANKMAP_SMPI_DIMS=4,4,4 RANKMAP_SMPI_NIC_NS=425 RANKMAP_SMPI_HOP_NS=129 RANKMAP_SMPI_GBPS=100
failed=0
# Hosts are cores, <node>-<core>. node01 is (1,0,0): 1 hop; node02 (2,0,0):
# 2; node21 (1,1,1): 3; node42 (2,2,2): 6; node00-1 is node00's second core.
for spec in "node01-0 1" "node02-0 2" "node21-0 3" "node42-0 6" "node00-1 0"; do
  set -- $spec
  printf 'node00-0\n%s\n' "$1" >hosts
  round_trip_us=$(smpirun -np 2 -hostfile hosts -platform "$platform" "${smpi_options[@]}" ./pingpong 8 1000 |
    awk '{print $2}')
  python3 - "$1" "$2" "$round_trip_us" <<'PY' || failed=1
import sys
host, hops, rt = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
one_way = rt * 1000 / 2
want = 425 + 425 + 129 * hops + 8 * 8 / 100  # ns; 8 bytes at 100 Gbit/s
print(f"{host}: {hops} hops, simulated {one_way:.1f} ns one way, T(d) {want:.1f} ns")
sys.exit(0 if abs(one_way - want) <= 0.01 * want else 1)
PY
done
# Fair shares: ranks on node01 (1 hop) and node03 (2 hops, half way round
# goes +) each send 1 MiB to node00 at once. Its ejection link carries
# both at 12.5 B/ns, so both end together near T(2) + 2 MiB / 12.5 B/ns
# (167.8 us). SimGrid's own sharing, by route latency, would end the
# 1-hop message about 10 us sooner.
cat >share.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const int n = 1 << 17; /* doubles: 1 MiB */
  double* buf = calloc(2 * (size_t)n, sizeof(double));
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (r == 0) {
    MPI_Request q[2];
    double end[2];
    MPI_Irecv(buf, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(buf + n, n, MPI_DOUBLE, 2, 0, MPI_COMM_WORLD, &q[1]);
    for (int k = 0; k < 2; ++k) {
      int i;
      MPI_Waitany(2, q, &i, MPI_STATUS_IGNORE);
      end[i] = MPI_Wtime() - t0;
    }
    printf("%.3f %.3f\n", end[0] * 1e6, end[1] * 1e6);
  } else {
    MPI_Send(buf, n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
C
smpicc -O1 share.c -o share
printf 'node00-0\nnode01-0\nnode03-0\n' >hosts
ends=$(smpirun -np 3 -hostfile hosts -platform "$platform" "${smpi_options[@]}" ./share)
python3 - $ends <<'PY' || failed=1
import sys
one_hop, two_hops = map(float, sys.argv[1:])
want = (425 + 425 + 129 * 2 + 2 * 1048576 / 12.5) / 1000  # us
print(f"1 MiB from 1 and 2 hops into one node: ends at {one_hop:.2f} and {two_hops:.2f} us, fair {want:.2f} us")
sys.exit(0 if abs(one_hop - two_hops) < 1 and abs(two_hops - want) <= 0.01 * want else 1)
PY
exit $failed
