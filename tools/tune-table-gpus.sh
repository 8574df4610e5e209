#!/bin/bash
# tune-table-gpus.sh — issue 32's table (tools/tune-table.sh) spread over the GPUs of one host:
# the rows dealt out to the GPUs (the longest first, each to the GPU with the least work so
# far), one tune-table.sh a GPU in parallel (CUDA_VISIBLE_DEVICES), then one table joined from
# their CSVs (tools/tune-table-join.py). Each GPU times its own rows alone: the rows are
# independent, and a row's untuned, tuned and bench runs share its GPU.
#
#   tools/tune-table-gpus.sh BUILD OUT    BUILD: a CUDA build holding pillar; OUT: a folder;
#                                         writes OUT/gpuK/ (each GPU's tune-table.sh output),
#                                         OUT/tune-table.csv and OUT/tune-table.md
#
# Settings: those of tune-table.sh (TUNE_TABLE_ROWS, TUNE_TABLE_PARTS, ...), and TUNE_TABLE_GPUS
# the number of GPUs to use (default: all that nvidia-smi lists).
set -uo pipefail
build=${1:?usage: tune-table-gpus.sh BUILD OUT}
out=${2:?usage: tune-table-gpus.sh BUILD OUT}
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$out" || exit 1
gpus=${TUNE_TABLE_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[ "$gpus" -ge 1 ] 2>/dev/null || gpus=1
rows=${TUNE_TABLE_ROWS:-lattice-laplap lattice-hdiff lattice-fastwaves sphere-laplap sphere-hdiff
hex-graphlap hex-fluxdiff tri-graphlap tri-fluxdiff mpas-graphlap}
# a row's weight: about its minutes on the H100 (a million cells and bench's matrix weigh most)
weight() {
    case $1 in
    hex-* | tri-*) echo 5 ;;
    sphere-*) echo 4 ;;
    lattice-*) echo 2 ;;
    *) echo 1 ;;
    esac
}
declare -a load share
for ((k = 0; k < gpus; k++)); do load[k]=0; share[k]=""; done
for row in $(for r in $rows; do echo "$(weight "$r") $r"; done | sort -rn | awk '{print $2}'); do
    best=0
    for ((k = 1; k < gpus; k++)); do [ "${load[k]}" -lt "${load[best]}" ] && best=$k; done
    load[best]=$((load[best] + $(weight "$row")))
    share[best]="${share[best]} $row"
done
pids=()
for ((k = 0; k < gpus; k++)); do
    [ -n "${share[k]}" ] || continue
    echo "GPU $k:${share[k]}"
    CUDA_VISIBLE_DEVICES=$k TUNE_TABLE_ROWS="${share[k]# }" \
        bash tools/tune-table.sh "$build" "$out/gpu$k" >"$out/gpu$k.log" 2>&1 &
    pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
csvs=$(ls "$out"/gpu*/tune-table.csv 2>/dev/null)
[ -n "$csvs" ] || { echo "no table made"; exit 1; }
# one CSV, the rows in the table's order
python3 - "$out/tune-table.csv" $csvs <<'PY'
import csv, sys
order = ["lattice-laplap", "lattice-hdiff", "lattice-fastwaves", "sphere-laplap", "sphere-hdiff",
         "hex-graphlap", "hex-fluxdiff", "tri-graphlap", "tri-fluxdiff", "mpas-graphlap"]
rows, head = [], None
for path in sys.argv[2:]:
    with open(path, newline="") as f:
        r = csv.reader(f)
        head = next(r)
        rows += list(r)
rows.sort(key=lambda r: order.index(r[0]) if r[0] in order else len(order))
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(head)
    w.writerows(rows)
PY
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
python3 tools/tune-table-join.py --device "${device:-no GPU} (${gpus} GPUs of one host, one row a GPU at a time)" \
    --runs "${TUNE_TABLE_RUNS:-20}" --bench-runs "${TUNE_TABLE_BENCH_RUNS:-10}" \
    --budget "${TUNE_TABLE_BUDGET:-45}" "$out/tune-table.csv" >"$out/tune-table.md"
cat "$out/tune-table.md"
exit $rc
