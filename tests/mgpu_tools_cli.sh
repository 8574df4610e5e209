#!/bin/sh
# tools/multi-gpu-summary.py and tools/gpu-clocks.py on made-up run outputs (the lines pillar run
# prints, written here with figures chosen so the expected ratios are known): each rank's interior
# against its own card's rate over the steps, the least named with its rank (rank 0 on GPU 0:
# 9.0 / 10.0 = 90%, rank 1 on GPU 1: 8.0 / 12.5 = 64%); the quarters of the passes against the
# one-rank run's (10^6 cells a rank: 0.9 / 1.0 = 90.0%, 1.1 / 1.2 = 91.7%); the clocks over the
# loaded samples only (idle 120 W at 1980 MHz left out; under load 1600 MHz, power-capped).
# usage: mgpu_tools_cli.sh SOURCE_DIR   (exit 77 without python3)
SRC=$1
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
pillar=unused
. "$(dirname "$0")/cli_lib.sh"
mkdir -p "$tmp/nccl" "$tmp/singles"
run() { # run FILE RANKS CELLS STEP_MS Q1 Q4 [RANKS_LINE]
    {
        echo "laplap double, 100 steps on $2 ranks on mesh m.h5 (file order): $3 cells (0 halo) x 10 levels"
        [ "$2" -gt 1 ] && echo "  rank 0    rank 0 of $2: 1000000 own cells (1000000 interior, computed while messages fly), ring of 10 cells"
        echo "  halo      0.100 MB per exchange over all ranks, at most 0.050 MB from one rank; through nccl (NCCL 2), GPU to GPU"
        echo "  time      $4 ms per step, total 0.1 s (slowest rank)"
        echo "  pieces    per exchange, slowest rank (device time; waiting: the host): pack 0.010 ms, step 1's interior 1.000 ms (while messages fly), waiting 0.100 ms, unpack 0.010 ms, the rest 0.010 ms"
        echo "  interior  alone 10.0 G points/s (step 1's interior on the idle device); 9.0 while the messages flew (the median pass)"
        [ -n "${7:-}" ] && echo "  ranks     step 1's interior while the messages flew (the median pass) and alone after the run, G points/s: $7"
        echo "  passes    step 1's interior a pass 1.000 ms (the median, slowest rank); reading the input fields 1.0, the output fields 1.0; the first quarter of the passes $5, the last $6"
        echo "  devices   rank 0: GPU 0 (0000:00:06.0), rank 1: GPU 1 (0000:00:07.0)"
        echo "  model     6.000 ms per step on paper (the H100's rates, NVLink), 1.100 ms with this run's rates (interior 9.0 G points/s, GPU to GPU 3.9 GB/s)"
        echo "  state     checksum 0123456789abcdef (iter_state_hash: equal on equal states)"
    } >"$1"
}
run "$tmp/nccl/laplap-weak-1.txt" 1 1000000 1.000 0.9 1.1
run "$tmp/nccl/laplap-weak-2.txt" 2 2000000 1.100 1.0 1.2 "rank 0 9.0 (alone 10.0), rank 1 8.0 (alone 10.0)"
for g in 0 1; do
    ms=$([ $g = 0 ] && echo 1.000 || echo 0.800)
    printf 'laplap double, 100 steps on mesh m.h5 (file order): 1000000 cells (0 halo) x 10 levels\n  kernels   %s ms per step (the steps alone, copies excluded)\n' \
        "$ms" >"$tmp/singles/steps-laplap-gpu$g.txt"
done
cp "$tmp/singles/steps-laplap-gpu0.txt" "$tmp/singles/steps-laplap.txt"
python3 "$SRC/tools/multi-gpu-summary.py" "$tmp/nccl" 10 10 100 "1 2" "$tmp/singles" >"$tmp/sum.md" 2>&1
check_last "multi-gpu-summary.py exits 0"
grep -E '^\| 2 \| 1000000 \|' "$tmp/sum.md" | head -n 1 | grep -q ' 64\.0% (rank 1) '
check_last "the least of each rank against its own card: 64.0% (rank 1)"
grep -E '^\| 2 \| 1000000 \|' "$tmp/sum.md" | head -n 1 | grep -q '(90\.0%, 91\.7%)'
check_last "the first and last quarters against the one rank's: 90.0%, 91.7%"
grep -E '^\| 2 \| 1000000 \|' "$tmp/sum.md" | head -n 1 | grep -q ' 90% | 100\.0% (90'
check_last "against GPU 0's rate over the steps (10.0 G points/s): 90%"
grep -E '^\| 1 \| 1000000 \|' "$tmp/sum.md" | head -n 1 | grep -q ' - | - | - |'
check_last "one rank: no own-card figure, no exchange"
# clocks: GPU 0 idle at 120 W and 1980 MHz, then loaded at 300-320 W, 1600 MHz, power-capped
t0=1795888000
for i in 0 1 2 3 4 5 6 7 8 9; do
    s=$(date -u -d "@$((t0 + i))" '+%Y/%m/%d %H:%M:%S.000')
    if [ $i -lt 5 ]; then echo "$s, 0, 1980 MHz, 3201 MHz, 120.00 W, 36, 0x0000000000000000"
    else echo "$s, 0, 1600 MHz, 3201 MHz, 30$i.00 W, 45, 0x0000000000000004"; fi
done >"$tmp/clocks.csv"
printf 'begin run %s\nend run %s\n' "$((t0))" "$((t0 + 10))" >"$tmp/phases.txt"
TZ=UTC python3 "$SRC/tools/gpu-clocks.py" "$tmp/clocks.csv" "$tmp/phases.txt" >"$tmp/clocks.md"
check_last "gpu-clocks.py exits 0"
grep -q '^| run | 10.0 | 10 | 5 | 1600 | 1600 | 100% | 309 | 45 | 0x4 |' "$tmp/clocks.md"
check_last "the loaded samples only: 5 of 10, 1600 MHz, all power-capped"
[ $fail = 0 ] || cat "$tmp/sum.md" "$tmp/clocks.md"
exit $fail
