#!/bin/bash
# api-bench.sh — a model's time loop through libpillar beside the kernels of `pillar run`, on the
# GPU (the measurement of docs/api.md's "Speed"): laplap, double, 100 steps, on a 512x512 lattice
# x 64 levels and on a 6x384^2 cubed sphere x 64 levels.
#
#   tools/api-bench.sh BUILD OUT      BUILD: a CUDA build (pillar, tests/api_loop); OUT: a folder
#
# For each grid: bench/api_loop (step(T), step(1) loop, host-array loop, device-array set/get
# against a device copy; every mode checked bit for bit against the CPU backend) and `pillar run
# --steps 100 --verify off` twice: with the library's configuration (the storage and strategy
# of src/exec/fastest.c) and with the command line's defaults; its "kernels" line is the time
# per step of its in-core kernels. Writes OUT/api-GRID.txt, .csv, cli-*.txt and OUT/api-bench.md,
# the table; exits 1 when a mode is not bit-exact.
set -uo pipefail
build=${1:?usage: api-bench.sh BUILD OUT}
out=${2:?usage: api-bench.sh BUILD OUT}
mkdir -p "$out"
pillar=$build/pillar
loop=$build/tests/api_loop
steps=${API_BENCH_STEPS:-100}
runs=${API_BENCH_RUNS:-10}
n=${API_BENCH_SPHERE:-384}
# the library's configuration without a plan: the built-in plan for laplap (src/tune/plan_defaults.c)
lib_flags="--stencil laplap --access zloop-sliced --threads 256x1x1 --zslice 16 --storage chasing --plan off"
rc=0
"$pillar" mesh generate "$out/sphere.h5" --kind cubed-sphere --n "$n" --levels 64 >"$out/sphere.log" 2>&1 ||
    { cat "$out/sphere.log"; exit 1; }
kernels() { # the "kernels" line of a pillar run log, ms per step
    awk '/^  kernels/ {print $2; exit}' "$1"
}
echo "| grid | CLI kernels, library's config (ms/step) | CLI kernels, CLI defaults | step(T) | step(1) loop | loop / CLI | loop / step(T) | device set / d2d copy | device get / d2d copy | host loop / (step + h2d + d2h) | state bound: step(1) loop | bound in place | bit-exact |" >"$out/api-bench.md"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|" >>"$out/api-bench.md"
for grid in lattice sphere; do
    if [ $grid = lattice ]; then
        where=(--lattice 512x512x64)
        cli=(--size 512x512x64 --layout rowmajor)
    else
        where=(--mesh "$out/sphere.h5")
        cli=(--mesh "$out/sphere.h5" --layout file)
    fi
    "$loop" "${where[@]}" --steps "$steps" --runs "$runs" --csv "$out/api-$grid.csv" >"$out/api-$grid.txt" 2>&1 || rc=1
    "$pillar" run "${cli[@]}" $lib_flags --steps "$steps" --verify off >"$out/cli-$grid-lib.txt" 2>&1
    "$pillar" run "${cli[@]}" --stencil laplap --steps "$steps" --verify off >"$out/cli-$grid-default.txt" 2>&1
    python3 - "$out/api-$grid.csv" "$(kernels "$out/cli-$grid-lib.txt")" "$(kernels "$out/cli-$grid-default.txt")" "$grid" >>"$out/api-bench.md" <<'EOF'
import csv, sys
rows = {r["what"]: r for r in csv.DictReader(open(sys.argv[1]))}
cli_lib, cli_def, grid = float(sys.argv[2] or "nan"), float(sys.argv[3] or "nan"), sys.argv[4]
ms = lambda k: float(rows[k]["ms"])
t, loop = ms("step(T)"), ms("step(1) loop")
exact = all(r["differ"] == "0" for r in rows.values())
r0 = next(iter(rows.values()))
print(f"| {grid} ({r0['cells']} cells x {r0['levels']}) | {cli_lib:.4f} | {cli_def:.4f} | {t:.4f} | {loop:.4f} | "
      f"{loop / cli_lib:.3f}x | {loop / t:.3f}x | {float(rows['set_field_device']['ratio']):.2f}x | "
      f"{float(rows['get_field_device']['ratio']):.2f}x | {float(rows['host set+step(1)+get loop']['ratio']):.2f}x | "
      f"{ms('step(1) loop with the state bound'):.4f} | "
      f"{ms('step(1) loop bound in place') if 'step(1) loop bound in place' in rows else float('nan'):.4f} | "
      f"{'yes' if exact else 'NO'} |")
EOF
done
cat "$out/api-bench.md"
exit $rc
