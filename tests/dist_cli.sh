#!/bin/sh
# dist_cli.sh — `mpirun -np P pillar run --steps T --fuse F`: the state gathered from P ranks
# equals the CPU in-core iteration bit for bit (each run's verify line) for every iterated
# stencil, P = 1, 2, 3, 4, 7, layouts, generated grids and mesh kinds (fluxdiff on hexagons and
# the cubed sphere, its checksum on 1 and 3 ranks too; on the GPU graphlap and fluxdiff by
# --access graph-twopass on 2 ranks too); its --output equals the
# --output of a single-process `pillar run --steps T` (test_field_io --same), a run continued
# from a distributed run's output on another number of ranks too; bad combinations exit 2.
# Built without MPI: `pillar run --ranks 2` must say so (exit 2), then the test is skipped (77).
# usage: dist_cli.sh PILLAR TEST_FIELD_IO [cpu|gpu]   (gpu: 2 and 4 ranks sharing one GPU)
set -u
pillar=$1
fio=$2
backend=${3:-cpu}
tmp=$(mktemp -d /tmp/pillar-dist-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

if ! "$pillar" --version | grep -q "MPI yes"; then
    "$pillar" run --ranks 2 --steps 2 >"$tmp/log" 2>&1
    rc=$?
    if [ $rc -ne 2 ] || ! grep -q "built without MPI" "$tmp/log"; then
        echo "FAIL: built without MPI, 'pillar run --ranks 2' gave exit $rc:"; cat "$tmp/log"; exit 1
    fi
    echo "skip: pillar built without MPI (and says so)"; exit 77
fi
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
if [ "$backend" = gpu ] && ! "$pillar" run --backend gpu --size 8x8x2 --steps 1 >"$tmp/log" 2>&1; then
    echo "skip: no GPU: $(tail -1 "$tmp/log")"; exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
# Open MPI's session directories under this test's own folder: mpirun jobs started at the same
# moment by other tests (ctest -j) race to create the same /tmp/ompi.HOST.UID otherwise
export OMPI_MCA_orte_tmpdir_base="$tmp"
mpi() { # mpi P ARGS...: pillar run on P ranks
    np=$1; shift
    mpirun --oversubscribe -np "$np" "$pillar" run --ranks "$np" --backend "$backend" "$@"
}
# run P ARGS...: a distributed run whose verify line must say PASS
run() {
    if mpi "$@" >"$tmp/out" 2>&1 && grep -q "verify    PASS" "$tmp/out"; then
        echo "ok   $*"
    else
        echo "FAIL $*"; cat "$tmp/out"; fail=1
    fi
}

# --progress: rank 0's meter counts the passes' steps (PILLAR_PROGRESS_AFTER=0: from the first)
if PILLAR_PROGRESS_AFTER=0 mpi 2 --size 24x20x4 --steps 4 --fuse 2 --progress >"$tmp/out" 2>"$tmp/err" &&
    grep -q "^pillar: run  50% (2 of 4 steps)" "$tmp/err" && grep -q "^pillar: run 100% (4 of 4 steps)$" "$tmp/err"; then
    echo "ok   --progress on 2 ranks"
else
    echo "FAIL --progress on 2 ranks"; cat "$tmp/err"; fail=1
fi

# generated grids: every W/E/S/N stencil, layouts, storages, P = 1, 2, 3, 4, 7, F = 1..3
ranks="1 2 3 4 7"
[ "$backend" = gpu ] && ranks="2 4"
i=0
for st in laplap hdiff fastwaves lap; do
    for P in $ranks; do
        i=$((i + 1))
        case $((i % 3)) in
            0) lay="--layout zcurve --storage chasing";;
            1) lay="--layout rowmajor --storage nonchasing --compress";;
            2) lay="--layout random --precision float";;
        esac
        run "$P" --stencil $st --size 30x26x6 $lay --steps 5 --fuse $((i % 3 + 1))
    done
done

# meshes: a cubed sphere (seams), hexagons and triangles (graphlap), a refined patch; orders
"$pillar" mesh generate "$tmp/sphere.h5" --kind cubed-sphere --n 8 --levels 5 >/dev/null
"$pillar" mesh generate "$tmp/hex.h5" --kind hexagons --size 20x18 --levels 5 --periodic >/dev/null
"$pillar" mesh generate "$tmp/tri.h5" --kind triangles --size 16x14 --levels 4 >/dev/null
"$pillar" mesh generate "$tmp/ref.h5" --kind refined --size 18x18 --refine 6 --levels 4 >/dev/null
for P in $ranks; do
    run "$P" --mesh "$tmp/sphere.h5" --stencil hdiff --layout metis --steps 4 --fuse 2
    run "$P" --mesh "$tmp/hex.h5" --stencil graphlap --steps 4 --fuse $((P % 3 + 1))
done
run 3 --mesh "$tmp/sphere.h5" --stencil laplap --layout zcurve --steps 3
run 2 --mesh "$tmp/tri.h5" --stencil graphlap --layout zcurve --steps 4 --fuse 2
run 4 --mesh "$tmp/ref.h5" --stencil graphlap --layout metis --steps 3 --precision float
# fluxdiff: each rank carries its cells' coefficients (hexagons, the cubed sphere)
run 2 --mesh "$tmp/hex.h5" --stencil fluxdiff --steps 5 --fuse 2
run 3 --mesh "$tmp/hex.h5" --stencil fluxdiff --layout metis --steps 4 --precision float
run 2 --mesh "$tmp/sphere.h5" --stencil fluxdiff --layout metis --steps 4 --precision float
run 3 --mesh "$tmp/sphere.h5" --stencil fluxdiff --steps 5 --fuse 3
# graph-twopass on the GPU: each rank's two-pass lists, cut at its interior (dist_rank_gtwopass)
if [ "$backend" = gpu ]; then
    run 2 --mesh "$tmp/hex.h5" --stencil graphlap --access graph-twopass --steps 5 --fuse 2
    run 2 --mesh "$tmp/ref.h5" --stencil fluxdiff --access graph-twopass --layout metis --steps 4 --fuse 3
    # the sphere's best single-GPU strategy (plain loads, flat warps) on the ranks' parts
    run 3 --mesh "$tmp/sphere.h5" --stencil hdiff --access zloop-plain --storage nonchasing --compress --threads 128x1x1 --steps 4
    run 4 --mesh "$tmp/sphere.h5" --stencil laplap --access zloop-plain --storage chasing --compress --steps 3 --fuse 2
fi

# --output equals a single-process run's; a continued run on another number of ranks too
same() { # same A B FIELDS...: what test_field_io --same says
    if "$fio" --same "$@" >"$tmp/log" 2>&1; then echo "ok   same $1 $2"
    else echo "FAIL same $*"; cat "$tmp/log"; fail=1; fi
}
"$pillar" run --backend cpu --mesh "$tmp/hex.h5" --stencil graphlap --steps 5 --output "$tmp/one.h5" >/dev/null
run 4 --mesh "$tmp/hex.h5" --stencil graphlap --steps 5 --fuse 2 --output "$tmp/four.h5"
same "$tmp/one.h5" "$tmp/four.h5" in
"$pillar" run --backend cpu --stencil fastwaves --size 26x22x5 --steps 5 --output "$tmp/fw1.h5" >/dev/null
run 2 --stencil fastwaves --size 26x22x5 --steps 3 --output "$tmp/fw3.h5"
run 4 --stencil fastwaves --size 26x22x5 --steps 2 --fuse 2 --input "$tmp/fw3.h5" --output "$tmp/fw5.h5"
same "$tmp/fw1.h5" "$tmp/fw5.h5" u_pos v_pos

# the state's checksum (what compares runs too large for the CPU to verify): equal on 1 and on P
# ranks (that one with --verify off: no CPU reference, said so), different one step later; the exchange measured alone, the devices (and on the GPU the
# model) printed
sum() { grep "^  state     checksum" "$tmp/out" | awk '{print $3}'; }
mpi 1 --mesh "$tmp/sphere.h5" --stencil laplap --steps 4 >"$tmp/out" 2>&1; one=$(sum)
mpi 3 --mesh "$tmp/sphere.h5" --stencil laplap --steps 4 --fuse 2 --verify off >"$tmp/out" 2>&1
three=$(grep -q "verify    skipped (--verify off)" "$tmp/out" && sum)
cp "$tmp/out" "$tmp/three"
mpi 3 --mesh "$tmp/sphere.h5" --stencil laplap --steps 5 --fuse 2 >"$tmp/out" 2>&1; later=$(sum)
# a grid with halo cells (no rank owns them) and two carried fields: --verify off makes each
# rank's part only and hashes the state level by level on rank 0 (dist_exec.bare)
mpi 1 --stencil fastwaves --size 30x26x5 --layout zcurve --steps 3 >"$tmp/out" 2>&1; fw1=$(sum)
mpi 2 --stencil fastwaves --size 30x26x5 --layout zcurve --steps 3 --verify off >"$tmp/out" 2>&1
fw2=$(sum)
if [ -n "$fw1" ] && [ "$fw1" = "$fw2" ]; then echo "ok   checksum of fastwaves with halo cells, 1 and 2 ranks"
else echo "FAIL fastwaves checksum 1 rank '$fw1', 2 ranks --verify off '$fw2'"; cat "$tmp/out"; fail=1; fi
# fluxdiff with --verify off: each rank makes its part's fields only, its coefficients still
mpi 1 --mesh "$tmp/sphere.h5" --stencil fluxdiff --steps 4 >"$tmp/out" 2>&1; fx1=$(sum)
mpi 3 --mesh "$tmp/sphere.h5" --stencil fluxdiff --steps 4 --fuse 2 --verify off >"$tmp/out" 2>&1
fx3=$(grep -q "verify    skipped (--verify off)" "$tmp/out" && sum)
mpi 3 --mesh "$tmp/sphere.h5" --stencil fluxdiff --steps 5 --fuse 2 --verify off >"$tmp/out" 2>&1
fx5=$(sum)
if [ -n "$fx1" ] && [ "$fx1" = "$fx3" ] && [ -n "$fx5" ] && [ "$fx5" != "$fx1" ]; then
    echo "ok   checksum of fluxdiff $fx1 on 1 and 3 ranks (--verify off), $fx5 a step later"
else echo "FAIL fluxdiff checksum 1 rank '$fx1', 3 ranks --verify off '$fx3', a step later '$fx5'"; cat "$tmp/out"; fail=1; fi
if [ -n "$one" ] && [ "$one" = "$three" ] && [ "$later" != "$one" ] && [ -n "$later" ] &&
    grep -qE "^  exchange  alone [0-9.]+ ms .* hid [0-9]+% of it" "$tmp/three" &&
    grep -qE "^  devices   rank 0: .*, rank 2: " "$tmp/three" &&
    { [ "$backend" = cpu ] || { grep -qE "^  model     [0-9.]+ ms per step on paper" "$tmp/three" &&
        grep -qE "^  ranks     .*: rank 0 [0-9.]+ \(alone [0-9.]+\), rank 1 [0-9.]+ \(alone [0-9.]+\), rank 2 [0-9.]+ \(alone [0-9.]+\)$" "$tmp/three"; }; }; then
    echo "ok   checksum $one on 1 and 3 ranks, $later a step later; exchange, devices"
else echo "FAIL checksum 1 rank '$one', 3 ranks '$three', a step later '$later':"; cat "$tmp/three"; fail=1; fi

# halo_path WHAT PATH REFUSAL: a 2-rank run names its halos' path (PATH, an extended regex after
# the bytes), and --halo nccl fails with REFUSAL (a regex)
halo_path() {
    if mpi 2 --size 24x20x4 --steps 2 >"$tmp/out" 2>&1 && grep -qE "^  halo      .*$2" "$tmp/out"; then
        echo "ok   halo path of $1"
    else echo "FAIL halo path of $1:"; cat "$tmp/out"; fail=1; fi
    if ! mpi 2 --size 24x20x4 --steps 2 --halo nccl >"$tmp/out" 2>&1 && grep -qE "$3" "$tmp/out"; then
        echo "ok   refused: --halo nccl, $1"
    else echo "FAIL --halo nccl, $1:"; cat "$tmp/out"; fail=1; fi
}

# refused: a rank count that is not mpirun's, flags a distributed run does not take
refused() { # refused P ARGS...: exit 2
    mpi "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ $rc -eq 2 ]; then echo "ok   refused: $*"
    else echo "FAIL exit $rc, not 2: $*"; cat "$tmp/out"; fail=1; fi
}
if [ "$backend" = cpu ]; then
    if mpirun --oversubscribe -np 2 "$pillar" run --ranks 3 --steps 2 >"$tmp/out" 2>&1; then
        echo "FAIL --ranks 3 on 2 ranks ran"; fail=1
    elif grep -q "but 2 ranks were started" "$tmp/out"; then echo "ok   refused: --ranks 3 on 2"
    else echo "FAIL --ranks 3 on 2 ranks:"; cat "$tmp/out"; fail=1; fi
    refused 2 --steps 2 --out-of-core on --device-mem 1M
    refused 2 --steps 2 --kernel-steps 2 --fuse 2
    # the halos' path: a CPU run keeps them in host memory, and says so; NCCL is for GPU runs
    halo_path "a CPU run" "; through host memory \(CPU\)$" "halo nccl moves the halos of GPU runs"
    if ! mpi 2 --size 24x20x4 --steps 2 --halo ipc >"$tmp/out" 2>&1 &&
        grep -q "halo ipc moves the halos of GPU runs" "$tmp/out"; then
        echo "ok   refused: --halo ipc, a CPU run"
    else echo "FAIL --halo ipc, a CPU run:"; cat "$tmp/out"; fail=1; fi
    # the model of fluxdiff's distributed runs (its coefficients are read-only: never exchanged)
    if "$pillar" run --plan-only --mesh "$tmp/hex.h5" --stencil fluxdiff --fuse 2 >"$tmp/out" 2>&1 &&
        grep -q "^fluxdiff double, 2 steps between exchanges" "$tmp/out" && grep -qE "^ +1024 " "$tmp/out"; then
        echo "ok   --plan-only fluxdiff"
    else echo "FAIL --plan-only fluxdiff:"; cat "$tmp/out"; fail=1; fi
fi
# ranks sharing one GPU (one made visible, on a host of several): auto stages the halos through
# the host and says why; NCCL is refused
[ "$backend" = gpu ] && CUDA_VISIBLE_DEVICES=0 halo_path "ranks sharing a GPU" \
    "; through (MPI staged through the host|CUDA-aware MPI device buffers) \((ranks share a GPU|pillar built without NCCL)\)$" \
    "NCCL needs a GPU per rank|built without NCCL"
# a GPU per rank, pillar built with NCCL: auto takes it, bit-exact. The GPUs counted are those
# CUDA shows (CUDA_VISIBLE_DEVICES where set: nvidia-smi lists them all)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ -n "${CUDA_VISIBLE_DEVICES+x}" ] && gpus=$(printf '%s\n' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
if [ "$backend" = gpu ] && [ "$gpus" -ge 2 ] &&
    "$pillar" --version | grep -q "NCCL [0-9]"; then
    if mpi 2 --size 24x20x4 --steps 3 >"$tmp/out" 2>&1 && grep -q "verify    PASS" "$tmp/out" &&
        grep -qE "^  halo      .*; through nccl \(NCCL [0-9.]+, CTA policy default\), GPU to GPU$" "$tmp/out"; then
        echo "ok   halo path of ranks on GPUs of their own: nccl"
    else echo "FAIL halo path of ranks on GPUs of their own:"; cat "$tmp/out"; fail=1; fi
    # NCCL's CTA policy asked for by the environment: named in the halo line, a bad value refused
    if PILLAR_NCCL_CTA_POLICY=efficiency mpi 2 --size 24x20x4 --steps 3 >"$tmp/out" 2>&1 &&
        grep -q "verify    PASS" "$tmp/out" && grep -q "CTA policy efficiency), GPU to GPU$" "$tmp/out"; then
        echo "ok   PILLAR_NCCL_CTA_POLICY=efficiency"
    else echo "FAIL PILLAR_NCCL_CTA_POLICY=efficiency:"; cat "$tmp/out"; fail=1; fi
    if ! PILLAR_NCCL_CTA_POLICY=fastest mpi 2 --size 24x20x4 --steps 3 >"$tmp/out" 2>&1 &&
        grep -q "PILLAR_NCCL_CTA_POLICY=fastest: expected default, efficiency or zero" "$tmp/out"; then
        echo "ok   PILLAR_NCCL_CTA_POLICY=fastest refused"
    else echo "FAIL PILLAR_NCCL_CTA_POLICY=fastest not refused:"; cat "$tmp/out"; fail=1; fi
fi
# halos through CUDA IPC (the copy engines): on ranks sharing one GPU and, where there are
# several, on GPUs of their own; each run's state against the CPU's in-core iteration bit for bit
# (its verify line), over exchanges enough to use both halves of the receive buffers
ipc_run() { # ipc_run WHAT ARGS...
    what=$1; shift
    if mpi "$@" --halo ipc >"$tmp/out" 2>&1 && grep -q "verify    PASS" "$tmp/out" &&
        grep -qE "^  halo      .*; through ipc \(CUDA IPC: the copy engines, no SM\), GPU to GPU$" "$tmp/out"; then
        echo "ok   --halo ipc, $what: $*"
    else echo "FAIL --halo ipc, $what: $*"; cat "$tmp/out"; fail=1; fi
}
if [ "$backend" = gpu ]; then
    CUDA_VISIBLE_DEVICES=0 ipc_run "ranks sharing a GPU" 2 --size 24x20x4 --steps 5
    CUDA_VISIBLE_DEVICES=0 ipc_run "ranks sharing a GPU" 4 --size 40x36x6 --steps 7 --fuse 2 --stencil hdiff
    if [ "$gpus" -ge 2 ]; then
        ipc_run "GPUs of their own" 2 --size 24x20x4 --steps 5 --stencil fastwaves
        ipc_run "GPUs of their own" 4 --size 40x36x6 --steps 6 --fuse 3 --stencil laplap
    fi
fi
# PILLAR_DIST_INTERIOR_ALONE=1 (the interior after the packing, the unpacking after it): the
# same bits; another value refused with a message naming it
if [ "$backend" = gpu ]; then
    PILLAR_DIST_INTERIOR_ALONE=1 run 2 --size 24x20x4 --steps 5 --stencil hdiff
    if ! PILLAR_DIST_INTERIOR_ALONE=yes mpi 2 --size 24x20x4 --steps 2 >"$tmp/out" 2>&1 &&
        grep -q "PILLAR_DIST_INTERIOR_ALONE=yes: expected 0 or 1" "$tmp/out"; then
        echo "ok   PILLAR_DIST_INTERIOR_ALONE=yes refused"
    else echo "FAIL PILLAR_DIST_INTERIOR_ALONE=yes:"; cat "$tmp/out"; fail=1; fi
fi
# the model fed by the pieces measured on this GPU (no MPI: 2 parts one after the other)
if [ "$backend" = gpu ]; then
    if "$pillar" run --plan-only --backend gpu --size 130x98x8 --steps 4 >"$tmp/out" 2>&1 &&
        grep -q "^  measured  on this GPU" "$tmp/out" && grep -qE "pack [0-9.]+ ms \([0-9.]+ GB/s" "$tmp/out" &&
        grep -q "measured above" "$tmp/out" && grep -qE "^ +1024 " "$tmp/out"; then
        echo "ok   --plan-only --backend gpu"
    else echo "FAIL --plan-only --backend gpu:"; cat "$tmp/out"; fail=1; fi
fi
exit $fail
