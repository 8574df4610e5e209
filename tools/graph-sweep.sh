#!/bin/bash
# graph-sweep.sh — graphlap on general meshes at full size on the GPU (issue 18, item 5), in one
# device call of at most about 8 minutes: builds pillar, generates 1M hexagons and 1M triangles
# x 64 levels, times `pillar run` (double, median of 20 kernel runs, each verified bit for bit
# against the CPU) for the candidate configurations: the old best (naive, file order, chasing
# compressed), staged with its rows of slots in shared memory, graph-twopass (file, z-curve and
# METIS order; blocks of 128 to 512; 32 and 64 levels per block) and the lattice twins (the old
# best zloop-sliced and idxvar, and graph-twopass's own twin), then profiles the best
# graph-twopass run and the best twin of each mesh with ncu (DRAM bytes read and written, SM and
# L1 throughput, cycles per issued instruction), and prints one compact table.
#   tools/graph-sweep.sh             in the repository root of a machine with an NVIDIA GPU
#   SWEEP_BUDGET=400                 seconds after which the optional parts are left out
#   SWEEP_BUILD=0 PILLAR=path        no build: time that binary
#   SWEEP_QUICK=1                    only graph-twopass's two best twins and two best z-curve runs
#                                    (as measured on 2026-11-23)
# Uses build-gpu/ (like tools/gpu-check.sh) and sources .devdeps/env.sh when present. Writes to
# $OUT (or ./graph-sweep-out): summary.txt (the table), runs.log (every run's output), ncu.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-graph-sweep-out}
mkdir -p "$out"
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
budget=${SWEEP_BUDGET:-400}
quick=${SWEEP_QUICK:-0}
work=$(mktemp -d /tmp/graph-sweep.XXXXXX)
build=build-gpu
P=${PILLAR:-./$build/pillar}
summary=$out/summary.txt
runs=$out/runs.log
times=$work/times.tsv
: >"$summary"
: >"$runs"
: >"$times"
say() { echo "$*" | tee -a "$summary"; }
late() { [ "$SECONDS" -gt "$budget" ] && { say "(left out after ${SECONDS}s: $*)"; return 0; }; return 1; }

say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ "${SWEEP_BUILD:-1}" != 0 ]; then
    cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 &&
        cmake --build $build -j "$(nproc)" --target pillar >"$work/build.log" 2>&1 ||
        { say "build failed:"; grep -E "error" "$work/build.log" | head -n 20 | tee -a "$summary"; exit 1; }
    say "built in ${SECONDS}s"
fi
"$P" mesh generate "$work/hex.nc" --kind hexagons --size 1024x1024 --levels 64 >/dev/null &&
    "$P" mesh generate "$work/tri.nc" --kind triangles --size 724x724 --levels 64 >/dev/null ||
    { say "mesh generation failed"; exit 1; }
say "meshes at ${SECONDS}s"

# run MESH TAG ARGS...: one verified pillar run; appends "mesh tag median_us verdict" to times
run() {
    local mesh=$1 tag=$2
    shift 2
    local log=$work/run.log
    timeout 60 "$P" run --mesh "$work/$mesh.nc" --stencil graphlap --precision double --backend gpu \
        --runs 20 "$@" >"$log" 2>&1
    local rc=$?
    { echo "== $mesh $tag: $* (rc $rc)"; cat "$log"; } >>"$runs"
    local ms verdict
    ms=$(sed -n 's/^ *time *median \([0-9.]*\) ms.*/\1/p' "$log" | head -n 1)
    verdict=$(grep -q "verify *PASS" "$log" && echo ok || echo FAIL)
    [ -n "$ms" ] || { ms=nan; verdict="rc$rc"; }
    printf '%s\t%s\t%s\t%s\t%s\n' "$mesh" "$tag" "$ms" "$verdict" "$*" >>"$times"
}

for m in hex tri; do
    # the twins: the old best and graph-twopass's own
    tzs="32x4x1:32 32x4x1:64 64x2x1:32 32x8x1:32"
    if [ "$quick" = 0 ]; then
        run $m "twin zloop-sliced 32x4x1 z8" --grid regular --access zloop-sliced --threads 32x4x1 --zslice 8
        run $m "twin zloop-sliced 64x2x1 z8" --grid regular --access zloop-sliced --threads 64x2x1 --zslice 8
        run $m "twin idxvar 32x4x1" --grid regular --access idxvar --threads 32x4x1
    else
        tzs="32x4x1:32 32x8x1:32"
    fi
    for tz in $tzs; do
        run $m "twin graph-twopass ${tz%:*} z${tz#*:}" --grid regular --access graph-twopass \
            --threads ${tz%:*} --zslice ${tz#*:}
    done
    otzs="zcurve:256:32 zcurve:256:64 zcurve:512:32 zcurve:512:64 zcurve:128:32 metis:256:32 metis:512:32 file:256:32"
    [ "$quick" = 0 ] || { otzs="zcurve:256:64 zcurve:512:64"; }
    # the old best and staged with its slot rows in shared memory
    [ "$quick" = 0 ] && run $m "naive file chasing-c 128" --layout file --storage chasing --compress --access naive --threads 128x1x1
    [ "$quick" = 0 ] && run $m "staged zcurve 256 z64" --layout zcurve --storage chasing --compress --access staged --threads 256x1x1 --zslice 64
    # graph-twopass: z-curve order x block sizes x levels per block; METIS (slower to order) and
    # file order (thin runs along the rows) at fewer points
    for otz in $otzs; do
        IFS=: read -r o t z <<<"$otz"
        late "graph-twopass $m $o $t z$z" ||
            run $m "graph-twopass $o $t z$z" --layout $o --storage chasing --compress \
                --access graph-twopass --threads ${t}x1x1 --zslice $z
    done
done
say "runs done at ${SECONDS}s"

# best graph-twopass and best twin per mesh, for ncu
best() { # best MESH PATTERN: the args of the fastest passing run whose tag matches
    awk -F'\t' -v m="$1" -v p="$2" '$1 == m && $2 ~ p && $4 == "ok" && $3 != "nan" { print $3 "\t" $5 }' "$times" |
        sort -g | head -n 1 | cut -f 2
}
ncu_metrics=dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warp_latency_per_inst_issued.ratio,gpu__time_duration.sum,launch__registers_per_thread
: >"$out/ncu.txt"
prof() { # prof MESH TAG ARGS...
    local mesh=$1 tag=$2
    shift 2
    echo "== $mesh $tag: $*" >>"$out/ncu.txt"
    timeout 120 ncu --metrics "$ncu_metrics" -k "regex:^kg_" --launch-skip 1 --launch-count 1 \
        "$P" run --mesh "$work/$mesh.nc" --stencil graphlap --precision double --backend gpu --runs 2 "$@" \
        >"$work/ncu.log" 2>&1
    grep -E "dram__|sm__|l1tex__|smsp__|gpu__|launch__" "$work/ncu.log" >>"$out/ncu.txt" ||
        tail -n 5 "$work/ncu.log" >>"$out/ncu.txt"
}
if command -v ncu >/dev/null; then
    for m in hex tri; do
        late "ncu $m" && break
        a=$(best $m '^graph-twopass')
        [ -n "$a" ] && eval "prof $m graph-twopass $a"
        a=$(best $m '^twin')
        [ -n "$a" ] && eval "prof $m twin $a"
    done
else
    say "ncu not found: no profiles"
fi

# the table: per mesh each run against the best twin, and DRAM bytes against the floor (each
# input value read once, each output written once: (cells + inner cells) x 64 x 8 bytes)
python3 - "$times" "$runs" "$out/ncu.txt" <<'EOF' | tee -a "$summary"
import re, sys
times = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
log = open(sys.argv[2]).read()
cells = {}
for path, c, inner, lev in re.findall(r"on mesh (\S+?): (\d+) cells \(\d+ halo, (\d+) inner\) x (\d+) levels", log):
    cells[path.split("/")[-1].split(".")[0]] = (int(c) + int(inner)) * int(lev) * 8
for m in ("hex", "tri"):
    rows = [r for r in times if r[0] == m]
    twins = [float(r[2]) for r in rows if r[1].startswith("twin") and r[3] == "ok" and r[2] != "nan"]
    tb = min(twins) if twins else float("nan")
    print("\n%s (floor %.0f MB):  %-34s %10s %7s  %s" % (m, cells.get(m, 0) / 1e6, "configuration", "median µs", "/twin", "verify"))
    for r in sorted(rows, key=lambda r: float(r[2]) if r[2] != "nan" else 1e30):
        us = float(r[2]) * 1000 if r[2] != "nan" else float("nan")
        print("    %-48s %10.1f %6.2fx  %s" % (r[1], us, us / (tb * 1000) if tb == tb else float("nan"), r[3]))
prof = open(sys.argv[3]).read().split("== ")[1:]
if prof:
    print("\nncu (one launch): %-40s %8s %8s %9s %6s %6s %7s %5s" % ("", "read MB", "write MB", "DRAM/flr", "SM %", "L1 %", "cyc/iss", "regs"))
for p in prof:
    head, _, body = p.partition("\n")
    def metric(name):
        m = re.search(name + r"\s+(?:([A-Za-z%/]+)\s+)?([\d.,]+)", body)
        if not m:
            return float("nan")
        v = float(m.group(2).replace(",", ""))
        unit = m.group(1) or ""
        return v * {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}.get(unit, 1)
    rd, wr = metric("dram__bytes_read.sum"), metric("dram__bytes_write.sum")
    mesh = head.split()[0]
    fl = cells.get(mesh, float("nan"))
    print("  %-56s %8.0f %8.0f %8.2fx %6.1f %6.1f %7.1f %5.0f" % (head.split(":")[0], rd / 1e6, wr / 1e6,
          (rd + wr) / fl if fl == fl else float("nan"),
          metric("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
          metric("l1tex__throughput.avg.pct_of_peak_sustained_elapsed"),
          metric("smsp__average_warp_latency_per_inst_issued.ratio"),
          metric("launch__registers_per_thread")))
EOF
say "sweep: ${SECONDS}s in all"
