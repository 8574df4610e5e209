#!/bin/bash
# kernel-ab.sh — the in-core kernels built with and without a compile-time switch of
# access/kernels.cuh (issue 36: PILLAR_PREFETCH, the L2 prefetch; PILLAR_FLAT, the flat-warp
# copy of the code), in one device call: builds pillar once per variant (build-gpu as configured,
# then one folder per variant with its -D flags), then times each configuration below with every
# binary in turn (A, B, C, A, B, C: drift cancels), `pillar run --runs 20`, verified against
# the CPU. Lattice 512x512x64 and a cubed sphere 6xN² x 64 against its equal-cell regular grid,
# double. Prints one table (median ms of each variant, its ratio to the first) and keeps the logs.
#   tools/kernel-ab.sh                   in the repository root of a machine with an NVIDIA GPU
#   AB_VARIANTS='pf0:-DPILLAR_PREFETCH=0 flat0:-DPILLAR_FLAT=0'
#                                        the variants beside build-gpu (NAME:FLAGS, space-separated;
#                                        FLAGS joined by commas), built in build-NAME; none: only
#                                        build-gpu
#   AB_SPHERE=384                        the sphere's N (0: no sphere rows)
#   AB_REPS=2                            rounds a configuration (the table takes the median)
#   AB_ONLY='laplap'                     only the rows whose label matches (grep -E)
#   PILLAR=path                          no build: time that binary alone (AB_VARIANTS ignored)
#   AB_BACKEND=cpu AB_SIZE=24x24x4       the CPU backend and a small lattice (the script's own test,
#                                        tests/kernel_ab_cli.sh; the figures mean nothing there)
# Output under $OUT (or ./kernel-ab-out): ab.txt (the table), logs.tar.gz. Exit status: 0, 1 when
# a run failed or was not verified (its row says FAIL), 2 for a bad setting (named).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
backend=${AB_BACKEND:-gpu} size=${AB_SIZE:-512x512x64} levels=${size##*x}
case "$backend" in gpu | cpu) ;; *) echo "kernel-ab.sh: AB_BACKEND '$backend': gpu or cpu" >&2; exit 2 ;; esac
if [ -n "${PILLAR:-}" ] && [ ! -x "$PILLAR" ]; then
    echo "kernel-ab.sh: PILLAR '$PILLAR' is not an executable pillar binary" >&2
    exit 2
fi
out=${OUT:-kernel-ab-out}
mkdir -p "$out"
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
work=$(mktemp -d /tmp/kernel-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
n=${AB_SPHERE:-384} reps=${AB_REPS:-2} only=${AB_ONLY:-.}
table=$out/ab.txt
: >"$table"
say() { echo "$*" | tee -a "$table"; }

device=$([ "$backend" = gpu ] && nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
say "device: ${device:-$backend backend}; commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
build() { # build DIR [CUDA flags]
    cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Release ${2:+"-DCMAKE_CUDA_FLAGS=$2"} >"$work/cfg-$1.log" 2>&1 &&
        cmake --build "$1" -j "$(nproc)" --target pillar >"$work/build-$1.log" 2>&1
}
variants=${AB_VARIANTS:-pf0:-DPILLAR_PREFETCH=0 flat0:-DPILLAR_FLAT=0}
[ "$variants" = none ] && variants=""
if [ -n "${PILLAR:-}" ]; then # a given binary, no build
    bins=("$PILLAR")
else
    bins=(build-gpu/pillar) pids=()
    build build-gpu & pids+=($!)
    for v in $variants; do
        bins+=("build-${v%%:*}/pillar")
        build "build-${v%%:*}" "$(echo "${v#*:}" | tr ',' ' ')" & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || { say "build failed"; tail -n 20 "$work"/build-*.log; tar -C "$work" -czf "$out/logs.tar.gz" .; exit 1; }; done
    say "built in ${SECONDS}s"
fi
name() { # a binary's column name: its build folder without build-, or the file's name
    local d; d=$(basename "$(dirname "$1")"); [ "$d" = . ] && d=$(basename "$1"); echo "${d#build-}"; }

sphere=$work/sphere.nc
if [ "$n" != 0 ]; then
    "${bins[0]}" mesh generate "$sphere" --kind cubed-sphere --n "$n" --levels "$levels" >"$work/sphere.log" 2>&1 ||
        { say "sphere: $(tail -n 1 "$work/sphere.log")"; n=0; }
fi
reg=$(python3 -c "import math; print(round(math.sqrt(6*$n*$n)) + 4)")

# label | pillar run flags
rows=(
    "laplap zloop zcurve-w chasing packed|--stencil laplap --layout zcurve-w --storage chasing --compress --packed-rows --access zloop --threads 256x1x1"
    "laplap zloop-sliced zcurve-w chasing|--stencil laplap --layout zcurve-w --storage chasing --compress --access zloop-sliced --zslice 16 --threads 256x1x1"
    "laplap idxvar rowmajor nonchasing|--stencil laplap --layout rowmajor --storage nonchasing --compress --access idxvar --threads 128x1x1"
    "laplap zloop-plain rowmajor nonchasing packed|--stencil laplap --layout rowmajor --storage nonchasing --compress --packed-rows --access zloop-plain --threads 128x1x1"
    "laplap pairs rowmajor nonchasing packed|--stencil laplap --layout rowmajor --storage nonchasing --compress --packed-rows --access pairs --threads 128x1x1"
    "laplap pairs zcurve nonchasing packed|--stencil laplap --layout zcurve --storage nonchasing --compress --packed-rows --access pairs --threads 128x1x1"
    "laplap pairs zcurve-w chasing|--stencil laplap --layout zcurve-w --storage chasing --access pairs --threads 256x1x1"
    "laplap regular pairs|--stencil laplap --grid regular --access pairs"
    "laplap regular idxvar|--stencil laplap --grid regular --access idxvar --threads 32x2x2"
    "laplap regular zloop-sliced|--stencil laplap --grid regular --access zloop-sliced --zslice 16"
    "hdiff idxvar rowmajor nonchasing|--stencil hdiff --layout rowmajor --storage nonchasing --compress --access idxvar --threads 128x1x1"
    "hdiff zloop-plain zcurve-w chasing|--stencil hdiff --layout zcurve-w --storage chasing --compress --access zloop-plain --threads 256x1x1"
    "hdiff zloop-sliced zcurve-w chasing|--stencil hdiff --layout zcurve-w --storage chasing --compress --access zloop-sliced --zslice 16 --threads 256x1x1"
    "hdiff zloop-plain rowmajor nonchasing packed|--stencil hdiff --layout rowmajor --storage nonchasing --compress --packed-rows --access zloop-plain --threads 128x1x1"
    "hdiff pairs rowmajor nonchasing packed|--stencil hdiff --layout rowmajor --storage nonchasing --compress --packed-rows --access pairs --threads 128x1x1"
    "hdiff pairs zcurve nonchasing packed|--stencil hdiff --layout zcurve --storage nonchasing --compress --packed-rows --access pairs --threads 128x1x1"
    "hdiff regular pairs|--stencil hdiff --grid regular --access pairs"
    "hdiff regular idxvar|--stencil hdiff --grid regular --access idxvar --threads 32x2x2"
)
lattice="--size $size --precision double --backend $backend --runs 20"
if [ "$n" != 0 ]; then
    for st in laplap hdiff; do
        rows+=("$st sphere file zloop-sliced chasing|--stencil $st --mesh $sphere --layout file --storage chasing --compress --access zloop-sliced --zslice 16 --threads 256x1x1")
        rows+=("$st sphere file zloop chasing packed|--stencil $st --mesh $sphere --layout file --storage chasing --compress --packed-rows --access zloop --threads 256x1x1")
        rows+=("$st sphere file zloop-plain nonchasing packed|--stencil $st --mesh $sphere --layout file --storage nonchasing --compress --packed-rows --access zloop-plain --threads 128x1x1")
        rows+=("$st sphere file zloop-plain chasing|--stencil $st --mesh $sphere --layout file --storage chasing --compress --access zloop-plain --threads 128x1x1")
        rows+=("$st sphere zcurve zloop-plain nonchasing packed|--stencil $st --mesh $sphere --layout zcurve --storage nonchasing --compress --packed-rows --access zloop-plain --threads 128x1x1")
        rows+=("$st sphere file idxvar nonchasing|--stencil $st --mesh $sphere --layout file --storage nonchasing --compress --access idxvar --threads 128x1x1")
        rows+=("$st sphere file pairs nonchasing packed|--stencil $st --mesh $sphere --layout file --storage nonchasing --compress --packed-rows --access pairs --threads 128x1x1")
        rows+=("$st sphere's regular ${reg}x${reg} pairs|--stencil $st --grid regular --size ${reg}x${reg}x$levels --access pairs")
    done
fi

ms() { sed -n 's/^  time *median \([0-9.]*\) ms.*/\1/p' "$1"; }
med() { python3 -c "import statistics,sys; v=[float(x) for x in sys.argv[1:] if x]; print('%.4f' % statistics.median(v) if v else 'n/a')" "$@"; }
hdr=$(printf '%-44s' configuration); for b in "${bins[@]}"; do hdr+=$(printf ' %10s' "$(name "$b")"); done
say "$hdr  ratios to $(name "${bins[0]}")  verify"
i=0 failed=0
for row in "${rows[@]}"; do
    label=${row%%|*} flags=${row#*|}
    echo "$label" | grep -qE "$only" || continue
    i=$((i + 1))
    v=""
    declare -A t=()
    case "$flags" in *--mesh* | *--size*) base="--precision double --backend $backend --runs 20" ;; *) base=$lattice ;; esac
    for r in $(seq "$reps"); do
        for bin in "${bins[@]}"; do
            log=$work/r$i-$(name "$bin")-$r.log
            # shellcheck disable=SC2086
            timeout 120 "$bin" run $base $flags >"$log" 2>&1 || echo "rc $?" >>"$log"
            grep -q "verify *PASS" "$log" || v="$v FAIL($(name "$bin"))"
            t[$bin]="${t[$bin]:-} $(ms "$log")"
        done
    done
    line=$(printf '%-44s' "$label") ratios="" ref=""
    for bin in "${bins[@]}"; do
        # shellcheck disable=SC2086
        m=$(med ${t[$bin]})
        line+=$(printf ' %10s' "$m")
        [ -z "$ref" ] && ref=$m && continue
        ratios+=" $(python3 -c "import sys; a,b=sys.argv[1:]; print('%.3f' % (float(b)/float(a)) if 'n/a' not in (a,b) else 'n/a')" "$ref" "$m")"
    done
    say "$line $ratios  ${v:-PASS}"
    [ -z "$v" ] || failed=1
    unset t
done
say "(ratios: a variant's time / the first's; > 1: the first is faster) ${SECONDS}s in all"
rm -f "$sphere"
tar -C "$work" -czf "$out/logs.tar.gz" .
exit $failed
