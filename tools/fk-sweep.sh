#!/bin/bash
# fk-sweep.sh — time per step of an iterated run against F (steps per transfer) and K (steps per
# kernel launch), out of core under a device budget and in core, for the figure of tools/plot.
#   tools/fk-sweep.sh OUT.csv [STENCIL [SIZE [BUDGET]]]      (laplap 2048x2048x64 2G)
#   FK_F="1 2 4 8 16" FK_K="1 2 4" FK_THREADS=256: the values swept, the cells (threads) of a
#   K-step kernel's block; FK_STEPS: the steps of every run (twice the largest F: the time per
#   step is over the passes after the first, which fills the pipeline).
# Needs a GPU and ./build-gpu/pillar (or $PILLAR). Every run is verified bit for bit against the
# CPU; a run that fails verification stops the sweep. Rows of OUT.csv:
#   stencil,size,mode,budget,F,K,ms_per_step,kernel_ms_per_step,link_use_percent,chunks
# mode: ooc (streamed under BUDGET), incore (one chunk, all steps in one transfer) or single (one
# application of the stencil alone, the in-core single-step kernel: ms_per_step is its median).
set -euo pipefail
csv=${1:?usage: tools/fk-sweep.sh OUT.csv [STENCIL [SIZE [BUDGET]]]}
st=${2:-laplap}
size=${3:-2048x2048x64}
budget=${4:-2G}
P=${PILLAR:-./build-gpu/pillar}
fs=${FK_F:-1 2 4 8 16}
ks=${FK_K:-1 2 4}
threads=${FK_THREADS:-256}
steps=${FK_STEPS:-$((2 * $(printf '%s\n' $fs | sort -n | tail -n 1)))}
[ -x "$P" ] || { echo "fk-sweep: no pillar binary at $P (set PILLAR)" >&2; exit 2; }
log=${csv%.csv}.log
: >"$log"
echo "stencil,size,mode,budget,F,K,ms_per_step,kernel_ms_per_step,link_use_percent,chunks" >"$csv"

field() { # field LOG PATTERN AWK-PROGRAM: a number from the last matching line (empty if none)
    { grep -E "$2" "$1" || true; } | tail -n 1 | awk "$3"
}

run() { # run MODE F K FLAGS...
    local mode=$1 F=$2 K=$3; shift 3
    local one; one=$(mktemp)
    printf '\r%-70s' "fk-sweep: $st $size $mode F=$F K=$K" >&2
    local thr=(); [ "$K" -gt 1 ] && thr=(--threads "${threads}x1x1")
    "$P" run --stencil "$st" --size "$size" --backend gpu "${thr[@]}" "$@" >"$one" 2>&1 || { cat "$one" >&2; exit 1; }
    cat "$one" >>"$log"
    if [ "$mode" = single ]; then
        local ms; ms=$(field "$one" "^  time" '{print $3}')
        echo "$st,$size,$mode,,1,1,$ms,$ms,," >>"$csv"
    else
        grep -q "verify    PASS" "$one" || { grep verify "$one" >&2; exit 1; }
        local ms km use chunks
        ms=$(field "$one" "^  time" '{print $2}')
        km=$(field "$one" "^  kernels" '{print $2}') # several chunks: while some ran
        use=$(field "$one" "^  link use" '{sub("%","",$(NF-4)); print $(NF-4)}')
        chunks=$(field "$one" "^  plan" '{print $2}')
        echo "$st,$size,$mode,$budget,$F,$K,$ms,$km,$use,${chunks%%chunk*}" >>"$csv"
    fi
    rm -f "$one"
}

run single 1 1 --runs 20
for K in $ks; do
    run incore $steps $K --steps $steps --fuse $steps --kernel-steps $K --out-of-core off
done
for F in $fs; do
    for K in $ks; do
        [ "$K" -le "$F" ] || continue
        run ooc "$F" "$K" --steps $steps --fuse "$F" --kernel-steps "$K" --out-of-core on --device-mem "$budget"
    done
done
printf '\r%-70s\r' "" >&2
column -s, -t <"$csv" 2>/dev/null || tr , "\t" <"$csv"
