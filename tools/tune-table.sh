#!/bin/bash
# tune-table.sh — issue 32's table on the GPU: for each row, the untuned default (`pillar run
# --plan off`), `pillar tune` (its wall time and the fastest it measured), the tuned default
# (`pillar run` taking the plan tune stored) and the best of the full `pillar bench` matrix for
# the row's grid and stencil (every order x storage x strategy x block shape; the regular twins
# left out). Every row is independent (a row whose step fails or times out says so and the next
# runs); the whole table takes more than one device call: split it with TUNE_TABLE_ROWS and
# TUNE_TABLE_PARTS, and join the CSVs with tools/tune-table-join.py.
#
#   tools/tune-table.sh BUILD OUT    BUILD: a CUDA build holding pillar; OUT: a folder ($OUT of the
#                                    device tool); writes OUT/tune-table.csv, OUT/tune-table.md,
#                                    one log per step (OUT/logs/), the plans (OUT/cache/plans),
#                                    bench's CSV and JSON (OUT/logs/ROW-bench/)
#
# Rows: the lattice 512x512x64 laplap, hdiff, fastwaves; the cubed sphere 6x384^2 x 64 laplap,
# hdiff; 1M hexagons (1024x1024) and 1M triangles (724x724 squares, 2 each) x 64 graphlap,
# fluxdiff; an MPAS mesh x 512 levels, graphlap: $TUNE_TABLE_MPAS (default
# .devdata/mpas-40962.nc, from `tools/make-samples.py --mpas 64 FILE`: 40962 cells), or without
# it data/mpas-sphere.nc (92 cells) x 8192 levels.
#
# Settings (environment): TUNE_TABLE_BUDGET seconds per tune (45, pillar tune's default), TUNE_TABLE_RUNS timed runs of
# each `pillar run` (20), TUNE_TABLE_BENCH_RUNS timed runs of each bench configuration (10),
# TUNE_TABLE_PARTS which columns: "tune bench" (both, the default), "tune" (untuned, tune,
# tuned) or "bench", TUNE_TABLE_SMALL=1 small grids (a check of the script itself, e.g. on the
# CPU: tune and bench then fail without a GPU and their cells say so), TUNE_TABLE_ROWS a
# space-separated subset of row names (lattice-laplap ... mpas-graphlap).
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
budget=${TUNE_TABLE_BUDGET:-45}
bench_runs=${TUNE_TABLE_BENCH_RUNS:-10}
parts=${TUNE_TABLE_PARTS:-tune bench}
mpas_file=${TUNE_TABLE_MPAS:-.devdata/mpas-40962.nc}
runs=${TUNE_TABLE_RUNS:-20}
small=${TUNE_TABLE_SMALL:-0}
t_start=$SECONDS

if [ "$small" = 1 ]; then
    lat=64x64x16; sph=12; hex=32x32; tri=24x24; mpas_levels=64; levels=16
    mpas_file=data/mpas-sphere.nc
else
    lat=512x512x64; sph=384; hex=1024x1024; tri=724x724; levels=64
    mpas_levels=512
    [ -s "$mpas_file" ] || { mpas_file=data/mpas-sphere.nc; mpas_levels=8192; }
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
echo "row,grid,stencil,untuned_ms,tune_s,tuned_ms,best_tune_ms,bench_ms,bench_config,bench_s,plan,untuned_verified,tuned_verified,status" >"$csv"
# the fastest unstructured configuration of stencil $2 in bench's CSV $1: "ms,configuration"
bench_best() {
    python3 - "$1" "$2" <<'PY'
import csv, sys
best = None
for r in csv.DictReader(open(sys.argv[1])):
    if r["grid"] != "unstructured" or r["stencil"] != sys.argv[2]:
        continue
    if best is None or float(r["median_us"]) < float(best["median_us"]):
        best = r
if best:
    shape = "%sx%sx%s" % (best["bx"], best["by"], best["bz"])
    if best["zslice"] != "0":
        shape += " zslice " + best["zslice"]
    extra = "".join(", " + x for x, on in (("AoS", best["aos"] == "yes"),
                                          ("tables " + best["tables"], best["tables"] != "global")) if on)
    print("%.4f,%s order %s %s, %s %s%s" % (float(best["median_us"]) / 1e3, best["layout"],
          best["storage"], "compressed" if best["compressed"] == "yes" else "uncompressed",
          best["access"], shape, extra))
PY
}

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
        make_mesh "$out/mpas.h5" 60 "$pillar" mesh import "$mpas_file" "$out/mpas.h5" \
            --levels "$mpas_levels"
        grid=(--mesh "$out/mpas.h5"); gname="MPAS $(basename "$mpas_file") x $mpas_levels" ;;
    *) echo "unknown row $row"; continue ;;
    esac
    stencil=${row#*-}
    status=ok
    log="$out/logs/$row"
    if [ "${grid[0]}" = --mesh ] && [ ! -s "${grid[1]}" ]; then
        status="no mesh"
    fi
    untuned="" tune_s="" tuned="" best="" cfg="" uv="" tv="" bms="" bcfg="" bench_s=""
    if [ "$status" = ok ] && [[ " $parts " == *" tune "* ]]; then
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
    if [ "$status" = ok ] && [[ " $parts " == *" bench "* ]]; then
        t0=$(now)
        timeout "${TUNE_TABLE_BENCH_TIMEOUT:-540}" "$pillar" bench "${grid[@]}" --stencil "$stencil" \
            --runs "$bench_runs" --out "$log-bench" >"$log-bench.txt" 2>&1 || status="bench failed"
        bench_s=$(awk -v a="$(now)" -v b="$t0" 'BEGIN {printf "%.0f", a - b}')
        bcsv=$(ls "$log-bench"/bench-*.csv 2>/dev/null | head -n1)
        if [ -n "$bcsv" ]; then
            IFS=, read -r bms bcfg <<<"$(bench_best "$bcsv" "$stencil")"
        fi
    fi
    echo "$row,$gname,$stencil,$untuned,$tune_s,$tuned,$best,$bms,\"$bcfg\",$bench_s,\"$cfg\",$uv,$tv,\"$status\"" >>"$csv"
    echo "$row: untuned ${untuned:-?} ms, tune ${tune_s:-?} s (best ${best:-?} ms), tuned ${tuned:-?} ms, bench ${bms:-?} ms in ${bench_s:-?} s: $status ($((SECONDS - t_start)) s so far)"
done

device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
python3 tools/tune-table-join.py --device "${device:-no GPU}" --runs "$runs" --bench-runs "$bench_runs" \
    --budget "$budget" "$csv" >"$md"
cat "$md"
echo "total $((SECONDS - t_start)) s"
