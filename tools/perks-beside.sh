#!/bin/bash
# perks-beside.sh — issue 35's comparison in one device call: PERKS's own 3d7pt (L. Zhang et al.,
# "PERKS: Persistent Kernels for Iterative Memory-bound GPU Applications") built from a PERKS
# checkout and timed host loop against its persistent variants, beside pillar's iterated runs
# (host loop against the persistent launch) at the same sizes, double, the same steps.
# PERKS's source and build files stay out of this repository: the script takes a path to them.
#
#   tools/perks-beside.sh PERKS_DIR BUILD OUT
#       PERKS_DIR: a PERKS checkout (github.com/neozhang307/PERKS; its stencil/3dstencil is built
#                  into a temporary folder with nvcc for sm_90), or a folder of PERKS binaries
#                  already built: 3d7pt_{baseline,persistent,gen,genwr}[.exe], also looked up in
#                  PERKS_DIR/build/init/3d7pt (PERKS's own CMake build);
#       BUILD:     a CUDA build of pillar (BUILD/pillar);
#       OUT:       a folder ($OUT of the device tool).
#   Writes OUT/perks-beside.md (the table: per size PERKS host loop -> best persistent, pillar
#   host loop -> persistent, µs a step and speed-ups; then every configuration), OUT/perks-beside.csv
#   (one row per configuration), and the raw logs: OUT/perks-build.log, OUT/perks-runs.log,
#   OUT/pillar-*.log and bench --iterated's CSV/JSON under OUT/pillar-*/. Exit 0; 1 when a
#   configuration failed its check (PERKS's or pillar's) or nothing was timed; 2 on a usage error
#   or where no GPU is listed (nothing written then).
#
# PERKS side (binaries as PERKS's CMake names them, 3d7pt: 7-point Jacobi, halo 1):
#   baseline    host loop: one launch a step;           persistent: one cooperative launch, no cache;
#   gen         persistent, run with --usesm: state cached in shared memory (3d7pt's gen caches no
#               registers, so without --usesm it is a no-cache run like persistent: not run);
#   genwr       persistent, state cached in registers; with --usesm also in shared memory.
#   Run as `BIN LEVELS NX NX --iter=STEPS --bdim=B --blkpsm=K [--usesm] --warmup`, double; the time
#   is PERKS's own: CUDA events around the launches of the STEPS steps (kernels only, no copies).
#   Before the timed runs each configuration runs once with --check (PERKS_CHECK_STEPS steps against
#   PERKS's CPU reference, RMS error <= 1e-5): that run also prints why PERKS refuses a setting.
#   Build recipe: PERKS's sources accept only __CUDA_ARCH__ 600/700/800 (#error otherwise) and tune
#   register use per arch (700, 800): they are compiled in the sm_80 dialect to sm_90 code
#   (-gencode arch=compute_80,code=sm_90), -rdc=true (the kernels are defined in other files than
#   their launches), -std=c++17 (CUDA 13's headers), the driver and CPU reference with the host C++
#   compiler (PERKS's common.hpp redefines float4/double4, which nvcc's headers define).
# pillar side: `pillar bench --iterated` (kernels only, each variant verified bit for bit on a
#   warm-up run) for laplap on the 512x512 grid (unstructured, and its regular twin as a grid of
#   its own: regular host loop against the regular on-chip launch) and graphlap on generated
#   hexagons; `pillar run --steps --persistent off|on|auto` for laplap on a cubed sphere (median
#   of the runs; --verify off on the timed runs, one short verified run per mode).
#
# Settings (environment):
#   BESIDE_LEVELS "16 64"  level counts (PERKS: the height of its box)   BESIDE_STEPS 200
#   BESIDE_RUNS 3          timed runs per configuration (median)         BESIDE_NX 512 (NX = NY)
#   BESIDE_HEX 1024x1024   graphlap's hexagons (1M cells); 0: none
#   BESIDE_SPHERE 240      the cubed sphere's panel edge (6x240^2 cells); 0: none
#   BESIDE_LAYOUT zcurve   the order of pillar's 512x512 lattice (the blocks of its on-chip
#                          kernels own runs of it: compact in z-curve order, strips in row-major)
#   BESIDE_PERKS=0 / BESIDE_PILLAR=0   skip one side
#   PERKS_BDIMS "256 128"  PERKS_BLKPSM "1 2"  (thread blocks of 256/128; blocks per SM)
#   PERKS_CHECK_STEPS 10   steps of the checked run (0: no check)
#   PERKS_ARCH "-gencode arch=compute_80,code=sm_90"   NVCC nvcc   HOST_CXX g++   PERKS_JOBS 8
#   PERKS_BUILD_ONLY=1     build PERKS's 3d7pt and stop (no GPU needed; binaries kept in OUT/perks-bin)
set -uo pipefail
usage="usage: tools/perks-beside.sh PERKS_DIR BUILD OUT"
[ $# -eq 3 ] || { echo "$usage" >&2; exit 2; }
perks_dir=$1 build=$2 out=$3
here=$(pwd)
absdir() { case $1 in /*) echo "$1" ;; *) echo "$here/$1" ;; esac; }
perks_dir=$(absdir "$perks_dir") build=$(absdir "$build") out=$(absdir "$out")
cd "$(dirname "$0")/.." || exit 1
[ -f .devdeps/env.sh ] && source .devdeps/env.sh

levels=${BESIDE_LEVELS:-16 64}
steps=${BESIDE_STEPS:-200}
runs=${BESIDE_RUNS:-3}
nx=${BESIDE_NX:-512}
hex=${BESIDE_HEX:-1024x1024}
sphere=${BESIDE_SPHERE:-240}
layout=${BESIDE_LAYOUT:-zcurve}
bdims=${PERKS_BDIMS:-256 128}
blkpsms=${PERKS_BLKPSM:-1 2}
check_steps=${PERKS_CHECK_STEPS:-10}
arch=${PERKS_ARCH:--gencode arch=compute_80,code=sm_90}
build_only=${PERKS_BUILD_ONLY:-0}
variants="baseline persistent gen genwr"

if [ "$build_only" != 1 ]; then
    # nvidia-smi without a device says "No devices were found" and exits 6 (pipefail keeps it)
    if ! gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1) ||
        [ -z "$gpu" ]; then
        echo "perks-beside.sh: no NVIDIA GPU here (nvidia-smi lists none); run it on the device" \
            "machine (docs/persistent.md, \"PERKS beside pillar\"), or PERKS_BUILD_ONLY=1 to build only" >&2
        exit 2
    fi
fi
mkdir -p "$out" || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/perks-beside.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
rows=$work/rows.csv   # side,grid,nx,ny,nz,variant,config,cache,runs,median_us,min_us,max_us,verify,note
: >"$rows"
t0=$SECONDS
say() { echo "== [$((SECONDS - t0)) s] $*"; }
# row SIDE GRID NX NY NZ VARIANT CONFIG CACHE RUNS MED MIN MAX VERIFY NOTE (commas become ';')
row() {
    local f out_line="" sep=""
    for f in "$@"; do out_line+="$sep${f//,/;}"; sep=","; done
    echo "$out_line" >>"$rows"
}
# stats V...: "median min max" of the numbers (the median: element n/2 of the sorted list, as
# pillar bench), or nothing
stats() {
    [ $# -gt 0 ] || return 0
    printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {printf "%.3f %.3f %.3f\n", v[int(NR / 2) + 1], v[1], v[NR]}'
}

# ---- PERKS: the binaries -------------------------------------------------------------------
declare -A perks_bin perks_why
perks_src=$perks_dir/stencil/3dstencil
perks_rev=""
build_variant() { # build_variant V: OBJ/3d7pt_V from PERKS's sources, its own log
    local v=$1 V kern extra="" b=$work/bin
    V=${v^^}
    case $v in
    baseline) kern=j3d-baseline.cu ;;
    persistent) kern=j3d-baseline.cu extra=-DPERSISTENT ;;
    gen) kern=j3d-general.cu ;;
    genwr) kern=j3d-general-wrapper.cu ;;
    esac
    # shellcheck disable=SC2086
    {
        "$nvcc" $nvflags -D_TIMER_ $extra -c "$perks_src/$kern" -o "$b/k_$v.o" &&
            "$nvcc" $nvflags -D_TIMER_ -D$V -D__PRINT__ -c "$perks_src/j3d.cu" -o "$b/j3d_$v.o" &&
            "$nvcc" -rdc=true $arch "$b/driver.o" "$b/j3d_$v.o" "$b/k_$v.o" "$b/gold.o" "$b/gold_gen.o" \
                -o "$b/3d7pt_$v"
    } >"$work/build-$v.log" 2>&1
}
perks_build() {
    local v
    nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
    local cxx=${HOST_CXX:-g++} inc="-I$perks_src/3d7pt -I$perks_src"
    nvflags="-O3 -std=c++17 -rdc=true $arch $inc"
    mkdir -p "$work/bin"
    {
        echo "PERKS source: $perks_src${perks_rev:+ at $perks_rev}"
        echo "nvcc: $nvcc ($("$nvcc" --version 2>&1 | tail -n 2 | head -n 1)); host: $cxx"
        echo "flags: $nvflags"
    } >"$out/perks-build.log"
    # the driver and PERKS's CPU reference: host C++ (not nvcc: common.hpp's float4/double4)
    # shellcheck disable=SC2086
    if ! { "$cxx" -O3 -std=c++17 $inc -c "$perks_src/j3d.driver.cpp" -o "$work/bin/driver.o" &&
        "$cxx" -O3 -std=c++17 $inc -c "$perks_src/3d7pt/3d7pt_gold.cpp" -o "$work/bin/gold.o" &&
        "$cxx" -O3 -std=c++17 $inc -c "$perks_src/3d7pt/3d7pt_gold_gen.cpp" -o "$work/bin/gold_gen.o"; } \
        >>"$out/perks-build.log" 2>&1; then
        for v in $variants; do perks_why[$v]="not built: the driver failed to compile (perks-build.log)"; done
        return 1
    fi
    local pids=() jobs=${PERKS_JOBS:-8}
    for v in $variants; do
        build_variant "$v" &
        pids+=($!)
        [ ${#pids[@]} -ge "$jobs" ] && { wait "${pids[0]}"; pids=("${pids[@]:1}"); }
    done
    wait
    for v in $variants; do
        { echo "---- 3d7pt_$v"; cat "$work/build-$v.log"; } >>"$out/perks-build.log"
        if [ -x "$work/bin/3d7pt_$v" ]; then
            perks_bin[$v]=$work/bin/3d7pt_$v
            echo "built 3d7pt_$v" >>"$out/perks-build.log"
        else
            perks_why[$v]="not built (perks-build.log)"
        fi
    done
}
perks_find() { # prebuilt binaries
    local v c
    for v in $variants; do
        for c in "$perks_dir/3d7pt_$v" "$perks_dir/3d7pt_$v.exe" "$perks_dir/build/init/3d7pt/3d7pt_$v.exe"; do
            [ -x "$c" ] && { perks_bin[$v]=$c; break; }
        done
        [ -n "${perks_bin[$v]:-}" ] || perks_why[$v]="no binary 3d7pt_$v in $perks_dir"
    done
    {
        echo "prebuilt PERKS binaries from $perks_dir: ${perks_bin[*]:-none}"
        [ -f "$perks_dir/perks-build.log" ] && { echo "their build:"; cat "$perks_dir/perks-build.log"; }
    } >"$out/perks-build.log"
}

if [ "${BESIDE_PERKS:-1}" != 0 ]; then
    perks_rev=$(git -C "$perks_dir" rev-parse HEAD 2>/dev/null || true)
    if [ -f "$perks_src/j3d.cu" ]; then
        say "building PERKS's 3d7pt from $perks_src ($arch)"
        perks_build
    elif [ -d "$perks_dir" ]; then
        perks_find
    else
        for v in $variants; do perks_why[$v]="no PERKS at $perks_dir"; done
        echo "no PERKS at $perks_dir" >"$out/perks-build.log"
    fi
    for v in $variants; do echo "  3d7pt_$v: ${perks_bin[$v]:-${perks_why[$v]}}"; done
    if [ "$build_only" = 1 ]; then
        mkdir -p "$out/perks-bin" && for v in "${perks_bin[@]}"; do cp "$v" "$out/perks-bin/"; done
        cp "$out/perks-build.log" "$out/perks-bin/" # where they came from, for a later prebuilt run
        n=${#perks_bin[@]}
        echo "perks-beside.sh: PERKS_BUILD_ONLY: $n of 4 binaries in $out/perks-bin (log: $out/perks-build.log)"
        [ "$n" -eq 4 ]
        exit $?
    fi
fi
[ "$build_only" = 1 ] && { echo "perks-beside.sh: PERKS_BUILD_ONLY with BESIDE_PERKS=0: nothing to do" >&2; exit 2; }

# ---- PERKS: the runs -----------------------------------------------------------------------
# perks_line LOG L: the timing line of a run of L levels: "ms blocks_per_sm grid rfolder sfolder"
perks_line() {
    awk -F'\t' -v L="$2" -v S="$3" 'NF >= 14 && $3 == L && $6 == S && $9 ~ /^</ {
        rf = "-"; sf = "-"; if (NF >= 17 && $15 ~ /^[0-9]+$/) { rf = $15; sf = $16 }
        print $13, $11, $9, rf, sf; exit }' "$1"
}
perks_config() { # perks_config V L BDIM BLKPSM USESM(0|1)
    local v=$1 L=$2 bd=$3 k=$4 sm=$5 bin=${perks_bin[$1]:-} args cfg verify="not checked" note="" cache=""
    cfg="bdim=$bd"
    [ "$v" != baseline ] && cfg+=" blkpsm=$k"
    [ "$sm" = 1 ] && cfg+=" usesm"
    if [ -z "$bin" ]; then
        row perks "3d7pt box" "$nx" "$nx" "$L" "$v" "$cfg" "" 0 "" "" "" "${perks_why[$v]}" ""
        return
    fi
    args=("$L" "$nx" "$nx" "--bdim=$bd")
    [ "$v" != baseline ] && args+=("--blkpsm=$k")
    [ "$sm" = 1 ] && args+=(--usesm)
    if [ "$check_steps" -gt 0 ]; then
        echo "---- $v $cfg, ${L} levels: ${bin##*/} ${args[*]} --iter=$check_steps --check" >>"$out/perks-runs.log"
        timeout 120 "$bin" "${args[@]}" "--iter=$check_steps" --check >"$work/run.txt" 2>&1
        local rc=$? rms msg
        cat "$work/run.txt" >>"$out/perks-runs.log"
        echo "(exit $rc)" >>"$out/perks-runs.log"
        rms=$(sed -n 's/^\[Test\] RMS Error : *\([^ ]*\).*/\1/p' "$work/run.txt" | head -n 1)
        msg=$(grep -v -e '^\[Test\]' -e $'\t' "$work/run.txt" | head -n 1)
        if [ -n "$rms" ] && [ $rc -eq 0 ]; then
            verify="PASS (PERKS's check: RMS $rms after $check_steps steps)"
        elif [ -n "$rms" ]; then
            verify="FAIL (PERKS's check: RMS $rms after $check_steps steps)"
        else
            # PERKS prints why it refuses a setting only with --check, and no timing line
            row perks "3d7pt box" "$nx" "$nx" "$L" "$v" "$cfg" "" 0 "" "" "" \
                "not run: ${msg:-no output, exit $rc}" ""
            return
        fi
    fi
    local vals=() r line
    for ((r = 0; r < runs; r++)); do
        echo "---- $v $cfg, ${L} levels, run $((r + 1)): ${bin##*/} ${args[*]} --iter=$steps --warmup" >>"$out/perks-runs.log"
        timeout 120 "$bin" "${args[@]}" "--iter=$steps" --warmup >"$work/run.txt" 2>&1
        echo "(exit $?)" >>"$work/run.txt"
        cat "$work/run.txt" >>"$out/perks-runs.log"
        line=$(perks_line "$work/run.txt" "$L" "$steps")
        [ -n "$line" ] || continue
        # shellcheck disable=SC2086
        set -- $line
        vals+=("$(awk -v ms="$1" -v s="$steps" 'BEGIN {printf "%.3f", ms * 1000 / s}')")
        note="grid $3; blocks per SM $2"
        case $v in
        baseline) cache="" ;;
        persistent) cache="none" ;;
        *) if [ "$4" = 0 ] && [ "$5" = 0 ]; then cache="none"; else cache="registers $4 + shared $5 planes"; fi ;;
        esac
    done
    if [ ${#vals[@]} -eq 0 ]; then
        row perks "3d7pt box" "$nx" "$nx" "$L" "$v" "$cfg" "" 0 "" "" "" "$verify" "no timing line (perks-runs.log)"
        return
    fi
    # shellcheck disable=SC2046
    row perks "3d7pt box" "$nx" "$nx" "$L" "$v" "$cfg" "$cache" ${#vals[@]} $(stats "${vals[@]}") "$verify" "$note"
}
if [ "${BESIDE_PERKS:-1}" != 0 ]; then
    : >"$out/perks-runs.log"
    for L in $levels; do
        say "PERKS 3d7pt double ${nx}x${nx}x$L, $steps steps, $runs runs a configuration"
        for bd in $bdims; do
            perks_config baseline "$L" "$bd" 0 0
            for k in $blkpsms; do
                perks_config persistent "$L" "$bd" "$k" 0
                perks_config gen "$L" "$bd" "$k" 1
                perks_config genwr "$L" "$bd" "$k" 0
                perks_config genwr "$L" "$bd" "$k" 1
            done
        done
    done
fi

# ---- pillar --------------------------------------------------------------------------------
pillar=$build/pillar
pillar_commit=""
pillar_bench() { # pillar_bench NAME STENCIL NXxNY: bench --iterated into OUT/pillar-NAME
    local name=$1 st=$2 size=$3 lv csv grid
    lv=$(echo "$levels" | tr -s ' ' ',')
    say "pillar bench --iterated --stencil $st --size ${size}x${levels%% *} --levels $lv"
    local lay=()
    [ "$st" = graphlap ] || lay=(--layout "$layout")
    "$pillar" bench --iterated --stencil "$st" --size "${size}x${levels%% *}" --levels "$lv" \
        "${lay[@]}" --steps "$steps" --runs "$runs" --precision double --backend gpu \
        --out "$out/pillar-$name" >"$out/pillar-$name.log" 2>&1
    local rc=$?
    [ -n "$pillar_commit" ] || pillar_commit=$(sed -n 's/^pillar bench --iterated on .*, commit \([^:]*\):.*/\1/p' "$out/pillar-$name.log" | head -n 1)
    grid=$(sed -n "s/^$st double on \(.*\), $steps steps, median of.*/\1/p" "$out/pillar-$name.log" | head -n 1)
    grid=${grid//,/;}
    csv=$(ls -t "$out/pillar-$name"/iterated-*.csv 2>/dev/null | head -n 1)
    if [ -z "$csv" ]; then
        local msg
        msg=$(grep -m 1 '^pillar: ' "$out/pillar-$name.log")
        for L in $levels; do
            row pillar "$st on ${size}" "${size%x*}" "${size#*x}" "$L" host-loop "" "" 0 "" "" "" \
                "not run: ${msg:-bench --iterated exit $rc} (pillar-$name.log)" ""
        done
        return
    fi
    awk -F, -v grid="$st on ${grid:-$size}" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        {
            ran = $c["median_us_per_step"] != ""
            # the regular twin (regular-host-loop, regular-onchip): a grid of its own
            g = grid; v = $c["variant"]
            if (v ~ /^regular-/) { g = grid " (regular twin)"; sub(/^regular-/, "", v) }
            printf "pillar,%s,%s,%s,%s,%s,bench --iterated,,%s,%s,%s,%s,%s,%s\n", g, $c["nx"], $c["ny"],
                $c["nz"], v == "auto" ? "auto (= " $c["runs_as"] ")" : v,
                ran ? $c["runs"] : 0, $c["median_us_per_step"], $c["min_us_per_step"],
                $c["max_us_per_step"], $c["verify"], ($c["threads"] > 0 ? $c["threads"] " threads" : "")
        }' "$csv" >>"$rows"
}
pillar_sphere() { # laplap on a cubed sphere of 6 x n^2 cells: pillar run, --persistent off | on | auto
    local n=$1 L mode f r vals line msg verify shape
    for L in $levels; do
        f=$work/sphere-$n-$L.h5
        say "pillar run: laplap on a cubed sphere 6x${n}^2 x $L, --persistent off | on | auto"
        if ! "$pillar" mesh generate "$f" --kind cubed-sphere --n "$n" --levels "$L" >>"$out/pillar-sphere.log" 2>&1; then
            row pillar "laplap on cubed sphere 6x${n}^2" "$n" "$n" "$L" host-loop "" "" 0 "" "" "" \
                "not run: mesh generate failed (pillar-sphere.log)" ""
            continue
        fi
        for mode in off on auto; do
            local args=(run --mesh "$f" --stencil laplap --layout zcurve --precision double --backend gpu --persistent "$mode")
            vals=() msg="" shape=""
            for ((r = 0; r < runs; r++)); do
                echo "---- pillar ${args[*]} --steps $steps --verify off" >>"$out/pillar-sphere.log"
                "$pillar" "${args[@]}" --steps "$steps" --verify off >"$work/run.txt" 2>&1
                cat "$work/run.txt" >>"$out/pillar-sphere.log"
                # the persistent launch (on, or auto where it picked it): the launch; the host
                # loop: the kernels alone (both without copies)
                line=$(sed -n 's/^  time *\([0-9.]*\) ms per step (the launch.*/\1/p' "$work/run.txt" | head -n 1)
                shape=$(sed -n 's/^  persistent \([0-9]* blocks x [0-9]* threads\).*/\1/p' "$work/run.txt" | head -n 1)
                [ -n "$line" ] ||
                    line=$(sed -n 's/^  kernels *\([0-9.]*\) ms per step.*/\1/p' "$work/run.txt" | head -n 1)
                if [ -n "$line" ]; then
                    vals+=("$(awk -v ms="$line" 'BEGIN {printf "%.3f", ms * 1000}')")
                else
                    msg=$(grep -m 1 '^pillar: ' "$work/run.txt")
                    break
                fi
            done
            local vstep=$((steps < 20 ? steps : 20))
            echo "---- pillar ${args[*]} --steps $vstep (verified)" >>"$out/pillar-sphere.log"
            "$pillar" "${args[@]}" --steps "$vstep" >"$work/run.txt" 2>&1
            cat "$work/run.txt" >>"$out/pillar-sphere.log"
            verify=$(sed -n 's/^  verify *\([A-Z]*\).*/\1/p' "$work/run.txt" | head -n 1)
            verify="${verify:-not verified} ($vstep steps)"
            local variant=host-loop
            [ "$mode" = on ] && variant=persistent
            [ "$mode" = auto ] && variant="auto (= $([ -n "$shape" ] && echo persistent || echo host-loop))"
            if [ ${#vals[@]} -eq 0 ]; then
                row pillar "laplap on cubed sphere 6x${n}^2" "$n" "$n" "$L" "$variant" "pillar run" "" 0 "" "" "" \
                    "not run: ${msg:-no time line} (pillar-sphere.log)" ""
            else
                # shellcheck disable=SC2046
                row pillar "laplap on cubed sphere 6x${n}^2" "$n" "$n" "$L" "$variant" "pillar run" "" ${#vals[@]} \
                    $(stats "${vals[@]}") "$verify" "$shape"
            fi
        done
        rm -f "$f"
    done
}
if [ "${BESIDE_PILLAR:-1}" != 0 ]; then
    if [ -x "$pillar" ]; then
        pillar_bench laplap laplap "${nx}x${nx}"
        [ "$hex" != 0 ] && pillar_bench hexagons graphlap "$hex"
        if [ "$sphere" != 0 ]; then : >"$out/pillar-sphere.log"; pillar_sphere "$sphere"; fi
    else
        for L in $levels; do
            row pillar "laplap on ${nx}x${nx}" "$nx" "$nx" "$L" host-loop "" "" 0 "" "" "" "not run: no $pillar" ""
        done
    fi
fi

# ---- the table -----------------------------------------------------------------------------
{
    echo "side,grid,nx,ny,nz,variant,config,cache,runs,median_us,min_us,max_us,verify,note"
    cat "$rows"
} >"$out/perks-beside.csv"
{
    echo "# PERKS's 3d7pt beside pillar's iterated runs (tools/perks-beside.sh)"
    echo
    echo "Device (name, driver): ${gpu}. Double, $steps steps, median of $runs runs, kernels only on both sides."
    echo "PERKS: ${perks_rev:-$perks_dir} (build: perks-build.log; ${arch}); pillar: commit ${pillar_commit:-unknown} ($build)."
    echo "PERKS's 3d7pt is a 7-point Jacobi step on a box of NX x NX x levels; pillar's rows are its own"
    echo "stencils on its own grids (laplap: two 5-point Laplacians a step; graphlap on hexagons)."
    echo
    awk -F, -v levels="$levels" -v nx="$nx" '
        function fmt(x) { return sprintf(x >= 100 ? "%.0f" : "%.1f", x) }
        function best(side, grid, nz, test,    k, b) { # index of the fastest usable row
            b = 0
            for (k = 1; k <= n; k++)
                if (S[k] == side && (grid == "" || G[k] == grid) && Z[k] == nz && M[k] != "" && V[k] !~ /^FAIL/ && match_(k, test))
                    if (!b || M[k] + 0 < M[b] + 0) b = k
            return b
        }
        function match_(k, test) {
            if (test == "host") return Vr[k] == "baseline" || Vr[k] == "host-loop"
            if (test == "persist") return Vr[k] == "persistent" || Vr[k] == "onchip" || Vr[k] == "gen" || Vr[k] == "genwr"
            if (test == "nocache") return (Vr[k] == "persistent" || Vr[k] == "gen" || Vr[k] == "genwr") && C[k] == "none"
            return 0
        }
        function why(side, grid, nz, test,    k, w) { # the reasons when no row is usable
            w = ""
            for (k = 1; k <= n; k++)
                if (S[k] == side && (grid == "" || G[k] == grid) && Z[k] == nz && match_(k, test) && index(w, Vr[k] ": " V[k]) == 0)
                    w = w (w == "" ? "" : "; ") Vr[k] ": " V[k]
            return w == "" ? "none" : w
        }
        function pair(side, grid, nz,    h, p, s) {
            h = best(side, grid, nz, "host"); p = best(side, grid, nz, "persist")
            if (!h) return "no host loop (" why(side, grid, nz, "host") ")"
            if (!p) return fmt(M[h]) " → no persistent run (" why(side, grid, nz, "persist") ")"
            s = fmt(M[h]) " → " fmt(M[p]) " µs (**" sprintf("%.2fx", M[h] / M[p]) "**)"
            if (side == "perks") s = s "; best: " Vr[p] " " Cf[p] ", cache " C[p] "; host loop " Cf[h]
            if (side == "pillar") s = s "; best: " Vr[p]
            return s
        }
        NR > 1 { n++; S[n] = $1; G[n] = $2; X[n] = $3; Y[n] = $4; Z[n] = $5; Vr[n] = $6; Cf[n] = $7; C[n] = $8
                 M[n] = $10; V[n] = $13
                 if (S[n] == "pillar" && !(G[n] in seen)) { seen[G[n]] = n; pg[++npg] = G[n] } }
        END {
            print "| grid x levels | PERKS 3d7pt: host loop → best persistent | PERKS persistent, no cache | pillar | pillar: host loop → persistent |"
            print "|---|---|---|---|---|"
            nl = split(levels, lv, " ")
            for (g = 1; g <= npg; g++)
                for (l = 1; l <= nl; l++) {
                    L = lv[l]; grid = pg[g]; any = 0
                    for (k = 1; k <= n; k++) if (S[k] == "pillar" && G[k] == grid && Z[k] == L) any = 1
                    if (!any) continue
                    # the box PERKS runs: laplap on the NX x NX grid
                    f = seen[grid]; box = X[f] == nx && Y[f] == nx && grid ~ /^laplap on / && grid !~ /sphere/
                    pk = "— (PERKS: boxes only)"; nc = "—"
                    if (box) {
                        pk = pair("perks", "", L)
                        h = best("perks", "", L, "host"); c = best("perks", "", L, "nocache")
                        nc = c ? fmt(M[c]) " µs" (h ? sprintf(" (%.2fx)", M[h] / M[c]) : "") " " Vr[c] " " Cf[c] : "none (" why("perks", "", L, "persist") ")"
                    }
                    printf "| %s x %s | %s | %s | %s | %s |\n", (box ? nx "x" nx : grid), L, pk, nc, grid, pair("pillar", grid, L)
                }
            if (!npg) {
                for (l = 1; l <= split(levels, lv, " "); l++)
                    printf "| %sx%s x %s | %s | — | (pillar not run) | — |\n", nx, nx, lv[l], pair("perks", "", lv[l])
            }
        }' "$out/perks-beside.csv"
    echo
    echo "Speed-ups: the host loop's median over the persistent median, each side against its own host"
    echo "loop; PERKS's best is the fastest of its persistent configurations that its check passed."
    echo
    echo "## Every configuration (µs a step: median, min, max)"
    echo
    echo "| side | grid | levels | variant | configuration | cache | runs | median | min | max | verify | note |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14 }' \
        "$out/perks-beside.csv"
    echo
    echo "Raw: perks-build.log, perks-runs.log (every PERKS command and its output), pillar-*.log and"
    echo "pillar-*/iterated-*.csv|json (bench --iterated), pillar-sphere.log; perks-beside.csv."
} >"$out/perks-beside.md"
say "wrote $out/perks-beside.md and perks-beside.csv"
sed -n '/^| grid x levels/,/^$/p' "$out/perks-beside.md"
# exit 1 when a timed configuration failed its check or nothing was timed at all
awk -F, 'NR > 1 && $10 != "" { timed++ } NR > 1 && $13 ~ /^FAIL/ { failed++ }
    END { if (failed) print "perks-beside.sh: " failed " configuration(s) failed their check"
          if (!timed) print "perks-beside.sh: nothing was timed"
          exit (failed || !timed) }' "$out/perks-beside.csv"
