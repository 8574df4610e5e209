#!/bin/bash
# defaults-sweep.sh — the measurements behind pillar's defaults without a plan
# (src/tune/plan_defaults.c): each candidate default configuration on each kind of grid of issue
# 32's table (tools/tune-table.sh), timed by `pillar run --plan off --verify off` (one
# application, median of 20 runs), so that the defaults can be chosen to stay within 1.25x of
# the tuned best on every kind. One device call of about 4 minutes.
#
#   tools/defaults-sweep.sh BUILD OUT     writes OUT/defaults-sweep.csv and prints the table
#
# Candidates: W/E/S/N stencils on the lattice 512x512x64 and the cubed sphere 6x384^2 x 64;
# graph stencils on 1M hexagons, 1M triangles and data/mpas-sphere.nc x 8192 levels.
set -uo pipefail
build=${1:?usage: defaults-sweep.sh BUILD OUT}
out=${2:?usage: defaults-sweep.sh BUILD OUT}
cd "$(dirname "$0")/.." || exit 1
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
pillar=$(cd "$build" && pwd)/pillar
mkdir -p "$out" || exit 1
csv="$out/defaults-sweep.csv"
echo "grid,stencil,candidate,ms" >"$csv"
mesh() { [ -s "$out/$1" ] || timeout 120 "$pillar" "${@:2}" >/dev/null 2>&1; }
mesh sphere.h5 mesh generate "$out/sphere.h5" --kind cubed-sphere --n 384 --levels 64
mesh hex.h5 mesh generate "$out/hex.h5" --kind hexagons --size 1024x1024 --levels 64
mesh tri.h5 mesh generate "$out/tri.h5" --kind triangles --size 724x724 --levels 64
mesh mpas.h5 mesh import data/mpas-sphere.nc "$out/mpas.h5" --levels 8192

quad=("idxvar-chasing:--access idxvar"
      "idxvar-nonchasing-compressed:--access idxvar --storage nonchasing --compress"
      "zloop-chasing-compressed:--access zloop --compress"
      "zloop-chasing:--access zloop"
      "zloop-sliced-256-z16-chasing-compressed:--access zloop-sliced --threads 256x1x1 --zslice 16 --compress"
      "zloop-sliced-256-z16-chasing:--access zloop-sliced --threads 256x1x1 --zslice 16")
graph=("idxvar:--access idxvar"
       "graph-twopass-256-z32:--access graph-twopass --threads 256x1x1 --zslice 32"
       "graph-twopass-128-z16:--access graph-twopass --threads 128x1x1 --zslice 16")
run() { # GRID-NAME STENCIL CANDIDATE FLAGS GRID-FLAGS...
    local name=$1 st=$2 cand=$3 flags=$4; shift 4
    local ms
    ms=$(timeout 120 "$pillar" run "$@" --stencil "$st" $flags --plan off --verify off --runs 20 2>&1 |
         awk '/^  time      median/ {print $3; exit}')
    echo "$name,$st,$cand,${ms:-failed}" | tee -a "$csv"
}
for st in laplap hdiff fastwaves; do
    for c in "${quad[@]}"; do run lattice $st "${c%%:*}" "${c#*:}" --size 512x512x64; done
done
for order in file zcurve; do
    for st in laplap hdiff; do
        for c in "${quad[@]}"; do
            run "sphere-$order" $st "${c%%:*}" "${c#*:}" --mesh "$out/sphere.h5" --layout $order
        done
    done
done
for g in hex tri mpas; do
    orders="file zcurve"
    [ $g = mpas ] && orders="file zcurve metis"
    for order in $orders; do
        for st in graphlap fluxdiff; do
            [ $g = mpas ] && [ $st = fluxdiff ] && continue
            for c in "${graph[@]}"; do
                run "$g-$order" $st "${c%%:*}" "${c#*:}" --mesh "$out/$g.h5" --layout $order
            done
        done
    done
done
