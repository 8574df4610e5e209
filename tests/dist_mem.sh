#!/bin/sh
# dist_mem.sh — each MPI rank holds its part and its ring, and no more (issue 33, item 1):
#  1. small closed meshes (cubed sphere, periodic hexagons) and meshes with a boundary (bounded
#     hexagons and triangles, a rotated patch, a refined patch with /cell_sides and cells of
#     two sizes: grid halo cells, numbered first in the checksum)
#     with a stored partition of P parts, --verify off: the run reads only each rank's rows (its
#     plan line says so), and its checksum equals the plain one-process run's for laplap, hdiff,
#     lap, graphlap and fluxdiff (its coefficients from each rank's rows, the time step a minimum
#     over the ranks) on 2 and 3 ranks, F = 1..3;
#     without a stored partition of P parts the run says it takes the whole grid, same checksum;
#  2. (unless "small") the cubed sphere with n = 512 and 32 levels: the plain one-process run,
#     then 4 and 2 ranks reading their parts of the file partitioned into 4 (and 2) parts; every
#     rank's peak resident memory (the run's report, getrusage) at most 0.35 of the plain run's
#     on 4 ranks, and the checksums of 1, 2 and 4 ranks equal. Every number is printed.
# Built without MPI or without mpirun: skipped (77).
# usage: dist_mem.sh PILLAR [small]   (small: part 1 only, e.g. under the sanitizers, whose
#                                      shadow memory makes resident sizes meaningless)
set -u
pillar=$1
mode=${2:-full}
tmp=$(mktemp -d /tmp/pillar-distmem-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$pillar" --version | grep -q "MPI yes" || { echo "skip: pillar built without MPI"; exit 77; }
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3 to read the JSON reports"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_orte_tmpdir_base="$tmp"
mpi() { # mpi P ARGS...: pillar run on P ranks
    np=$1; shift
    mpirun --oversubscribe -np "$np" "$pillar" run --ranks "$np" --backend cpu "$@"
}
sum() { sed -n 's/^  state     checksum \([0-9a-f]*\) .*/\1/p' "$1"; }

# 1. small meshes: checksums equal the plain run's, part-only taken where it can be
"$pillar" mesh generate "$tmp/cs.h5" --kind cubed-sphere --n 12 --levels 5 >/dev/null &&
    "$pillar" mesh generate "$tmp/hx.h5" --kind hexagons --size 14x12 --periodic --levels 4 >/dev/null &&
    "$pillar" mesh generate "$tmp/hb.h5" --kind hexagons --size 15x11 --levels 4 >/dev/null &&
    "$pillar" mesh generate "$tmp/tb.h5" --kind triangles --size 12x9 --levels 3 >/dev/null &&
    "$pillar" mesh generate "$tmp/rb.h5" --kind rotated --size 16x13 --levels 3 >/dev/null &&
    "$pillar" mesh generate "$tmp/rf.h5" --kind refined --size 15x15 --levels 3 >/dev/null ||
    { echo "FAIL: mesh generate"; exit 1; }
for m in cs hx hb tb rb rf; do
    for k in 2 3; do
        cp "$tmp/$m.h5" "$tmp/$m$k.h5"
        "$pillar" mesh partition "$tmp/$m$k.h5" --parts "$k" >/dev/null || { echo "FAIL: partition"; exit 1; }
    done
done
for case in "cs laplap 2:1 3:2" "cs hdiff 3:3" "cs lap 2:2" "cs graphlap 3:2" "hx graphlap 2:1 3:3" \
    "hb graphlap 2:1 2:2 2:3 3:1 3:2 3:3" "tb graphlap 2:1 2:2 2:3 3:1 3:2 3:3" \
    "rb laplap 2:1 2:3 3:1 3:2" "rb lap 3:3" "rb hdiff 2:2" "rb graphlap 3:2" \
    "cs fluxdiff 2:1 3:3" "hx fluxdiff 3:2" "hb fluxdiff 2:1 2:3 3:2" "tb fluxdiff 2:2 3:1 3:3" \
    "rb fluxdiff 3:1" "rf fluxdiff 2:1 2:2 3:1 3:3" "rf graphlap 2:2 3:1"; do
    set -- $case
    m=$1 st=$2
    shift 2
    "$pillar" run --stencil "$st" --mesh "$tmp/$m.h5" --steps 5 --verify off --backend cpu >"$tmp/ref" 2>&1
    ref=$(sum "$tmp/ref")
    [ -n "$ref" ] || { echo "FAIL $st on $m: the plain run printed no checksum"; cat "$tmp/ref"; fail=1; continue; }
    for kf in "$@"; do
        k=${kf%:*} F=${kf#*:}
        mpi "$k" --stencil "$st" --mesh "$tmp/$m$k.h5" --steps 5 --fuse "$F" --verify off >"$tmp/out" 2>&1
        if [ "$(sum "$tmp/out")" = "$ref" ] && grep -q "reading only its block" "$tmp/out"; then
            echo "ok   $st on $m, $k ranks reading their parts, F = $F: checksum $ref"
        else
            echo "FAIL $st on $m, $k ranks reading their parts, F = $F (plain run: $ref)"; cat "$tmp/out"; fail=1
        fi
    done
done
# a partition of another number of parts, and none: the whole grid, said so, same checksum
"$pillar" run --mesh "$tmp/cs.h5" --steps 4 --verify off --backend cpu >"$tmp/ref" 2>&1
for f in cs3 cs; do
    mpi 2 --mesh "$tmp/$f.h5" --steps 4 --fuse 2 --verify off >"$tmp/out" 2>&1
    if [ "$(sum "$tmp/out")" = "$(sum "$tmp/ref")" ] && grep -q "note      every rank holds the whole grid: the file stores" "$tmp/out" &&
        ! grep -q "reading only its block" "$tmp/out"; then
        echo "ok   2 ranks on $f.h5: the whole grid, with a note; checksum $(sum "$tmp/ref")"
    else
        echo "FAIL 2 ranks on $f.h5: expected the whole-grid path with its note"; cat "$tmp/out"; fail=1
    fi
done
[ "$mode" = small ] && exit $fail

# 2. n = 512, 32 levels: peak resident memory per rank against the plain run's
big=$tmp/cs512.h5
"$pillar" mesh generate "$big" --kind cubed-sphere --n 512 --levels 32 >/dev/null || { echo "FAIL: generate"; exit 1; }
for k in 4 2; do
    cp "$big" "$tmp/cs512p$k.h5"
    "$pillar" mesh partition "$tmp/cs512p$k.h5" --parts "$k" >/dev/null || { echo "FAIL: partition"; exit 1; }
done
rm -f "$big"
# the plain run reads the same file (the partition is not used by a file-order run)
"$pillar" run --mesh "$tmp/cs512p4.h5" --steps 1 --verify off --backend cpu --json >"$tmp/j1" 2>"$tmp/e1" ||
    { echo "FAIL: plain run"; cat "$tmp/e1"; exit 1; }
mpi 4 --mesh "$tmp/cs512p4.h5" --steps 1 --verify off --json >"$tmp/j4" 2>"$tmp/e4" ||
    { echo "FAIL: 4 ranks"; cat "$tmp/e4"; exit 1; }
mpi 2 --mesh "$tmp/cs512p2.h5" --steps 1 --verify off --json >"$tmp/j2" 2>"$tmp/e2" ||
    { echo "FAIL: 2 ranks"; cat "$tmp/e2"; exit 1; }
python3 - "$tmp/j1" "$tmp/j2" "$tmp/j4" <<'EOF' || fail=1
import json, sys
runs = [json.load(open(p)) for p in sys.argv[1:]]
names = ["1 process (plain)", "2 ranks", "4 ranks"]
bad = 0
for name, r in zip(names, runs):
    v = r["values"]
    print("%-18s peak resident per rank %s MB, largest %.1f MB; checksum %s; plan: %s" % (
        name, ", ".join("%.1f" % (k / 1024) for k in v["peak_rss_kb"]), v["peak_rss_max_kb"] / 1024,
        r["state"].split()[1], r.get("plan", "")[:60]))
one = runs[0]["values"]["peak_rss_max_kb"]
for name, r in zip(names[1:], runs[1:]):
    print("%-18s largest rank / plain run = %.3f" % (name, r["values"]["peak_rss_max_kb"] / one))
ratio = runs[2]["values"]["peak_rss_max_kb"] / one
if ratio > 0.35:
    print("FAIL: on 4 ranks the largest rank holds %.3f of the plain run's peak (at most 0.35)" % ratio)
    bad = 1
for name, r in zip(names[1:], runs[1:]):
    if "reading only its block" not in r.get("plan", ""):
        print("FAIL: %s did not read only its part: %s" % (name, r.get("plan")))
        bad = 1
sums = [r["state"].split()[1] for r in runs]
if len(set(sums)) != 1:
    print("FAIL: checksums of 1, 2 and 4 ranks differ: %s" % sums)
    bad = 1
else:
    print("ok   checksums of 1, 2 and 4 ranks equal: %s" % sums[0])
if not bad:
    print("ok   4 ranks: the largest rank's peak is %.3f of the plain run's (at most 0.35)" % ratio)
sys.exit(bad)
EOF
exit $fail
