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
#      single-GPU rate each rank's interior is compared with;
#   4. tools/multi-gpu-summary.py writes summary.md (the tables, per halo path) and scaling.png.
# Outputs go to $OUT (the device tool's folder) or multi-gpu-out. Exit 0 when every run passed.
# Env: MGPU_N (1024), MGPU_LEVELS (64), MGPU_STEPS (100), MGPU_STENCILS ("laplap hdiff"),
#      MGPU_HALO ("staged nccl" when pillar has NCCL, else "staged"),
#      MGPU_VERIFY (small: the CPU recomputes the one-rank runs on one GPU's sphere; all; none),
#      MGPU_TESTS (1: run the GPU tests first; 0: skip), MGPU_DRY (1: on one GPU, ranks sharing it:
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
build=build-gpu
{ nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version --format=csv
  nvidia-smi topo -m; nproc; } >"$out/machine.txt" 2>&1
cat "$out/machine.txt"
cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DPILLAR_MPI=ON >"$out/configure.log" 2>&1 &&
    cmake --build $build -j "$(nproc)" >"$out/build.log" 2>&1 ||
    { tail -n 30 "$out/configure.log" "$out/build.log"; exit 1; }
pillar=$build/pillar
$pillar --version | tee "$out/version.txt"
fail=0
if [ "${MGPU_TESTS:-1}" != 0 ]; then
    (cd $build && ctest -R '^(dist_gpu|dist_cli_gpu|api_mpi_gpu|api_decomp_gpu)$' --output-on-failure) \
        >"$out/ctest-dist.log" 2>&1 || fail=1
    tail -n 6 "$out/ctest-dist.log"
fi

edge() { python3 -c "import math; print(round($N * math.sqrt($1)))"; }
for P in $ranks; do
    n=$(edge "$P")
    [ -f "/tmp/mgpu-sphere-$n.h5" ] ||
        $pillar mesh generate "/tmp/mgpu-sphere-$n.h5" --kind cubed-sphere --n "$n" --levels "$L" >/dev/null ||
        { echo "mesh generate n=$n failed"; exit 1; }
done
cores=$(nproc)
halos=${MGPU_HALO:-staged}
[ -z "${MGPU_HALO:-}" ] && grep -q "NCCL [0-9]" "$out/version.txt" && halos="staged nccl"
# the single-GPU rate: the one-GPU sphere in core on one GPU, as a user runs it (its plan)
for st in ${MGPU_STENCILS:-laplap hdiff}; do
    "$pillar" run --backend gpu --mesh "/tmp/mgpu-sphere-$N.h5" --stencil "$st" --runs 20 \
        --verify off >"$out/single-$st.txt" 2>&1 || fail=1
    grep -E '^  time  ' "$out/single-$st.txt" | sed "s/^ */single GPU $st: /"
done
# run NAME P N STENCIL: P ranks (one per GPU) on the sphere of edge N; output NAME.txt. The CPU
# recomputes the one-rank weak runs (MGPU_VERIFY=small, the default), every run (all) or none;
# the others are compared by checksum (--verify off)
run() {
    local name=$1 P=$2 n=$3 st=$4 t0=$SECONDS verify=off
    case ${MGPU_VERIFY:-small} in
        all) verify=on;; small) [ "$P" = 1 ] && [ "$n" = "$N" ] && verify=on;;
    esac
    mpirun -np "$P" --bind-to none -x OMP_NUM_THREADS=$((cores / P)) -x NCCL_NVLS_ENABLE \
        "$pillar" run --ranks "$P" --backend gpu --mesh "/tmp/mgpu-sphere-$n.h5" --halo "$halo" \
        --stencil "$st" --steps "$T" --verify $verify >"$dir/$name.txt" 2>&1
    local rc=$?
    printf '%-26s exit %d %4ds  %s\n' "$name" $rc $((SECONDS - t0)) \
        "$(grep -E '^  time  ' "$dir/$name.txt" | sed 's/^ *//')"
    [ $rc -eq 0 ] || { fail=1; tail -n 5 "$dir/$name.txt"; }
}
sum() { grep '^  state     checksum' "$dir/$1.txt" | awk '{print $3}'; }
big=$(edge "$last")
for halo in $halos; do
dir="$out/$halo"
mkdir -p "$dir"
echo "halos: $halo"
for st in ${MGPU_STENCILS:-laplap hdiff}; do
    for P in $ranks; do # weak: P GPUs, P x the cells
        run "$st-weak-$P" "$P" "$(edge "$P")" "$st"
    done
    for P in $ranks; do # strong: the largest sphere on 1 .. G GPUs (its weak run is the last)
        [ "$P" = "$last" ] || run "$st-strong-$P" "$P" "$big" "$st"
    done
    # bit-exact: each sphere's runs on several ranks against its run on one
    for P in $ranks; do
        [ "$P" = 1 ] && continue
        n=$(edge "$P")
        one=$([ "$P" = "$last" ] && sum "$st-strong-1" || true)
        [ -n "$one" ] || continue
        mine=$(sum "$st-weak-$P")
        if [ -n "$mine" ] && [ "$mine" = "$one" ]; then
            echo "bit-exact  $st sphere n=$n: $P ranks and 1 rank both $one"
        else
            echo "DIFFER     $st sphere n=$n: $P ranks '$mine', 1 rank '$one'"; fail=1
        fi
    done
    for P in $ranks; do
        [ "$P" = 1 ] || [ "$P" = "$last" ] || { # strong runs between 1 and the last
            a=$(sum "$st-strong-$P") b=$(sum "$st-strong-1")
            [ -n "$a" ] && [ "$a" = "$b" ] && echo "bit-exact  $st sphere n=$big: $P ranks and 1 rank both $a" ||
                { echo "DIFFER     $st strong $P: '$a' vs '$b'"; fail=1; }
        }
    done
done
done | tee "$out/runs.txt"
grep -q 'DIFFER\|exit [1-9]' "$out/runs.txt" && fail=1
# the checksums of both halo paths agree (bit for bit: the path moves the same values)
if [ -d "$out/nccl" ] && [ -d "$out/staged" ]; then
    for f in "$out/nccl"/*.txt; do
        g="$out/staged/$(basename "$f")"
        [ -f "$g" ] || continue
        a=$(grep '^  state     checksum' "$f" | awk '{print $3}') b=$(grep '^  state     checksum' "$g" | awk '{print $3}')
        [ -n "$a" ] && [ "$a" = "$b" ] && echo "bit-exact  $(basename "$f" .txt): nccl and staged both $a" ||
            { echo "DIFFER     $(basename "$f" .txt): nccl '$a', staged '$b'"; fail=1; }
    done | tee -a "$out/runs.txt"
fi
for halo in $halos; do
    python3 tools/multi-gpu-summary.py "$out/$halo" "$N" "$L" "$T" "$ranks" "$out" || fail=1
done | tee "$out/summary.md"
exit $fail
