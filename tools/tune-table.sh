#!/bin/bash
# tune-table.sh — issue 32's table on the GPU: for each row, the untuned default (`pillar run
# --plan off`), `pillar tune` (its wall time and the fastest it measured), and the tuned default
# (`pillar run` taking the plan tune stored). One device call of about 8 minutes with the default
# budget; every row is independent (a row whose step fails or times out says so and the next
# runs).
#
#   tools/tune-table.sh BUILD OUT    BUILD: a CUDA build holding pillar; OUT: a folder ($OUT of the
#                                    device tool); writes OUT/tune-table.csv, OUT/tune-table.md,
#                                    one log per step (OUT/logs/), the plans (OUT/cache/plans)
#
# Rows: the lattice 512x512x64 laplap, hdiff, fastwaves; the cubed sphere 6x384^2 x 64 laplap,
# hdiff; 1M hexagons (1024x1024) and 1M triangles (724x724 squares, 2 each) x 64 graphlap,
# fluxdiff; data/mpas-sphere.nc (92 cells) imported with 8192 levels, graphlap.
# "best" is the fastest configuration tune measured within its budget, not the full `pillar bench`
# matrix (which does not fit one call for every row): the table says so in its header.
#
# Settings (environment): TUNE_TABLE_BUDGET seconds per tune (20), TUNE_TABLE_RUNS timed runs of
# each `pillar run` (20), TUNE_TABLE_SMALL=1 small grids (a check of the script itself, e.g. on
# the CPU: tune then fails without a GPU and its cells say so), TUNE_TABLE_ROWS a space-separated
# subset of row names (lattice-laplap ... mpas-graphlap).
set -uo pipefail
build=${1:?usage: tune-table.sh BUILD OUT}
out=${2:?usage: tune-table.sh BUILD OUT}
cd "$(dirname "$0")/.." || exit 1
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
pillar=$(cd "$build" && pwd)/pillar
mkdir -p "$out/logs" || exit 1
out=$(cd "$out" && pwd)
export PILLAR_CACHE_DIR="$out/cache"
mkdir -p "$PILLAR_CACHE_DIR" && chmod 700 "$PILLAR_CACHE_DIR"
budget=${TUNE_TABLE_BUDGET:-20}
runs=${TUNE_TABLE_RUNS:-20}
small=${TUNE_TABLE_SMALL:-0}
t_start=$SECONDS

if [ "$small" = 1 ]; then
    lat=64x64x16; sph=12; hex=32x32; tri=24x24; mpas_levels=64; levels=16
else
    lat=512x512x64; sph=384; hex=1024x1024; tri=724x724; mpas_levels=8192; levels=64
fi
all_rows="lattice-laplap lattice-hdiff lattice-fastwaves sphere-laplap sphere-hdiff
hex-graphlap hex-fluxdiff tri-graphlap tri-fluxdiff mpas-graphlap"
rows=${TUNE_TABLE_ROWS:-$all_rows}

now() { date +%s.%N; }
# the median of a pillar run log, ms
run_ms() { awk '/^  time      median/ {print $3; exit}' "$1"; }
# the best of a pillar tune log: ms, then the configuration
tune_ms() { sed -n 's/^  best      .*: \([0-9.]*\) ms.*/\1/p' "$1" | head -n1; }
tune_cfg() { sed -n 's/^  best      \(.*\): [0-9.]* ms.*/\1/p' "$1" | head -n1; }
verified() { grep -q "verify    PASS" "$1" && echo yes || echo no; }

# make NAME TIMEOUT COMMAND...: a mesh file (once), its log in logs/
make_mesh() {
    local file=$1 t=$2; shift 2
    [ -s "$file" ] && return 0
    timeout "$t" "$@" >"$out/logs/$(basename "$file").log" 2>&1
}

csv="$out/tune-table.csv"
md="$out/tune-table.md"
echo "row,grid,stencil,untuned_ms,tune_s,tuned_ms,best_tune_ms,untuned_over_best,tuned_over_best,plan,untuned_verified,tuned_verified,status" >"$csv"

for row in $rows; do
    case $row in
    lattice-*) grid=(--size "$lat"); gname="lattice $lat" ;;
    sphere-*)
        make_mesh "$out/sphere.h5" 120 "$pillar" mesh generate "$out/sphere.h5" --kind cubed-sphere \
            --n "$sph" --levels "$levels"
        grid=(--mesh "$out/sphere.h5"); gname="cubed sphere 6x${sph}^2 x $levels" ;;
    hex-*)
        make_mesh "$out/hex.h5" 120 "$pillar" mesh generate "$out/hex.h5" --kind hexagons \
            --size "$hex" --levels "$levels"
        grid=(--mesh "$out/hex.h5"); gname="hexagons $hex x $levels" ;;
    tri-*)
        make_mesh "$out/tri.h5" 120 "$pillar" mesh generate "$out/tri.h5" --kind triangles \
            --size "$tri" --levels "$levels"
        grid=(--mesh "$out/tri.h5"); gname="triangles 2x$tri x $levels" ;;
    mpas-*)
        make_mesh "$out/mpas.h5" 60 "$pillar" mesh import data/mpas-sphere.nc "$out/mpas.h5" \
            --levels "$mpas_levels"
        grid=(--mesh "$out/mpas.h5"); gname="MPAS data/mpas-sphere.nc x $mpas_levels" ;;
    *) echo "unknown row $row"; continue ;;
    esac
    stencil=${row#*-}
    status=ok
    log="$out/logs/$row"
    if [ "${grid[0]}" = --mesh ] && [ ! -s "${grid[1]}" ]; then
        status="no mesh"
    fi
    untuned="" tune_s="" tuned="" best="" cfg="" uv=no tv=no
    if [ "$status" = ok ]; then
        timeout 120 "$pillar" run "${grid[@]}" --stencil "$stencil" --plan off --runs "$runs" \
            >"$log-untuned.txt" 2>&1 || status="untuned run failed"
        untuned=$(run_ms "$log-untuned.txt"); uv=$(verified "$log-untuned.txt")
        t0=$(now)
        timeout $((${budget%.*} + 120)) "$pillar" tune "${grid[@]}" --stencil "$stencil" \
            --budget "$budget" --top 15 >"$log-tune.txt" 2>&1 || status="tune failed"
        tune_s=$(awk -v a="$(now)" -v b="$t0" 'BEGIN {printf "%.1f", a - b}')
        best=$(tune_ms "$log-tune.txt"); cfg=$(tune_cfg "$log-tune.txt")
        timeout 120 "$pillar" run "${grid[@]}" --stencil "$stencil" --runs "$runs" \
            >"$log-tuned.txt" 2>&1 || status="$status; tuned run failed"
        tuned=$(run_ms "$log-tuned.txt"); tv=$(verified "$log-tuned.txt")
        grep -q "^  tuned " "$log-tuned.txt" || [ -z "$best" ] || status="$status; the run took no plan"
    fi
    ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
    ub=$(ratio "$untuned" "$best"); tb=$(ratio "$tuned" "$best")
    echo "$row,$gname,$stencil,$untuned,$tune_s,$tuned,$best,$ub,$tb,\"$cfg\",$uv,$tv,\"$status\"" >>"$csv"
    echo "$row: untuned ${untuned:-?} ms, tune ${tune_s:-?} s (best ${best:-?} ms), tuned ${tuned:-?} ms: $status ($((SECONDS - t_start)) s so far)"
done

{
    echo "Issue 32's table: $(grep -m1 -o 'NVIDIA[^,]*' "$out"/logs/*-tune.txt 2>/dev/null | head -n1 | cut -d: -f2-), double,"
    echo "medians of $runs runs; tune --budget $budget s. \"best\" is the fastest configuration tune measured"
    echo "within its budget (not the full pillar bench matrix); ratios are against it."
    echo
    echo "| grid | stencil | untuned default (ms) | tune (s) | tuned default (ms) | best tune measured (ms) | untuned / best | tuned / best | plan | verified | status |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---|---|---|"
    tail -n +2 "$csv" | python3 -c '
import csv, sys
for r in csv.reader(sys.stdin):
    row, grid, st, u, ts, t, b, ub, tb, cfg, uv, tv, status = r
    print(f"| {grid} | {st} | {u} | {ts} | {t} | {b} | {ub} | {tb} | {cfg} | {uv}/{tv} | {status} |")
'
} >"$md"
cat "$md"
echo "total $((SECONDS - t_start)) s"
