#!/bin/bash
# gpu-check.sh — on a machine with an NVIDIA GPU: configure and build pillar, run the GPU tests
# (ctest -L gpu) and the CPU tests, then a quick benchmark. Logs and results go to $OUT (or
# ./gpu-check-out); a short table is printed last. Extra arguments go to `pillar bench`.
#   tools/gpu-check.sh                 tests + pillar bench --quick
#   GPU_CHECK_BENCH="--stencil hdiff" tools/gpu-check.sh   other bench flags instead of --quick
#   GPU_CHECK_BENCH=0 tools/gpu-check.sh                  no benchmark
#   GPU_CHECK_CPU=0 tools/gpu-check.sh                    no CPU tests (CI runs them)
#   GPU_CHECK_TESTS=0 tools/gpu-check.sh                  skip the tests
#   GPU_CHECK_J=1 tools/gpu-check.sh                      GPU tests one at a time (default 4 at once)
#   GPU_CHECK_TESTS='R:api_gpu|onchip' tools/gpu-check.sh the tests whose names match (ctest -R)
#   GPU_CHECK_TESTS=small tools/gpu-check.sh              GPU tests on small grids only (all but
#                                   gpu_full, persistent and persist_onchip: the engine, out of core, persistent
#                                   kernels on small grids, the C API and the examples)
#   GPU_CHECK_OOC=0 tools/gpu-check.sh                    skip the out-of-core runs
#   GPU_CHECK_PERSISTENT=0 tools/gpu-check.sh             skip the persistent runs (laplap, hdiff,
#                                   lap 512x512x64 and x16, 200 steps, --persistent off, on, auto,
#                                   on with 0 and 1 cached levels; graphlap on 2048x2048 hexagons
#                                   (4.2M cells) x 16 and x 64 (20 steps) and 512x512 x 64 (200),
#                                   hdiff on a 6x240^2 cubed sphere x 16 and x 64 (20 steps), off
#                                   and on, each verified against the CPU iteration)
#   GPU_CHECK_SANITIZE=0 tools/gpu-check.sh               skip compute-sanitizer (memcheck of the
#                                   small GPU test: every strategy, storage and quad mesh; memcheck
#                                   and racecheck of the persistent kernels on small grids and of
#                                   graphlap's on small meshes, and of graph-twopass on the graph
#                                   test's meshes)
#   GPU_CHECK_LARGE=1 tools/gpu-check.sh                  also 4096x4096x64 laplap (17 GB) in core
#                                   one step, and out of core under 8G at F = 32, K = 2 and at
#                                   F = 32 with each chunk's steps in one persistent launch (~8 min)
#   GPU_CHECK_GRAPH=1 tools/gpu-check.sh                  also graphlap on 1M hexagons and 1M triangles
#                                   x 64 levels, double: bench --mesh --quick (issue 18's targets;
#                                   about 4 minutes each, so with GPU_CHECK_TESTS=0 in its own call)
#   GPU_CHECK_ITERATED=1 tools/gpu-check.sh              also pillar bench --iterated (issue 19): laplap,
#                                   hdiff, fastwaves, lap, graphlap at 512x512 x 16, 64, 128 levels,
#                                   double: host loop, K = 2, 3, persistent, auto; 200 steps, median of
#                                   5 (about 6 minutes); CSV, JSON and tools/plot-iterated's PNG in $OUT
#   GPU_CHECK_ONCHIP=1 tools/gpu-check.sh                also the on-chip persistent kernels (issue 35):
#                                   pillar bench --iterated for laplap, hdiff, lap at 512x512 x 16
#                                   and 64 in z-curve, z-curve-w and row-major order (row-major also
#                                   with METIS's parts), without the next level loaded ahead and
#                                   with two rows of pass 1 a thread at once, and the regular
#                                   twin's host loop and on-chip rows (laplap: walked, staged and
#                                   in columns; hdiff, lap: staged and in columns)
#                                   (about 6 minutes); rows
#                                   in onchip.log
#   GPU_CHECK_NCU_ONCHIP=1 tools/gpu-check.sh           also ncu on the on-chip kernels (k_onchip,
#                                   k_onchip_reg) and the host loops' (unstructured, regular), laplap
#                                   512x512x16 z-curve, 26 steps: time, shared-memory wavefronts and
#                                   pipe, L2, DRAM, occupancy, eligible warps, warp stalls; reports
#                                   onchip-ncu-*.ncu-rep, the figures in onchip-ncu.log (~3 minutes)
#   GPU_CHECK_API=1 tools/gpu-check.sh                   also tools/api-bench.sh: a model's time loop
#                                   through libpillar (step(T), step(1) loops, host and device
#                                   arrays) beside `pillar run`'s kernels, on 512x512x64 and a
#                                   6x384^2 x 64 cubed sphere, laplap double (about 3 minutes)
#   GPU_CHECK_PERSIST_API=1 tools/gpu-check.sh           also the library's persistent on, auto
#                                   and off: tests/api_loop, a loop of pillar_step(1), laplap double
#                                   at 128x128x16, 512x512x16 and 512x512x64, 200 steps (its notes
#                                   say which path ran); in persist-api.log
#   PILLAR_COMMIT=abc123 tools/gpu-check.sh               commit to record where there is no .git
# Libraries the device lacks: ../shared/device/pack-deps.sh (HDF5, METIS, netCDF, OpenMPI) into
# .devdeps and tools/pack-fortran.sh (gfortran) into .devfortran, both sourced here when present.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-gpu-check-out}
mkdir -p "$out"
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
[ -f .devfortran/env.sh ] && source .devfortran/env.sh # a Fortran compiler where the machine has none
build="build-gpu"
jobs=$(nproc 2>/dev/null || echo 4)
summary=()

step() { # step NAME LOG COMMAND...
    local name=$1 log=$2; shift 2
    local t0=$SECONDS
    "$@" >"$out/$log" 2>&1
    local rc=$?
    summary+=("$(printf '%-24s %-6s %4ds  %s' "$name" "$([ $rc -eq 0 ] && echo ok || echo FAIL)" $((SECONDS - t0)) "$log")")
    return $rc
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >"$out/device.txt" 2>&1
step configure configure.log cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release || { tail -n 30 "$out/configure.log"; exit 1; }
step build build.log cmake --build $build -j "$jobs" || { grep -E "error" "$out/build.log" | head -n 30; exit 1; }
if [ "${GPU_CHECK_TESTS:-1}" != 0 ]; then
    sel=(-L gpu)
    [ "${GPU_CHECK_TESTS:-1}" = small ] && sel=(-L gpu -E '^(gpu_full|persistent|persist_onchip)$')
    [[ "${GPU_CHECK_TESTS:-1}" == R:* ]] && sel=(-R "${GPU_CHECK_TESTS#R:}")
    # several at once: the tests check bits, not time, and one at a time the small set alone
    # takes longer than a device call (H200: ooc_gpu, onchip_regular, own_gpu and
    # persist_onchip_small 2.5-3 minutes each)
    step "ctest ${sel[*]}" ctest-gpu.log ctest --test-dir $build "${sel[@]}" --output-on-failure \
        -j "${GPU_CHECK_J:-4}"
    [ "${GPU_CHECK_CPU:-1}" != 0 ] &&
        step "ctest -L cpu" ctest-cpu.log ctest --test-dir $build -L cpu --output-on-failure -j 4
fi
if [ "${GPU_CHECK_SANITIZE:-1}" != 0 ] && command -v compute-sanitizer >/dev/null; then
    step "memcheck test_gpu --small" memcheck.log compute-sanitizer --tool memcheck --error-exitcode 9 \
        ./$build/tests/test_gpu --small
    step "memcheck test_api --gpu" memcheck-api.log compute-sanitizer --tool memcheck \
        --error-exitcode 9 ./$build/tests/test_api --gpu
    # persistent kernels: out-of-bounds accesses, and races on the offsets in shared memory
    step "memcheck test_persistent" memcheck-persistent.log compute-sanitizer --tool memcheck \
        --error-exitcode 9 ./$build/tests/test_persistent --small
    step "racecheck test_persistent" racecheck-persistent.log compute-sanitizer --tool racecheck \
        --racecheck-report all --error-exitcode 9 ./$build/tests/test_persistent --small
    # the on-chip persistent kernel (issue 35): its slots and cache in shared memory, the export
    # buffers and the state written by other blocks across the grid barrier
    step "memcheck test_persist_onchip" memcheck-onchip.log compute-sanitizer --tool memcheck \
        --error-exitcode 9 ./$build/tests/test_persist_onchip --small
    step "racecheck test_persist_onchip" racecheck-onchip.log compute-sanitizer --tool racecheck \
        --racecheck-report all --error-exitcode 9 ./$build/tests/test_persist_onchip --tiny
    step "synccheck test_persist_onchip" synccheck-onchip.log compute-sanitizer --tool synccheck \
        --error-exitcode 9 ./$build/tests/test_persist_onchip --small
    # the regular twin on chip: its tiles and cache in shared memory, the export buffers
    step "memcheck test_onchip_regular" memcheck-onchip-regular.log compute-sanitizer \
        --tool memcheck --error-exitcode 9 ./$build/tests/test_onchip_regular --tiny
    step "racecheck test_onchip_regular" racecheck-onchip-regular.log compute-sanitizer \
        --tool racecheck --racecheck-report all --error-exitcode 9 \
        ./$build/tests/test_onchip_regular --tiny
    step "synccheck test_onchip_regular" synccheck-onchip-regular.log compute-sanitizer \
        --tool synccheck --error-exitcode 9 ./$build/tests/test_onchip_regular --tiny
    # graphlap's persistent kernels: the lists in shared memory (copied once) and from the table
    step "memcheck test_persistent_graph" memcheck-persistent-graph.log compute-sanitizer \
        --tool memcheck --error-exitcode 9 ./$build/tests/test_persistent_graph --quick
    step "racecheck test_persistent_graph" racecheck-persistent-graph.log compute-sanitizer \
        --tool racecheck --racecheck-report all --error-exitcode 9 \
        ./$build/tests/test_persistent_graph --quick
    # the graph two-pass strategy: its lists, and the two halves of shared memory taking turns
    step "memcheck test_gpu_graph graph-twopass" memcheck-gtwopass.log compute-sanitizer \
        --tool memcheck --error-exitcode 9 ./$build/tests/test_gpu_graph --access graph-twopass
    step "racecheck test_gpu_graph graph-twopass" racecheck-gtwopass.log compute-sanitizer \
        --tool racecheck --racecheck-report all --error-exitcode 9 \
        ./$build/tests/test_gpu_graph --access graph-twopass
fi
# persistent kernels (issue 19): all steps in one cooperative launch against one launch per step,
# in core, each verified bit for bit against the CPU iteration; the lean kernels (64 registers:
# 4 blocks of 256 an SM, the warps printed on the persistent line)
persistent_runs() {
    local P=./$build/pillar s m z rc=0
    for s in laplap hdiff lap; do
        for z in 64 16; do
            for m in off on auto; do
                $P run --stencil $s --size 512x512x$z --steps 200 --persistent $m --backend gpu || rc=1
            done
            # caching forced: none, and one level (the smallest cache: rings exchanged every step;
            # refused with a message where one level does not fit)
            $P run --stencil $s --size 512x512x$z --steps 200 --persistent on --persistent-levels 0 --backend gpu || rc=1
            $P run --stencil $s --size 512x512x$z --steps 200 --persistent on --persistent-levels 1 --backend gpu
            # another block shape: 128 threads (laplap, hdiff, lap on chip: each block one SM)
            $P run --stencil $s --size 512x512x$z --steps 200 --persistent on --threads 128x1x1 --backend gpu || rc=1
        done
    done
    # graphlap on generated hexagons: 2048x2048 (4.2M cells, whose lists do not fit shared memory:
    # read from the table) x 16 and x 64 levels, and 512x512 x 64 (lists in shared memory)
    local mesh
    # (20 steps on the large mesh: its CPU reference of 200 steps would take minutes); hdiff on a
    # cubed sphere of 6x240^2 cells (the largest the lean kernels' offsets allow, about)
    for mesh in 2048x2048:16:20 2048x2048:64:20 512x512:64:200; do
        local steps=${mesh##*:} size=${mesh%%:*} lev
        lev=${mesh#*:}; lev=${lev%%:*}
        local f="$out/hex-$size-$lev.nc"
        $P mesh generate "$f" --kind hexagons --size "$size" --levels "$lev" || { rc=1; continue; }
        for m in off on; do
            $P run --mesh "$f" --stencil graphlap --steps "$steps" --persistent $m --backend gpu || rc=1
        done
        rm -f "$f"
    done
    for lev in 16 64; do
        local f="$out/sphere-240-$lev.h5"
        $P mesh generate "$f" --kind cubed-sphere --n 240 --levels "$lev" || { rc=1; continue; }
        for m in off on; do
            $P run --mesh "$f" --stencil hdiff --layout zcurve --steps 20 --persistent $m --backend gpu || rc=1
        done
        rm -f "$f"
    done
    return $rc
}
[ "${GPU_CHECK_PERSISTENT:-1}" != 0 ] && step "persistent runs" persistent.log persistent_runs
# out of core: one stencil step per transfer on grids 2-3x a 2 GB budget, 4 fused steps, and 16
# fused steps run 2 per kernel launch
ooc_runs() {
    local P=./$build/pillar
    $P run --stencil laplap --size 2048x2048x64 --steps 10 --fuse 1 --out-of-core on --device-mem 2G --backend gpu &&
    $P run --stencil hdiff --size 2048x2048x64 --steps 10 --fuse 1 --out-of-core on --device-mem 2G --backend gpu &&
    $P run --stencil fastwaves --size 1024x1024x64 --steps 10 --fuse 1 --out-of-core on --device-mem 2G --backend gpu &&
    $P run --stencil laplap --size 2048x2048x64 --steps 12 --fuse 4 --out-of-core on --device-mem 2G --backend gpu &&
    $P run --stencil laplap --size 2048x2048x64 --steps 16 --fuse 16 --kernel-steps 2 --out-of-core on --device-mem 2G --backend gpu &&
    # each chunk's steps in one persistent launch, against the fused runs above on the same grid
    # (F = 4 one launch a step, F = 16 two steps a launch); its parts are smaller (a launch's
    # offsets must fit the SMs' shared memory)
    $P run --stencil laplap --size 2048x2048x64 --steps 12 --fuse 4 --persistent on --out-of-core on --device-mem 2G --backend gpu &&
    $P run --stencil laplap --size 2048x2048x64 --steps 16 --fuse 16 --persistent on --out-of-core on --device-mem 2G --backend gpu
}
[ "${GPU_CHECK_OOC:-1}" != 0 ] && step "out-of-core runs" ooc.log ooc_runs
# the K target: out of core with K = 2 against the in-core single-step kernel, on a grid twice
# the budget whose chunks are large enough for the trapezoids' redundancy to stay near 1.2x
large_runs() {
    local P=./$build/pillar
    $P run --stencil laplap --size 4096x4096x64 --backend gpu --runs 20 &&
    $P run --stencil laplap --size 4096x4096x64 --backend gpu --threads 512x1x1 --steps 64 \
        --fuse 32 --kernel-steps 2 --out-of-core on --device-mem 8G &&
    # each chunk's 32 steps in one persistent launch, against F = 32, K = 2 above
    $P run --stencil laplap --size 4096x4096x64 --backend gpu --steps 64 --fuse 32 \
        --persistent on --out-of-core on --device-mem 8G
}
[ "${GPU_CHECK_LARGE:-0}" != 0 ] && step "4096^2 in/out of core" large.log large_runs
# general meshes: the strategy x storage x order matrix of graphlap against the lattice twin
graph_runs() {
    local P=./$build/pillar
    $P mesh generate "$out/hex.nc" --kind hexagons --size 1024x1024 --levels 64 &&
    $P bench --mesh "$out/hex.nc" --stencil graphlap --precision double --quick --out "$out" &&
    $P mesh generate "$out/tri.nc" --kind triangles --size 724x724 --levels 64 &&
    $P bench --mesh "$out/tri.nc" --stencil graphlap --precision double --quick --out "$out"
    local rc=$?
    rm -f "$out/hex.nc" "$out/tri.nc"
    return $rc
}
[ "${GPU_CHECK_GRAPH:-0}" != 0 ] && step "graphlap bench --mesh" graph.log graph_runs
# in-core iterated runs: host loop against K steps per launch and the persistent launch
iterated_runs() {
    ./$build/pillar bench --iterated --backend gpu --out "$out" || return 1
    local csv
    csv=$(ls -t "$out"/iterated-*.csv | head -n 1)
    if python3 -c 'import matplotlib' 2>/dev/null; then
        python3 tools/plot-iterated "$csv" --out "$out"
    else
        echo "no matplotlib: tools/plot-iterated $csv not drawn"
    fi
}
[ "${GPU_CHECK_ITERATED:-0}" != 0 ] && step "bench --iterated" iterated.log iterated_runs
# the on-chip persistent kernels (issue 35) beside the host loop and the lean persistent kernel:
# laplap, hdiff, lap at 512x512 x 16 and 64, z-curve and z-curve-w order, and in z-curve order
# once more without loading the next level ahead (PILLAR_ONCHIP_PREFETCH=0)
onchip_runs() {
    local s lay pf rc=0
    for s in laplap hdiff lap; do
        for lay in zcurve zcurve-w rowmajor; do
            for pf in 1 0; do
                [ "$pf" = 0 ] && [ "$lay" != zcurve ] && continue
                echo "== $s, $lay order, next level loaded ahead: $pf"
                PILLAR_ONCHIP_PREFETCH=$pf ./$build/pillar bench --iterated --backend gpu \
                    --stencil $s --levels 16,64 --layout $lay --out "$out/onchip-$s-$lay-$pf" || rc=1
            done
        done
        # pass 1 two rows a thread at once (the experiment against the per-level latency)
        echo "== $s, zcurve order, two rows a thread at once"
        PILLAR_ONCHIP_ROWS=2 ./$build/pillar bench --iterated --backend gpu --stencil $s \
            --levels 16,64 --layout zcurve --out "$out/onchip-$s-zcurve-rows2" || rc=1
        # the regular twin's column variant (a thread's column of cells in registers): its
        # regular-onchip row
        echo "== $s, zcurve order, the regular twin in columns"
        PILLAR_ONCHIP_COLS=1 ./$build/pillar bench --iterated --backend gpu --stencil $s \
            --levels 16,64 --layout zcurve --out "$out/onchip-$s-zcurve-cols" || rc=1
        # laplap's regular-onchip row is the walk (access/onchip_walk.cu); its staged kernel beside
        if [ "$s" = laplap ]; then
            echo "== $s, zcurve order, the regular twin staged (not walked)"
            PILLAR_ONCHIP_WALK=0 ./$build/pillar bench --iterated --backend gpu --stencil $s \
                --levels 16,64 --layout zcurve --variants regular-host-loop,regular-onchip \
                --out "$out/onchip-$s-zcurve-staged" || rc=1
        fi
        # laplap's onchip row walks the lattice's flat chart (auto); the parts' kernel beside
        if [ "$s" = laplap ]; then
            echo "== $s, zcurve order, the parts instead of the walk over the flat chart"
            PILLAR_ONCHIP_CHART=0 ./$build/pillar bench --iterated --backend gpu --stencil $s \
                --levels 16,64 --layout zcurve --variants host-loop,onchip \
                --out "$out/onchip-$s-zcurve-parts" || rc=1
        fi
        # row-major with the blocks owning METIS's parts instead of runs of the order (strips)
        echo "== $s, rowmajor order, METIS's parts"
        PILLAR_ONCHIP_PARTS=2 ./$build/pillar bench --iterated --backend gpu --stencil $s \
            --levels 16,64 --layout rowmajor --out "$out/onchip-$s-rowmajor-metis" || rc=1
    done
    # graphlap on generated hexagons (its rows the neighbour lists), runs of the file order and
    # METIS's parts
    for pf in 1 2; do
        echo "== graphlap, hexagons, parts $pf (1 runs, 2 METIS)"
        PILLAR_ONCHIP_PARTS=$pf ./$build/pillar bench --iterated --backend gpu --stencil graphlap \
            --levels 16,64 --out "$out/onchip-graphlap-$pf" || rc=1
    done
    return $rc
}
[ "${GPU_CHECK_ONCHIP:-0}" != 0 ] && step "bench --iterated onchip" onchip.log onchip_runs
onchip_ncu() { # the on-chip kernels, unstructured (k_onchip) and regular (k_onchip_reg), and the
    # regular host loop's kernel, laplap 512x512x16 z-curve double, one launch each: what limits
    local m=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
    m+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
    m+=,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg
    m+=,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum
    m+=,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
    m+=,smsp__warps_eligible.avg.per_cycle_active,launch__registers_per_thread,smsp__inst_executed.sum
    local k n tag skip
    # the on-chip launches (unstructured twice, then the regular one); one launch of the host
    # loop's kernel, unstructured (table columns 0x/1x) and regular (_reg), after two
    for k in 'onchip ^k_onchip 3 0' 'host ^k_LAPLAP_double_[01] 1 2' 'reghost ^k_LAPLAP_double_reg$ 1 2' \
        'cols ^k_onchip_cols 1 0'; do
        read -r tag k n skip <<<"$k"
        echo "== $tag: kernels $k"
        # cols: the regular twin's column kernel (PILLAR_ONCHIP_COLS=1); the parts' kernel
        # k_onchip, not the walk that auto takes on the lattice's flat chart (PILLAR_ONCHIP_CHART=0)
        PILLAR_ONCHIP_CHART=0 PILLAR_ONCHIP_COLS=$([ "$tag" = cols ] && echo 1 || echo 0) timeout 300 ncu --kernel-name "regex:$k" --launch-skip "$skip" --launch-count "$n" \
            --section WarpStateStats --metrics "$m" --export "$out/onchip-ncu-$tag" \
            --force-overwrite ./$build/pillar bench --iterated --backend gpu --stencil laplap \
            --levels 16 --layout zcurve --steps 26 --runs 1 --out "$out/onchip-ncu-bench" 2>&1 |
            grep -vE '^==PROF==' || return 1
        # every figure, one row a kernel (bench/results/2026-11-28-h200-onchip-ncu reads them so)
        ncu --import "$out/onchip-ncu-$tag.ncu-rep" --page raw --csv >"$out/onchip-ncu-$tag.csv" 2>/dev/null
    done
}
[ "${GPU_CHECK_NCU_ONCHIP:-0}" != 0 ] && command -v ncu >/dev/null &&
    step "ncu on-chip kernels" onchip-ncu.log onchip_ncu
[ "${GPU_CHECK_API:-0}" != 0 ] && step "api bench" api.log tools/api-bench.sh "$build" "$out/api"
persist_api_runs() { # the library's persistent on, auto and off: a loop of pillar_step(1)
    local rc=0
    for size in 128x128x16 512x512x16 512x512x64; do
        for mode in on auto off; do
            echo "== laplap $size, persistent $mode"
            ./$build/tests/api_loop --lattice $size --steps 200 --runs 3 --persistent $mode || rc=1
        done
    done
    return $rc
}
[ "${GPU_CHECK_PERSIST_API:-0}" != 0 ] && step "library persistent" persist-api.log persist_api_runs
bench_flags=${GPU_CHECK_BENCH:---quick}
# shellcheck disable=SC2086
[ "$bench_flags" != 0 ] && step "pillar bench" bench.log ./$build/pillar bench $bench_flags --out "$out" "$@"

echo "== device"; cat "$out/device.txt"
if [ -f "$out/ctest-gpu.log" ]; then
    echo "== GPU tests"; grep -E "tests passed|Passed|Failed|SKIP|FAILED" "$out/ctest-gpu.log" | tail -n 8
    grep -A 6 ": stencil " "$out/ctest-gpu.log" | cut -c1-80
fi
if [ -f "$out/persist-api.log" ]; then
    echo "== the library's persistent on / auto / off (a loop of pillar_step(1))"
    grep -E "^== |ms a step|note" "$out/persist-api.log" | cut -c1-150
fi
if [ -f "$out/onchip.log" ]; then
    echo "== on-chip persistent kernels (bench --iterated: us a step, speed-up over the host loop)"
    grep -E "^== |host-loop|persistent|onchip" "$out/onchip.log" | cut -c1-150
fi
[ -f "$out/bench.log" ] && echo "== benchmark (Table 6.2 rows)"
[ -f "$out/bench.log" ] && grep -E "^[a-z]+ (double|float) [0-9]+x|regular grid|^  (rowmajor|zcurve|zcurve-w|random) " "$out/bench.log" | cut -c1-140
[ -f "$out/bench.log" ] && grep -E "^device copy ceiling|configurations in" "$out/bench.log"
if [ -f "$out/ooc.log" ]; then
    echo "== out of core (2 GB budget)"; grep -E "steps? on|  persistent on|  time|link use|verify" "$out/ooc.log" | cut -c1-140
fi
if [ -f "$out/graph.log" ]; then
    echo "== graphlap on 1M hexagons / triangles x 64 (bench --mesh --quick)"
    grep -vE "^\[" "$out/graph.log" | grep -E "graphlap on|memory floor|^  (lattice|file|metis|zcurve)" | cut -c1-140
fi
if [ -f "$out/large.log" ]; then
    echo "== 4096x4096x64: in core one step, out of core under 8 GB (F = 32, K = 2; F = 32 persistent)"
    grep -E "^[a-z]+ (double|float)|^  plan|^  persistent on|^  time|^  kernels|verify" "$out/large.log" | cut -c1-140
fi
if [ -f "$out/persistent.log" ]; then
    echo "== persistent (in core, 200 steps, 512x512x64 and x16: --persistent off, on, auto, on with 0 and 1 levels cached; graphlap on hexagons off, on)"
    grep -E "steps? on|^  persistent|^  cache|^  time|verify" "$out/persistent.log" | cut -c1-160
fi
if [ -f "$out/iterated.log" ]; then
    echo "== bench --iterated (in core, kernels only, us per step; speed-up over the host loop)"
    grep -E "^  (stencil|laplap|hdiff|fastwaves|lap|graphlap) |^[a-z]+ (double|float) on|rows in|^wrote|\.png$" \
        "$out/iterated.log" | cut -c1-140
fi
[ -f "$out/memcheck.log" ] && { echo "== compute-sanitizer"; grep -H -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out"/memcheck*.log "$out"/racecheck*.log 2>/dev/null; }
echo "== steps"; printf '%s\n' "${summary[@]}"
