#!/bin/bash
# same-kernels.sh — the same kernels in every path (issue 21 item 4), in one device call of a few
# minutes: for laplap and hdiff in double and each of the strategies idxvar, zloop-sliced and
# twopass, at its best in-core configuration with tables in global memory (from a first `pillar
# bench` pass of that strategy, zcurve-w, non-chasing compressed), one row of per-step times:
#   in-core   one application at NXxNYxNZ (`pillar run`, median of 20)
#   iterated  an in-core run of 20 steps (`--steps 20`): the kernels' time per step
#   sphere    one application on a cubed sphere (`pillar mesh generate --kind cubed-sphere --n 384
#             --levels 64`, z-curve order, median of 20)
#   ooc F=1   out of core (`--out-of-core on`, a budget that cuts the grid into >= 4 chunks), one
#   ooc F=4   step per transfer and 4: the kernels' time per step (the device's time with steps
#             to run, halo work included)
# each with its verdict against the CPU (P = PASS, F = FAIL; ref: the CPU backend's in-core
# iterated run is the reference itself); a path that refuses a strategy says
# "refused" (the engine's message is in the logs).
#   tools/same-kernels.sh                 in the repository root of a machine with an NVIDIA GPU
#   SAME_KERNELS_BACKEND=cpu              the same on the CPU backend with tiny sizes (CI-sized:
#                                         64x64x8, a sphere of n = 8, 4 steps; fixed shapes, no
#                                         bench pass, no build: PILLAR or build-cpu/pillar)
#   SAME_KERNELS_BUILD=0 PILLAR=path      no build: time that binary
# Uses build-gpu/ (like tools/incore-sweep.sh) and sources .devdeps/env.sh when present. Writes
# $OUT (or ./same-kernels-out): summary.txt (the table) and same-kernels.tar.gz (every log).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-same-kernels-out}
mkdir -p "$out"
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
backend=${SAME_KERNELS_BACKEND:-gpu}
summary=$out/summary.txt work=$(mktemp -d /tmp/same-kernels.XXXXXX)
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
# the logs into the tarball, the time into the summary, and the exit status
finish() { tar -C "$work" -czf "$out/same-kernels.tar.gz" . 2>/dev/null; say "same-kernels: ${SECONDS}s in all"; exit "${1:-0}"; }
if [ "$backend" = cpu ]; then
    size=64x64x8 sphere_n=8 sphere_l=4 steps=4 ooc_steps=4 mem=300K runs=3
    P=${PILLAR:-./build-cpu/pillar}
else
    size=512x512x64 sphere_n=384 sphere_l=64 steps=20 ooc_steps=12 mem=200M runs=20
    P=${PILLAR:-./build-gpu/pillar}
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$work/device.txt" 2>&1
    say "device: $(head -n 1 "$work/device.txt"); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    if [ "${SAME_KERNELS_BUILD:-1}" != 0 ]; then
        cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 &&
            cmake --build build-gpu -j "$(nproc)" --target pillar >"$work/build.log" 2>&1 ||
            { say "build failed:"; grep -E "error" "$work/build.log" | head -n 20 | tee -a "$summary"; finish 1; }
        say "built in ${SECONDS}s"
    fi
fi
[ -x "$P" ] || { say "no pillar binary at $P"; finish 1; }
grid="--layout zcurve-w --storage nonchasing --compress"

# 1. each strategy's best in-core configuration with tables in global memory (the iterated and
# out-of-core paths read the tables from there only): a bench pass on the GPU; fixed shapes on the
# CPU, where the shape does not change what is computed
config() { # config STENCIL ACCESS: prints the --threads/--zslice flags
    if [ "$backend" = cpu ]; then
        case $2 in
        idxvar) echo "--threads 128x1x1" ;;
        zloop-sliced) echo "--threads 128x1x1 --zslice 4" ;;
        twopass) echo "--threads 64x1x2 --zslice 2" ;;
        esac
        return
    fi
    local d=$work/bench-$1-$2
    timeout 120 "$P" bench --stencil "$1" --precision double --access "$2" --layout zcurve-w \
        --storage nonchasing --compress yes --runs 10 --out "$d" >"$d.log" 2>&1
    python3 - "$d" <<'EOF'
import csv, glob, sys
rows = []
for f in glob.glob(sys.argv[1] + "/bench-*.csv"):
    rows += [r for r in csv.DictReader(open(f)) if r["grid"] == "unstructured" and r["tables"] == "global"]
if rows:
    r = min(rows, key=lambda r: float(r["median_us"]))
    print("--threads %sx%sx%s%s" % (r["bx"], r["by"], r["bz"],
          " --zslice " + r["zslice"] if int(r["zslice"]) > 0 else ""))
EOF
}

# 2. one `pillar run`: prints "TIME VERDICT" (ms per step; P, F, rcN without a verdict, or
#    "refused")
#    KIND: single (median of the runs), iter (the kernels' time per step on the GPU; the run's
#    time per step on the CPU), ooc (the same, with the plan's chunk count appended)
runone() { # runone KIND LABEL ARGS...: its log is LABEL.log
    local kind=$1 log=$work/$2.log; shift 2
    echo "pillar run $*" >"$log"
    timeout 120 "$P" run --backend "$backend" "$@" >>"$log" 2>&1
    local rc=$? t v c=""
    if grep -q "does not go with\|has no such kernel\|no kernel for" "$log"; then
        echo "refused -"
        return
    fi
    case $kind in
    single) t=$(grep -m 1 -E '^  time +median' "$log" | awk '{print $3}') ;;
    *) t=$(grep -m 1 -E '^  kernels ' "$log" | awk '{print $2}')
       [ -n "$t" ] || t=$(grep -m 1 -E '^  time ' "$log" | awk '{print $2}') ;;
    esac
    [ "$kind" = ooc ] && c=" ($(grep -m 1 -E '^  plan ' "$log" | awk '{print $2}') chunks)"
    if grep -q -E '^  verify +PASS' "$log"; then v=P
    elif grep -q -E '^  verify +this is the CPU in-core reference' "$log"; then v=ref # CPU, in core
    elif grep -q -E '^  verify' "$log"; then v=F
    else v="rc$rc"; fi
    echo "${t:-?}$c $v"
}

"$P" mesh generate "$work/sphere.h5" --kind cubed-sphere --n "$sphere_n" --levels "$sphere_l" >"$work/sphere.log" 2>&1 ||
    say "mesh generate failed (see sphere.log)"
say ""
say "per-step times in ms (P: verified against the CPU), $size double, $grid; sphere 6x${sphere_n}^2x$sphere_l z-curve"
printf '%-7s %-13s %-32s %-10s %-10s %-10s %-18s %-18s\n' stencil access config in-core "iter($steps)" sphere \
    "ooc F=1" "ooc F=4" | tee -a "$summary"
fails=0
for st in laplap hdiff; do
    for acc in idxvar zloop-sliced twopass; do
        flags=$(config $st $acc)
        if [ -z "$flags" ]; then
            say "$st $acc: no configuration from the bench (see bench-$st-$acc.log)"
            continue
        fi
        # shellcheck disable=SC2086
        {
            a=$(runone single $st-$acc-incore --size $size --stencil $st $grid --access $acc $flags --runs $runs)
            b=$(runone iter $st-$acc-iter --size $size --stencil $st $grid --access $acc $flags --steps $steps)
            c=$(runone single $st-$acc-sphere --mesh "$work/sphere.h5" --stencil $st --layout zcurve --storage nonchasing \
                --compress --access $acc $flags --runs $runs)
            d=$(runone ooc $st-$acc-ooc1 --size $size --stencil $st $grid --access $acc $flags --steps $ooc_steps \
                --out-of-core on --device-mem $mem --fuse 1)
            e=$(runone ooc $st-$acc-ooc4 --size $size --stencil $st $grid --access $acc $flags --steps $ooc_steps \
                --out-of-core on --device-mem $mem --fuse 4)
        }
        printf '%-7s %-13s %-32s %-10s %-10s %-10s %-18s %-18s\n' $st $acc "$flags" "$a" "$b" "$c" "$d" "$e" |
            tee -a "$summary"
        case "$a $b $c $d $e" in *" F"* | *rc*) fails=$((fails + 1)) ;; esac
    done
done
rm -f "$work/sphere.h5"
say ""
say "in-core: one application, median; iter: kernels per step of $steps in-core steps (host loop, fold fused);"
say "ooc: kernels per step while some chunk's steps ran ($ooc_steps steps, --device-mem $mem; halo work included)"
[ "$fails" = 0 ] || { say "$fails row(s) with a failed or unverified run"; finish 1; }
finish 0
