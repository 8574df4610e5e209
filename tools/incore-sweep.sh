#!/bin/bash
# incore-sweep.sh — in-core speed of the quad stencils on the GPU (issue 21), in one device call
# of about 8 minutes: builds pillar, benches every access strategy x block shape (x zslice x table
# variant) for laplap, hdiff, fastwaves at 512x512x64 double and laplap in float (z-curve-w,
# non-chasing compressed, and every regular twin; medians of 20 runs), prints one line per
# strategy with its best configuration, times twopass on other orders and on a cubed sphere, and
# profiles the best twopass and idxvar laplap kernels with ncu.
#   tools/incore-sweep.sh            in the repository root of a machine with an NVIDIA GPU
#   SWEEP_BUDGET=420                 seconds after which the optional parts are left out
#   SWEEP_BUILD=0 PILLAR=path        no build: time that binary
#   SWEEP_ORDERS=1                   also twopass on other orders and storages (512x512x64)
# Uses build-gpu/ (like tools/gpu-check.sh) and sources .devdeps/env.sh when present. What it
# writes goes to $OUT (or ./incore-sweep-out): summary.txt (the table), ncu.txt (the profiles)
# and sweep.tar.gz (the bench CSV/JSON and every log), three files.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-incore-sweep-out}
mkdir -p "$out"
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
budget=${SWEEP_BUDGET:-420}
work=$(mktemp -d /tmp/incore-sweep.XXXXXX)
build=build-gpu
P=${PILLAR:-./$build/pillar}
summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
finish() {
    tar -C "$work" -czf "$out/sweep.tar.gz" . 2>/dev/null
    say "sweep: ${SECONDS}s in all"
    exit "${1:-0}"
}
late() { [ "$SECONDS" -gt "$budget" ] && { say "(left out after ${SECONDS}s: $*)"; return 0; }; return 1; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader >"$work/device.txt" 2>&1
say "device: $(head -n 1 "$work/device.txt"); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ "${SWEEP_BUILD:-1}" != 0 ]; then
    cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 &&
        cmake --build $build -j "$(nproc)" --target pillar >"$work/build.log" 2>&1 ||
        { say "build failed:"; grep -E "error" "$work/build.log" | head -n 20 | tee -a "$summary"; finish 1; }
    say "built in ${SECONDS}s"
fi

# 1. the bench matrix, one stencil, precision and strategy per call (every shape, zslice, table
# variant, and the strategy's regular twin), so that a slow call loses only its own rows
bench() { # bench STENCIL PRECISION ACCESS [LAYOUT]
    local lay=${4:-zcurve-w} tag=$1-$2-$3${4:+-$4}
    timeout 100 "$P" bench --stencil "$1" --precision "$2" --access "$3" --layout "$lay" \
        --storage nonchasing --compress yes --runs 20 --out "$work/bench-$tag" >"$work/bench-$tag.log" 2>&1 ||
        say "bench $tag: rc $? (see bench-$tag.log)"
}
for acc in twopass idxvar zloop-sliced zloop; do bench laplap double $acc; done
for acc in twopass idxvar zloop-sliced; do bench hdiff double $acc; done
late "laplap float" || for acc in twopass idxvar zloop-sliced; do bench laplap float $acc; done
late "fastwaves" || for acc in idxvar zloop-sliced zloop-plain pairs; do bench fastwaves double $acc; done
late "twopass on z-curve blocks" || bench laplap double twopass zcurve
say "benches done at ${SECONDS}s"

# 2. one line per strategy and grid: its best configuration, and twopass against the others
python3 - "$work" <<'EOF' | tee -a "$summary"
import csv, glob, sys
rows = []
for f in glob.glob(sys.argv[1] + "/bench-*/bench-*.csv"):
    rows += list(csv.DictReader(open(f)))
if not rows:
    print("no bench rows (see the bench logs in sweep.tar.gz)")
best = {}
for r in rows:
    k = (r["stencil"], r["precision"], r["grid"], r["access"] + ("" if r["layout"] in ("", "zcurve-w") else " " + r["layout"]))
    if k not in best or float(r["median_us"]) < float(best[k]["median_us"]):
        best[k] = r
print("\n%-9s %-6s %-5s %-15s %9s  %-9s %3s %-8s %6s" % ("stencil", "type", "grid", "access",
      "median µs", "threads", "zs", "tables", "GB/s"))
for k in sorted(best):
    r = best[k]
    print("%-9s %-6s %-5s %-15s %9.1f  %-9s %3s %-8s %6.0f" % (k[0], k[1], k[2][:5], k[3],
          float(r["median_us"]), "%sx%sx%s" % (r["bx"], r["by"], r["bz"]), r["zslice"],
          r["tables"], float(r["gbs"])))
print("\nbest unstructured / best regular (any strategy), and twopass / its own twin:")
for st, ty in sorted({(k[0], k[1]) for k in best}):
    u = [float(r["median_us"]) for k, r in best.items() if k[:3] == (st, ty, "unstructured")]
    g = [float(r["median_us"]) for k, r in best.items() if k[:3] == (st, ty, "regular")]
    if not u or not g:
        continue
    line = "  %-9s %-6s unstructured %.1f / regular %.1f = %.3f" % (st, ty, min(u), min(g), min(u) / min(g))
    tu, tg = best.get((st, ty, "unstructured", "twopass")), best.get((st, ty, "regular", "twopass"))
    if tu and tg:
        line += "; twopass %s / %s = %.3f" % (tu["median_us"], tg["median_us"],
                                                float(tu["median_us"]) / float(tg["median_us"]))
    print(line)
# the configurations the profiles below use (laplap double, unstructured)
with open(sys.argv[1] + "/ncu-configs.txt", "w") as f:
    for a in ("twopass", "idxvar"):
        r = best.get(("laplap", "double", "unstructured", a))
        if r:
            flag = {"global": "", "constant": "--constant-tables", "rows": "--packed-rows"}[r["tables"]]
            zs = "--zslice %s" % r["zslice"] if int(r["zslice"]) > 0 else ""
            f.write("%s --threads %sx%sx%s %s %s\n" % (a, r["bx"], r["by"], r["bz"], zs, flag))
EOF
grep -h -i "ceiling" "$work"/bench-laplap-double-twopass.log 2>/dev/null | head -n 2 | tee -a "$summary"

# 3. twopass on other orders and storages, and on a cubed sphere (every run verified)
runline() { # runline LABEL FLAGS...: one `pillar run`, its time and verdict on one line
    local label=$1; shift
    late "$label" && return
    local r; r=$(timeout 40 "$P" run --runs 20 --backend gpu "$@" 2>&1)
    echo "$r" >>"$work/runs.log"
    local t v
    t=$(echo "$r" | grep -E '^  time' | sed -E 's/ +/ /g; s/ of 20 runs.*//')
    v=$(echo "$r" | grep -E '^  verify' | cut -c13-60)
    [ -n "$t" ] || t=$(echo "$r" | grep -m 1 -iE 'pillar|error|fail' | cut -c1-90)
    printf '  %-44s %s | %s\n' "$label" "$t" "$v" | tee -a "$summary"
}
if [ "${SWEEP_ORDERS:-0}" != 0 ] && ! late "twopass on other orders"; then
    say ""
    say "twopass, 512x512x64 double (threads 128x1x4, zslice 8):"
    for st in laplap hdiff; do
        for cfg in "--layout zcurve --storage nonchasing --compress" "--layout zcurve --storage chasing --compress" \
            "--layout rowmajor --storage nonchasing --compress" "--layout zcurve-w --storage chasing"; do
            runline "$st $cfg" --size 512x512x64 --stencil $st $cfg --access twopass --threads 128x1x4 --zslice 8
        done
    done
fi
if ! late "cubed sphere"; then
    "$P" mesh generate "$work/sphere.h5" --kind cubed-sphere --n 384 --levels 64 >"$work/sphere.log" 2>&1
    say "cubed sphere 6x384x384x64 double, compressed non-chasing (idxvar 128x1x1 for comparison):"
    for st in laplap hdiff; do
        for lay in file zcurve metis; do
            runline "$st $lay twopass" --mesh "$work/sphere.h5" --stencil $st --layout $lay --storage nonchasing \
                --compress --access twopass --threads 128x1x4 --zslice 8
        done
        runline "$st zcurve idxvar" --mesh "$work/sphere.h5" --stencil $st --layout zcurve --storage nonchasing \
            --compress --access idxvar --threads 128x1x1
    done
    rm -f "$work/sphere.h5"
fi

# 4. profiles: the best twopass and idxvar laplap kernels (unstructured, double), one launch each
metrics=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
metrics+=,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
if command -v ncu >/dev/null && [ -s "$work/ncu-configs.txt" ]; then
    : >"$out/ncu.txt"
    while read -r acc flags; do
        late "ncu $acc" && break
        echo "==== laplap double zcurve-w nonchasing compressed --access $acc $flags" >>"$out/ncu.txt"
        # shellcheck disable=SC2086
        timeout 120 ncu --kernel-name regex:k_LAPLAP_double --launch-skip 2 --launch-count 1 \
            --section WarpStateStats --metrics "$metrics" "$P" run --size 512x512x64 --stencil laplap \
            --layout zcurve-w --storage nonchasing --compress --access "$acc" $flags --runs 1 --backend gpu \
            2>&1 | grep -vE '^==PROF==|^  (backend|moved)' >>"$out/ncu.txt"
    done <"$work/ncu-configs.txt"
    say "ncu: $(grep -c '^====' "$out/ncu.txt") profiles in ncu.txt"
else
    say "ncu: not run (no ncu, or no configuration from the bench)"
fi
finish 0
