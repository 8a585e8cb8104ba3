#!/usr/bin/env bash
# rankmap's dragonfly against SimGrid's own DragonflyZone (issue 54):
#  - every ordered pair's minimal route is the zone's, link for link, on
#    SimGrid's documented shape 3,4;4,3;5,1;2 and on 4,2;1,1;8,1;4
#    (bench/smpi/dragonfly_routes.cpp; its route within a group included);
#  - an 8-byte ping-pong on the SMPI platform over that zone
#    (dragonfly_platform.cpp) takes the model's time, one way, worked out
#    by hand: on 3,4;4,3;5,1;2, df000 to df001 (one router) 2 hops,
#    850 + 2 x 129 = 1108 ns; df000 (g0c0r0) to df119 (g2c3r4): green to
#    router 2 (the one cabled to g2), the global link, in at g2c0r0, green
#    to r4, black to chassis 3: 6 hops, 850 + 6 x 129 = 1624 ns. Each plus
#    8 bytes at 100 Gbit/s, within 1 % or 10 ns.
# Usage: run_smpi_dragonfly_test.sh ROUTES_EXE PLATFORM_SO SOURCE_DIR
set -euo pipefail
routes=$(realpath "$1")
platform=$(realpath "$2")
src=$(realpath "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failed=0
for m in simgrid-dragonfly-3x4x5x2 simgrid-dragonfly-4x1x8x4; do
  "$routes" "$src/bench/machines/$m.toml" || failed=1
done
mapfile -t smpi_options < <(python3 "$src/bench/smpi/validate.py" --print-smpi-options)
((${#smpi_options[@]})) || { echo "$0: validate.py --print-smpi-options printed nothing" >&2; exit 1; }
smpicc -O1 "$src/apps/pingpong.c" -o pingpong
machine=bench/machines/simgrid-dragonfly-3x4x5x2.toml
while read -r a b want; do
  printf '%s\n%s\n' "$a" "$b" >hosts
  round_trip_us=$(RANKMAP_SMPI_MACHINE="$src/$machine" smpirun -np 2 -hostfile hosts -platform "$platform" \
    "${smpi_options[@]}" ./pingpong 8 1000 | awk '{print $2}')
  python3 - "$a" "$b" "$want" "$round_trip_us" <<'PY' || failed=1
import sys
a, b = sys.argv[1:3]
want = float(sys.argv[3]) + 8 * 8 / 100  # ns: 8 bytes at 100 Gbit/s
one_way = float(sys.argv[4]) * 1000 / 2
ok = abs(one_way - want) <= max(0.01 * want, 10)
print(f"{a} to {b}: simulated {one_way:.1f} ns one way, the model's {want:.1f} ns{'' if ok else '  FAILED'}")
sys.exit(0 if ok else 1)
PY
done <<'PAIRS'
df000-0 df001-0 1108
df000-0 df119-0 1624
PAIRS
exit $failed
