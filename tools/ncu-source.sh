#!/bin/bash
# ncu-source.sh — where a kernel's L1 work comes from (issue 36, "profile first"): Nsight Compute
# with the full set and source counters on one kernel of a `pillar run`, the report kept, then
# per CUDA source line the L1 wavefronts, sectors and stall samples, ranked (tools/ncu-source-top.py).
#
#   tools/ncu-source.sh BUILD OUT NAME KERNEL_REGEX PILLAR_RUN_ARGS...
#       BUILD: a CUDA build (kernels carry -lineinfo); OUT: a folder ($OUT of the device tool);
#       NAME: the files' stem; KERNEL_REGEX: ncu's -k regex (e.g. "^k_" the W/E/S/N one-step
#       kernels, "^kg_" the graph ones); the rest: `pillar run` arguments choosing the
#       configuration (one application, --runs 2: ncu profiles the second launch).
#   Writes OUT/NAME.ncu-rep (open it in Nsight Compute), OUT/NAME-details.txt (every section),
#   OUT/NAME-source.csv (per source line) and OUT/NAME-top.md (the lines ranked).
#
#   tools/ncu-source.sh BUILD OUT                 with no more arguments: issue 36's pair, the
#       fastest unstructured laplap and hdiff of 512x512x64 double known (NCU_LAPLAP and
#       NCU_HDIFF, each "pillar run arguments", override them) and their regular twins.
#
#   tools/ncu-source.sh --import REPORTS OUT      the same files from reports taken before
#       (REPORTS: a folder of NAME.ncu-rep, or a .tgz of them, e.g.
#       bench/results/2026-11-27-h100-ncu-lattice/ncu-reports.tgz); needs ncu, no GPU. OUT is
#       taken from the repository's root, as in the other forms.
set -uo pipefail
if [ "${1:-}" = --import ]; then
    import=$(realpath "${2:?usage: ncu-source.sh --import REPORTS OUT}") || exit 1
    out=${3:?usage: ncu-source.sh --import REPORTS OUT}
    set -- . "$out"
fi
build=${1:?usage: ncu-source.sh BUILD OUT [NAME KERNEL_REGEX ARGS...]}
out=${2:?usage: ncu-source.sh BUILD OUT [NAME KERNEL_REGEX ARGS...]}
shift 2
cd "$(dirname "$0")/.." || exit 1
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
command -v ncu >/dev/null || { echo "ncu-source.sh: no ncu (Nsight Compute) on this machine"; exit 2; }
pillar=$(cd "$build" && pwd)/pillar
mkdir -p "$out" || exit 1

# derive NAME REPORT: every section, the per-line CSV and the ranked lines of a report
derive() {
    local name=$1 rep=$2
    ncu --import "$rep" --page details >"$out/$name-details.txt" 2>&1
    ncu --import "$rep" --page source --csv --print-source sass \
        >"$out/$name-source.csv" 2>"$out/$name-source.err"
    grep -E "Duration|DRAM Throughput|L1/TEX Cache Throughput|L1/TEX Hit Rate|Registers Per|Achieved Occupancy|Warp Cycles Per Issued" \
        "$out/$name-details.txt" | head -n 8
    python3 tools/ncu-source-top.py "$out/$name-source.csv" "$name" >"$out/$name-top.md" &&
        head -n 24 "$out/$name-top.md"
}

profile() { # profile NAME REGEX ARGS...
    local name=$1 regex=$2
    shift 2
    echo "== $name: pillar run $*"
    ncu --set full --import-source yes --section SourceCounters -k "regex:$regex" \
        --launch-skip 1 --launch-count 1 -f -o "$out/$name" \
        "$pillar" run "$@" --backend gpu --runs 2 >"$out/$name-run.txt" 2>&1 ||
        { echo "ncu failed:"; tail -n 12 "$out/$name-run.txt"; return 1; }
    derive "$name" "$out/$name.ncu-rep"
}

if [ -n "${import:-}" ]; then
    dir=$import
    if [ -f "$import" ]; then # a .tgz of reports
        dir=$(mktemp -d) || exit 1
        tar xzf "$import" -C "$dir" || exit 1
    fi
    rc=0 n=0
    while IFS= read -r rep; do
        name=$(basename "$rep" .ncu-rep)
        echo "== $name: $rep"
        derive "$name" "$rep" || rc=1
        n=$((n + 1))
    done < <(find "$dir" -name '*.ncu-rep' | sort)
    [ "$n" -gt 0 ] || { echo "ncu-source.sh: no .ncu-rep under $import"; exit 1; }
    exit $rc
fi

if [ $# -ge 2 ]; then
    profile "$@"
    exit $?
fi
grid="--size 512x512x64 --precision double"
laplap=${NCU_LAPLAP:---stencil laplap --layout zcurve-w --storage chasing --compress --access zloop-sliced --threads 256x1x1 --zslice 16}
hdiff=${NCU_HDIFF:---stencil hdiff --layout rowmajor --storage nonchasing --compress --access idxvar --threads 128x1x1}
rc=0
# shellcheck disable=SC2086
profile laplap-uns "^k_" $grid $laplap || rc=1
# shellcheck disable=SC2086
profile laplap-reg "^k_" $grid --stencil laplap --grid regular --access idxvar --threads 32x4x1 || rc=1
# shellcheck disable=SC2086
profile hdiff-uns "^k_" $grid $hdiff || rc=1
# shellcheck disable=SC2086
profile hdiff-reg "^k_" $grid --stencil hdiff --grid regular --access idxvar --threads 32x4x1 || rc=1
exit $rc
