#!/bin/bash
# multi-gpu.sh — distributed runs on the GPUs of one host, one MPI rank per GPU: weak and strong
# scaling of laplap and hdiff on cubed spheres (docs/distributed.md#measured-on-several-gpus).
#
#   tools/multi-gpu.sh                 builds build-gpu (MPI on), checks, measures, summarises
#
# On a machine with G >= 2 GPUs (the device tool's nvidia-h200-x2 or -x4), in one call:
#   1. builds pillar with MPI and CUDA (.devdeps carries OpenMPI, HDF5, METIS, netCDF), prints how
#      the GPUs are linked (nvidia-smi topo -m), runs the GPU tests of distributed runs
#      (dist_gpu, dist_cli_gpu, api_mpi_gpu, api_decomp_gpu: their ranks now spread over the GPUs);
#   2. generates cubed spheres: 6 x N^2 cells a GPU (N = MGPU_N), and for P GPUs 6 x (N sqrt P)^2
#      (P x the cells of one, within 0.1%), MGPU_LEVELS levels;
#   3. for each stencil, MGPU_STEPS steps in double, F = 1: weak scaling, P ranks on the P-GPU
#      sphere for P = 1, 2 (, 4); strong scaling, the largest sphere on 1 .. G ranks. Every run
#      prints its time per step, the exchange alone and the share hidden, the model's
#      prediction and a checksum of its final state; every run on several ranks must give the checksum of the same
#      sphere on one rank (bit-exact) — checked here, a mismatch fails the script; the CPU
#      recomputes the one-rank runs of the one-GPU sphere (bit for bit, MGPU_VERIFY);
#      Each weak and strong run is made once per halo path (MGPU_HALO: staged through the host,
#      and nccl, GPU to GPU, where pillar was built with NCCL), into OUT/staged/ and OUT/nccl/;
#      beside them the one-GPU sphere in core on one GPU (OUT/single-STENCIL.txt): the
#      single-GPU rate each rank's interior is compared with (made on every GPU at once: the
#      cards' spread);
#   4. tools/multi-gpu-summary.py writes summary.md (the tables, per halo path) and scaling.png.
# Outputs go to $OUT (the device tool's folder) or multi-gpu-out. Exit 0 when every run passed.
# Env: MGPU_N (1024), MGPU_LEVELS (64), MGPU_STEPS (100), MGPU_STENCILS ("laplap hdiff"),
#      MGPU_HALO ("staged nccl" when pillar has NCCL, else "staged"; ipc: through CUDA IPC),
#      MGPU_VERIFY (small: the CPU recomputes the one-rank runs on one GPU's sphere; all; none),
#      MGPU_TESTS (1: run the GPU tests first, beside the making of the spheres; 0: skip),
#      MGPU_CTEST (the regular expression of those tests), MGPU_CTEST_J (how many at once, 1), MGPU_PARTS (1: store a partition of one
#      part a rank in each sphere, so each rank reads only its part; 0: every rank reads the whole
#      sphere), MGPU_KEEP (a folder keeping the runs across calls on one machine: a run found
#      there is not redone; /tmp/mgpu-runs), MGPU_ONE (0: skip the one-rank runs in this call),
#      MGPU_TIMEOUT (seconds a run may take, 240), MGPU_RUNS (a regular expression: only the runs
#      whose PATH/NAME matches, e.g. 'one/.*-weak-1|nccl/'), MGPU_BUILD (build folder, build-gpu),
#      MGPU_FLAGS (flags every run takes, the single-GPU ones too: a configuration, e.g.
#      '--storage nonchasing --compress --access idxvar --threads 128x1x1'; file order only, as
#      part-only runs read the file's; with it, use a fresh MGPU_KEEP), MGPU_FLAGS_laplap,
#      MGPU_FLAGS_hdiff (the same for one stencil, before MGPU_FLAGS),
#      MGPU_SUSTAINED (1: also the single-GPU rate over MGPU_STEPS steps in core; 0: not),
#      MGPU_CLOCKS (1: log the cards' clocks and power while measuring, clocks.csv; 0: not),
#      MGPU_DECOMP (1: also a model's own decomposition through the library, decomp_loop, on 1
#      and G ranks: decomp.md; 0: not),
#      MGPU_PREP (only: build, test and make the spheres, then stop: they stay for a later call),
#      PILLAR_NCCL_CTA_POLICY (default, efficiency, zero), NCCL_P2P_NVL_CHUNKSIZE and NCCL_PROTO
#      (NCCL's own): passed to the ranks; use a fresh MGPU_KEEP,
#      MGPU_BACKEND (gpu; cpu checks the script on a machine without GPUs), MGPU_DRY (1: on one GPU, ranks sharing it:
#      checks this script, measures nothing).
# NVLink multicast stays off (the device notes): NCCL_NVLS_ENABLE=0 and the like are exported for
# any library that looks, NCCL's included (pillar sets it too); staged halos go through pinned
# host buffers (Debian's Open MPI is not CUDA-aware).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-multi-gpu-out}
mkdir -p "$out"
export PMIX_MCA_pcompress_base_silence_warning=1
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
N=${MGPU_N:-1024} L=${MGPU_LEVELS:-64} T=${MGPU_STEPS:-100}
G=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
# MGPU_DRY=1: a dry run of this script on one GPU (the ranks share it; the figures mean nothing)
[ "$G" -ge 2 ] || [ "${MGPU_DRY:-0}" = 1 ] ||
    { echo "multi-gpu.sh: $G GPU(s) here; it needs at least 2 (MGPU_DRY=1: a dry run on one)"; exit 2; }
ranks="1 2"
[ "$G" -ge 4 ] && ranks="1 2 4"
last=${ranks##* }
build=${MGPU_BUILD:-build-gpu} # MGPU_BUILD: another build folder (its cache kept, MPI turned on)
{ nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version --format=csv
  nvidia-smi topo -m; nproc; } >"$out/machine.txt" 2>&1
cat "$out/machine.txt"
cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DPILLAR_MPI=ON >"$out/configure.log" 2>&1 &&
    cmake --build $build -j "$(nproc)" >"$out/build.log" 2>&1 ||
    { tail -n 30 "$out/configure.log" "$out/build.log"; exit 1; }
pillar=$build/pillar
$pillar --version | tee "$out/version.txt"
fail=0
keep=${MGPU_KEEP:-/tmp/mgpu-runs} # runs kept across calls on one machine (reused, not redone)
mkdir -p "$keep"
edge() { python3 -c "import math; print(round($N * math.sqrt($1)))"; }
big=$(edge "$last")
# sphere P n: the mesh file P ranks run on the sphere of edge n. With MGPU_PARTS=1 (the default)
# it stores a partition into P parts, so each rank reads only its own rows (docs/distributed.md,
# part-only runs); a second partition of the same sphere goes into a copy of its file.
sphere() {
    local P=$1 n=$2
    if [ "$P" = 1 ] || [ "${MGPU_PARTS:-1}" = 0 ] || [ "$n" = "$(edge "$P")" ]; then
        echo "/tmp/mgpu-sphere-$n.h5"
    else
        echo "/tmp/mgpu-sphere-$n-p$P.h5"
    fi
}
# the spheres and their partitions, made once a machine (in the background, beside the tests)
prepare() {
    local P n f pids=()
    for P in $ranks; do
        n=$(edge "$P")
        [ -s "/tmp/mgpu-sphere-$n.h5" ] ||
            { $pillar mesh generate "/tmp/mgpu-sphere-$n.tmp.h5" --kind cubed-sphere --n "$n" \
                  --levels "$L" >/dev/null && mv "/tmp/mgpu-sphere-$n.tmp.h5" "/tmp/mgpu-sphere-$n.h5"; } &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || return 1; done
    [ "${MGPU_PARTS:-1}" = 0 ] && return 0
    pids=()
    for P in $ranks; do
        [ "$P" = 1 ] && continue
        for n in $(printf '%s\n' "$(edge "$P")" "$big" | sort -u); do
            f=$(sphere "$P" "$n")
            [ -f "$f.parts-$P" ] && continue # partitioned on this machine already
            [ "$f" = "/tmp/mgpu-sphere-$n.h5" ] || cp "/tmp/mgpu-sphere-$n.h5" "$f" || return 1
            { $pillar mesh partition "$f" --parts "$P" && touch "$f.parts-$P"; } &
            pids+=($!)
        done
    done
    for p in "${pids[@]}"; do wait "$p" || return 1; done
}
t0=$SECONDS
prepare >"$out/prepare.log" 2>&1 &
prep=$!
if [ "${MGPU_TESTS:-1}" != 0 ]; then
    (cd $build && ctest -R "${MGPU_CTEST:-^(dist_gpu|dist_cli_gpu|api_mpi_gpu|api_decomp_gpu)\$}" \
        -j "${MGPU_CTEST_J:-1}" --output-on-failure) >"$out/ctest-dist.log" 2>&1 || fail=1
    tail -n 8 "$out/ctest-dist.log"
fi
wait $prep || { echo "preparing the spheres failed"; tail -n 20 "$out/prepare.log"; exit 1; }
echo "spheres and partitions ready after $((SECONDS - t0)) s"
# MGPU_PREP=only: the build, the tests and the spheres, no run (a later call on the machine runs)
[ "${MGPU_PREP:-}" = only ] && exit $fail
# the cards' clocks, power and temperature every 100 ms while the rates and the runs are measured
# (clocks.csv), and when each measurement ran (phases.txt): tools/gpu-clocks.py sums them up under
# the tables (MGPU_CLOCKS=0: not logged)
rm -f "$out/phases.txt"
phase() { echo "$1 $2 $(date +%s.%N)" >>"$out/phases.txt"; } # phase begin|end NAME
clocks=""
if [ "${MGPU_BACKEND:-gpu}" = gpu ] && [ "${MGPU_CLOCKS:-1}" != 0 ]; then
    # started from a subshell, so that it is no job of this shell: a bare `wait` below would
    # wait for it forever
    clocks=$( (nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
        --format=csv,noheader -lms 100 >"$out/clocks.csv" 2>&1 </dev/null & echo $!) )
fi
cores=$(nproc)
halos=${MGPU_HALO:-staged}
[ -z "${MGPU_HALO:-}" ] && grep -q "NCCL [0-9]" "$out/version.txt" && halos="staged nccl"
stencils=${MGPU_STENCILS:-laplap hdiff}
# flags STENCIL: the configuration flags every run of STENCIL takes (MGPU_FLAGS_STENCIL, else
# MGPU_FLAGS, else none: the plan)
flags() {
    local v="MGPU_FLAGS_$1"
    echo "${!v:-${MGPU_FLAGS:-}}"
}
# cards NAME OK ARGS...: `pillar run ARGS` on the one-GPU sphere in core, on every GPU at once
# (each card's own rate, all of them busy as in a distributed run), kept in $keep/NAME-gpuI.txt
# (not redone where the regular expression OK is found there); GPU 0's is copied to NAME.txt, the
# one the summary compares with, the others show the cards' spread
cards() {
    local name=$1 ok=$2 f i
    shift 2
    phase begin "$name"
    for ((i = 0; i < G; i++)); do
        f="$keep/$name-gpu$i.txt"
        grep -qE "$ok" "$f" 2>/dev/null ||
            CUDA_VISIBLE_DEVICES=$i timeout -k 10 300 "$pillar" run --backend "${MGPU_BACKEND:-gpu}" \
                --mesh "/tmp/mgpu-sphere-$N.h5" --verify off "$@" >"$f" 2>&1 &
    done
    wait
    phase end "$name"
    for ((i = 0; i < G; i++)); do
        f="$keep/$name-gpu$i.txt"
        grep -qE "$ok" "$f" || fail=1
        cp "$f" "$out/"
        grep -E "$ok" "$f" | tail -n 1 | sed "s/^ */$name, GPU $i: /"
    done
    cp "$keep/$name-gpu0.txt" "$out/$name.txt"
}
for st in $stencils; do
    # the single-GPU rate, as a user runs it (its plan or MGPU_FLAGS): the median of 20 steps
    # shellcheck disable=SC2046
    cards "single-$st" '^  time      median' --stencil "$st" --runs 20 $(flags "$st")
    # and over a run as long as the distributed ones, MGPU_STEPS steps (the kernels' time a
    # step, copies excluded; the CPU backend: the time a step): a distributed run's passes
    # compare with it as with the one-step rate (MGPU_SUSTAINED=0: not measured)
    # shellcheck disable=SC2046
    [ "${MGPU_SUSTAINED:-1}" != 0 ] && cards "steps-$st" '^  (kernels|time) +[0-9.]+ ms per step' \
        --stencil "$st" --steps "$T" $(flags "$st")
done
# run DIR NAME P N STENCIL HALO: P ranks (one per GPU) on the sphere of edge N; output DIR/NAME.txt,
# kept (a run already in DIR is not redone). The CPU recomputes the one-rank weak runs
# (MGPU_VERIFY=small, the default), every run (all) or none; the others are compared by checksum
# (--verify off). A run has MGPU_TIMEOUT seconds (a hang fails it, not the call).
run() {
    local dir=$1 name=$2 P=$3 n=$4 st=$5 halo=$6 t0=$SECONDS verify=off
    mkdir -p "$dir"
    [[ "$(basename "$dir")/$name" =~ ${MGPU_RUNS:-.} ]] || return 0
    grep -q '^  state     checksum' "$dir/$name.txt" 2>/dev/null && return 0
    case ${MGPU_VERIFY:-small} in
        all) verify=on;; small) [ "$P" = 1 ] && [ "$n" = "$N" ] && verify=on;;
    esac
    phase begin "$(basename "$dir")/$name"
    local xs=(-x NCCL_NVLS_ENABLE)
    local v
    for v in PILLAR_NCCL_CTA_POLICY NCCL_P2P_NVL_CHUNKSIZE NCCL_PROTO PILLAR_DIST_INTERIOR_ALONE; do
        [ -n "${!v:-}" ] && xs+=(-x "$v")
    done
    timeout -k 10 "${MGPU_TIMEOUT:-240}" mpirun -np "$P" --bind-to none -x OMP_NUM_THREADS=$((cores / P)) \
        "${xs[@]}" "$pillar" run --ranks "$P" --backend "${MGPU_BACKEND:-gpu}" --mesh "$(sphere "$P" "$n")" \
        --halo "$halo" --stencil "$st" --steps "$T" --verify $verify $(flags "$st") >"$dir/$name.txt" 2>&1
    local rc=$?
    phase end "$(basename "$dir")/$name"
    printf '%-26s exit %d %4ds  %s\n' "$name" $rc $((SECONDS - t0)) \
        "$(grep -E '^  time  ' "$dir/$name.txt" | sed 's/^ *//')"
    [ $rc -eq 0 ] || { fail=1; tail -n 5 "$dir/$name.txt"; mv "$dir/$name.txt" "$dir/$name.failed"; }
}
sum() { grep '^  state     checksum' "$1" 2>/dev/null | awk '{print $3}'; }
{
# one rank exchanges nothing: its runs are made once and stand in both halo paths' tables
# (MGPU_ONE=0: not in this call)
# (MGPU_ONE=0: not in this call); they run side by side, each on a GPU of its own
if [ "${MGPU_ONE:-1}" != 0 ]; then
    slot=0
    for st in $stencils; do
        for w in "weak-1 $N" "strong-1 $big"; do
            set -- $w
            CUDA_VISIBLE_DEVICES=$((slot % G)) run "$keep/one" "$st-$1" 1 "$2" "$st" auto &
            slot=$((slot + 1))
            [ $((slot % G)) = 0 ] && wait
        done
    done
    wait
fi
for halo in $halos; do
    echo "halos: $halo"
    for st in $stencils; do
        for P in $ranks; do # weak: P GPUs, P x the cells; strong: the largest sphere on 2 .. G-1
            [ "$P" = 1 ] && continue
            run "$keep/$halo" "$st-weak-$P" "$P" "$(edge "$P")" "$st" "$halo"
            [ "$P" = "$last" ] || run "$keep/$halo" "$st-strong-$P" "$P" "$big" "$st" "$halo"
        done
    done
done
} 2>&1 | tee "$out/runs.txt"
# a model's own decomposition through the library (examples/c/decomp_loop.c): laplap on a
# lattice of 4096 x 1536 P cells (about the spheres' cells a GPU) x L levels in strips of rows, P
# ranks for P = 1 and G, T steps as a loop of pillar_step(1) and as one pillar_step(T), timed only
# (--no-check); into $keep/decomp/laplap-weak-P.txt (MGPU_DECOMP=0: not run)
dl=$build/tests/decomp_loop
if [ "${MGPU_DECOMP:-1}" != 0 ] && [ -x "$dl" ]; then
    mkdir -p "$keep/decomp"
    for P in 1 "$last"; do
        f="$keep/decomp/laplap-weak-$P.txt"
        [[ "decomp/laplap-weak-$P" =~ ${MGPU_RUNS:-.} ]] || continue
        grep -q '^  one pillar_step' "$f" 2>/dev/null && continue
        phase begin "decomp/laplap-weak-$P"
        timeout -k 10 "${MGPU_TIMEOUT:-240}" mpirun -np "$P" --bind-to none -x NCCL_NVLS_ENABLE \
            "$dl" --size "4096x$((1536 * P))x$L" --steps "$T" --backend "${MGPU_BACKEND:-gpu}" \
            --no-check >"$f" 2>&1 || { fail=1; tail -n 5 "$f"; }
        phase end "decomp/laplap-weak-$P"
    done
    d1=$(awk '/loop of pillar_step/ {print $(NF-3)}' "$keep/decomp/laplap-weak-1.txt" 2>/dev/null)
    {
        echo "## A model's own decomposition through the library (examples/c/decomp_loop.c)"
        echo
        echo "laplap, 4096 x 1536 P cells x $L levels in strips of rows, $T steps; ms a step"
        echo
        echo "| ranks | loop of pillar_step(1) | one pillar_step($T) | weak efficiency of the loop |"
        echo "|---|---:|---:|---:|"
        for P in 1 "$last"; do
            f="$keep/decomp/laplap-weak-$P.txt"
            a=$(awk '/loop of pillar_step/ {print $(NF-3)}' "$f" 2>/dev/null)
            b=$(awk '/one pillar_step/ {print $(NF-3)}' "$f" 2>/dev/null)
            e=$(python3 -c "print('%.1f%%' % (100 * $d1 / $a))" 2>/dev/null || echo -)
            echo "| $P | ${a:--} | ${b:--} | $e |"
        done
        echo
    } >"$out/decomp.md"
    cp "$keep/decomp"/*.txt "$out/" 2>/dev/null
fi
[ -n "$clocks" ] && kill "$clocks" 2>/dev/null
grep -q 'exit [1-9]' "$out/runs.txt" && fail=1
# bit-exact: every run on several ranks (each halo path kept so far) against the same sphere's run
# on one rank, and the two paths against each other
for d in "$keep"/*/; do
    h=$(basename "$d")
    [ "$h" = one ] || [ "$h" = decomp ] && continue
    for f in "$d"*.txt; do
        [ -f "$f" ] || continue
        name=$(basename "$f" .txt) st=${name%%-*}
        case $name in *-strong-*) n=$big;; *) P=${name##*-}; n=$(edge "$P");; esac
        if [ "$n" = "$N" ]; then one="$keep/one/$st-weak-1.txt"; else one="$keep/one/$st-strong-1.txt"; fi
        [ "$n" = "$big" ] || [ "$n" = "$N" ] || continue # no one-rank run of this sphere
        a=$(sum "$f") b=$(sum "$one")
        [ -n "$b" ] || { echo "no one-rank run of $name's sphere yet"; continue; }
        [ -n "$a" ] && [ "$a" = "$b" ] && echo "bit-exact  $h $name: $a, as on 1 rank" ||
            { echo "DIFFER     $h $name: '$a', 1 rank '$b'"; fail=1; }
    done
done | tee "$out/checks.txt"
grep -q DIFFER "$out/checks.txt" && fail=1
if [ -d "$keep/nccl" ] && [ -d "$keep/staged" ]; then
    for f in "$keep/nccl"/*.txt; do
        g="$keep/staged/$(basename "$f")"
        [ -f "$g" ] || continue
        a=$(sum "$f") b=$(sum "$g")
        [ -n "$a" ] && [ "$a" = "$b" ] && echo "bit-exact  $(basename "$f" .txt): nccl and staged both $a" ||
            { echo "DIFFER     $(basename "$f" .txt): nccl '$a', staged '$b'"; fail=1; }
    done | tee -a "$out/checks.txt"
fi
grep -q DIFFER "$out/checks.txt" && fail=1
# the tables: each halo path's runs with the one-rank runs beside them
for d in "$keep"/*/; do
    h=$(basename "$d")
    [ "$h" = one ] || [ "$h" = decomp ] && continue
    mkdir -p "$out/$h"
    cp "$d"* "$out/$h/" 2>/dev/null
    cp "$keep"/one/*.txt "$out/$h/" 2>/dev/null
    python3 tools/multi-gpu-summary.py "$out/$h" "$N" "$L" "$T" "$ranks" "$out" || fail=1
done | tee "$out/summary.md"
[ -s "$out/decomp.md" ] && tee -a "$out/summary.md" <"$out/decomp.md"
[ -s "$out/clocks.csv" ] && [ -s "$out/phases.txt" ] &&
    python3 tools/gpu-clocks.py "$out/clocks.csv" "$out/phases.txt" | tee -a "$out/summary.md"
exit $fail
