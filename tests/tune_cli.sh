#!/bin/sh
# Tuned plans on the command line (docs/tune.md), on the CPU backend: a plan in the plan cache
# (written here as JSON text, its key computed with sha256sum as docs/tune.md defines it) is taken
# by `pillar run` (one application, iterated, a mesh file), an explicit flag wins over it, --plan
# off and PILLAR_PLAN=off give the untuned defaults, a stale plan gives its note and the defaults,
# a corrupt or hostile plan (bad JSON, an unknown strategy, an absurd block, a FIFO, a folder) its
# message and the defaults (exit 0, verified), `pillar tune --show` lists the cache, `pillar tune`
# without a GPU exits 1 with a message. The result bits never change with a plan: the --output
# files of the same command line with and without the plan are the same bytes.
# usage: tune_cli.sh PILLAR
pillar=$1
. "$(dirname "$0")/cli_lib.sh"
command -v sha256sum >/dev/null || { echo "SKIP: sha256sum missing"; exit 77; }
export PILLAR_CACHE_DIR="$tmp/cache"
unset PILLAR_PLAN XDG_CACHE_HOME
version=$("$pillar" --version | sed -n 's/^pillar \([^ ]*\) .*/\1/p')
plans="$PILLAR_CACHE_DIR/plans"

# hash0 STRING... : the SHA-256 of the strings, each with its terminating 0 byte
hash0() { printf '%s\000' "$@" | sha256sum | cut -c1-64; }

# plan_text MESH STENCIL LEVELS DEVICE VERSION ORDER CHASING COMPRESSED ACCESS BLOCK ZSLICE
plan_text() {
    key=$(hash0 "pillar plan key 1" "$1" "$2" double "$3" "$4" "$5")
    cat <<JSON
{
  "format": 1,
  "key": "$key",
  "mesh": "$1",
  "stencil": "$2",
  "precision": "double",
  "levels": $3,
  "device": "$4",
  "pillar": "$5",
  "order": "$6",
  "chasing": $7,
  "compressed": $8,
  "access": "$9",
  "block": [${10}],
  "zslice": ${11},
  "kernel_steps": 1,
  "ms": 1.5,
  "default_ms": 3.0,
  "measured": "2026-01-02T03:04:05Z"
}
JSON
}

# plan_name MESH STENCIL LEVELS DEVICE VERSION: the plan's file name in the cache
plan_name() {
    pre=$(hash0 "pillar plan problem 1" "$1" "$2" double "$3" | cut -c1-16)
    echo "$pre-$(hash0 "pillar plan key 1" "$1" "$2" double "$3" "$4" "$5").json"
}

# put_plan MESH STENCIL LEVELS DEVICE VERSION ORDER CHASING COMPRESSED ACCESS BLOCK ZSLICE
put_plan() {
    mkdir -p "$plans" && chmod 700 "$PILLAR_CACHE_DIR" "$plans"
    f="$plans/$(plan_name "$1" "$2" "$3" "$4" "$5")"
    plan_text "$@" >"$f" && chmod 600 "$f"
    echo "$f"
}

# run_to NAME ARGS...: pillar run ARGS --output $tmp/o.h5 (the same command line each time),
# moved to $tmp/NAME.h5; stdout in $tmp/NAME.out, stderr in $tmp/NAME.err; its exit status
run_to() {
    name=$1; shift
    "$pillar" run "$@" --output "$tmp/o.h5" >"$tmp/$name.out" 2>"$tmp/$name.err"; rc=$?
    [ -f "$tmp/o.h5" ] && mv "$tmp/o.h5" "$tmp/$name.h5"
    return $rc
}

# check WHAT CONDITION...: ok or FAIL
check() {
    what=$1; shift
    if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
has() { grep -qF -- "$2" "$tmp/$1"; }
same() { cmp -s "$tmp/$1.h5" "$tmp/$2.h5"; }
passed() { grep -q "verify    PASS" "$tmp/$1.out"; }

# --- the plan cache, empty; tune without a GPU
expect_output "0 files" tune --show
if "$pillar" run --backend gpu --size 16x16x4 --runs 1 >/dev/null 2>&1; then
    echo "skip: a GPU is usable: pillar tune without one is not checked here"
else
    expect_error "measures on the GPU" tune --size 64x64x16
fi
expect_error "takes no other flag" tune --show --size 64x64x16
expect_error "--budget '0'" tune --budget 0

# --- an emulated grid: the defaults, then a plan of another order and storage
grid="--size 64x64x16 --backend cpu --runs 1"
mesh=size:64x64
PILLAR_PLAN=off run_to base $grid
check "the untuned defaults: zcurve, chasing uncompressed, no plan" \
    has base.out "unstructured zcurve, chasing uncompressed"
check "no plan line without a plan" sh -c "! grep -q tuned '$tmp/base.out'"
good=$(put_plan $mesh laplap 16 cpu "$version" rowmajor false true idxvar "128, 1, 1" 0)
run_to planned $grid
check "pillar run takes the cached plan: its path in the report" has planned.out "$good"
check "the plan's order and storage run" has planned.out "unstructured rowmajor, nonchasing compressed"
check "the CPU run says what it takes" has planned.out "the CPU backend takes the order and storage"
check "verified with the plan" passed planned
check "a plan never changes the result bits (one application)" same base planned
run_to json $grid --json
check "the JSON report names the plan" has json.out '"tuned":'

# explicit flags win, field by field
run_to explicit $grid --layout zcurve-w
check "--layout wins over the plan's order, the storage still the plan's" \
    has explicit.out "unstructured zcurve-w, nonchasing compressed"
run_to explicit2 $grid --layout zcurve --storage chasing
check "--layout, --storage win; --compress left to the plan" \
    has explicit2.out "unstructured zcurve, chasing compressed"
PILLAR_PLAN=off run_to explicit2off $grid --layout zcurve --storage chasing
check "explicit flags and the plan: the same bits as without it" same explicit2off explicit2
run_to off $grid --plan off
check "--plan off: the defaults" has off.out "unstructured zcurve, chasing uncompressed"
check "--plan off: no plan line" sh -c "! grep -q tuned '$tmp/off.out'"
PILLAR_PLAN=off run_to envoff $grid
check "PILLAR_PLAN=off: the defaults" has envoff.out "unstructured zcurve, chasing uncompressed"

# a plan file named by the user
cp "$good" "$tmp/mine.json"
PILLAR_PLAN=off run_to named $grid --plan "$tmp/mine.json"
check "--plan FILE is taken (over PILLAR_PLAN)" has named.out "unstructured rowmajor, nonchasing compressed"
cp "$tmp/bad.json" "$tmp/mine.json" 2>/dev/null || echo '{' >"$tmp/mine.json"
PILLAR_PLAN=off run_to namedbad $grid --plan "$tmp/mine.json"
check "--plan FILE unusable: the defaults" has namedbad.out "unstructured zcurve, chasing uncompressed"
check "--plan FILE: the same bits as the defaults" same namedbad named
mkdir "$tmp/adir"
run_to dir $grid --plan "$tmp/adir"; rc=$?
check "--plan DIR: exit 0, the defaults" \
    test $rc -eq 0 -a -n "$(grep 'unstructured zcurve, chasing uncompressed' "$tmp/dir.out")"
check "--plan DIR: a message naming it" has dir.err "$tmp/adir"
if mkfifo "$tmp/fifo" 2>/dev/null; then
    if command -v timeout >/dev/null; then to="timeout 60"; else to=; fi
    $to "$pillar" run $grid --plan "$tmp/fifo" >"$tmp/fifo.out" 2>"$tmp/fifo.err"; rc=$?
    check "--plan FIFO: no wait, exit 0, the defaults" \
        test $rc -eq 0 -a -n "$(grep 'unstructured zcurve, chasing uncompressed' "$tmp/fifo.out")"
    check "--plan FIFO: a message naming it" has fifo.err "$tmp/fifo"
fi
run_to missing $grid --plan "$tmp/nothing.json"; rc=$?
check "--plan with no such file: exit 0, a message" test $rc -eq 0 -a -s "$tmp/missing.err"

# iterated runs take it too
PILLAR_PLAN=off run_to ibase $grid --steps 3
run_to iplanned $grid --steps 3
check "an iterated run takes the plan" has iplanned.out "$good"
check "an iterated run with the plan: the same bits" same ibase iplanned

# tune --show lists it
expect_output "rowmajor" tune --show
expect_output "1 file" tune --show

# a stale plan (another pillar version): the note, the defaults, the same bits
rm -f "$good"
stale=$(put_plan $mesh laplap 16 cpu 0.0.0-old rowmajor false true idxvar "128, 1, 1" 0)
run_to stale $grid; rc=$?
check "a stale plan: exit 0" test $rc -eq 0
check "a stale plan: its one-line note" has stale.err "was made by pillar 0.0.0-old"
check "a stale plan: the defaults run" has stale.out "unstructured zcurve, chasing uncompressed"
check "a stale plan: verified, the same bits" same base stale
rm -f "$stale"

# corrupt and hostile plans: the message, the defaults, verified
corrupt() { # NAME NEEDLE: the cached plan file replaced by $tmp/bad.json
    cp "$tmp/bad.json" "$good" && chmod 600 "$good"
    run_to "$1" $grid; rc=$?
    check "$1 plan: exit 0, verified" test $rc -eq 0 -a -n "$(grep 'verify    PASS' "$tmp/$1.out")"
    check "$1 plan: the message names the file and '$2'" \
        sh -c "grep -qF -- '$good' '$tmp/$1.err' && grep -qF -- '$2' '$tmp/$1.err'"
    check "$1 plan: the defaults" has "$1.out" "unstructured zcurve, chasing uncompressed"
    check "$1 plan: the same bits" same base "$1"
}
printf '{"format": 1, "key": ' >"$tmp/bad.json"
corrupt truncated "plan"
plan_text $mesh laplap 16 cpu "$version" rowmajor false true warp-drive "128, 1, 1" 0 >"$tmp/bad.json"
corrupt unknown-strategy "warp-drive"
plan_text $mesh laplap 16 cpu "$version" rowmajor false true idxvar "100000, 1, 1" 0 >"$tmp/bad.json"
corrupt absurd-block "block"
expect_output "not a usable plan" tune --show
rm -f "$good"

# a mesh file: the plan keyed on its bytes; z-curve order, graph-twopass (GPU only)
if "$pillar" mesh generate "$tmp/hex.h5" --kind hexagons --size 24x20 --levels 8 >/dev/null 2>&1; then
    hexid=sha256:$(sha256sum "$tmp/hex.h5" | cut -c1-64)
    hex="--mesh $tmp/hex.h5 --stencil graphlap --backend cpu --runs 1"
    PILLAR_PLAN=off run_to hbase $hex
    hp=$(put_plan "$hexid" graphlap 8 cpu "$version" zcurve false true graph-twopass "128, 1, 1" 4)
    run_to hplanned $hex
    check "a mesh file's plan is taken: z-curve order" has hplanned.out "zcurve order"
    check "a mesh file's plan: verified" passed hplanned
    check "a mesh file's plan: the same bits in the file's cell order" same hbase hplanned
    run_to hexplicit $hex --layout file
    check "--layout file wins over the mesh plan" has hexplicit.out "file order"
    rm -f "$hp"
else
    echo "FAIL: mesh generate hexagons"; fail=1
fi

# a part-only distributed run (each rank reads its rows of a partitioned file) takes the plan's
# storage, its cells staying in the file's order, and ends with the plain run's checksum
if command -v mpirun >/dev/null && "$pillar" --version | grep -q "MPI yes" &&
    "$pillar" mesh generate "$tmp/sph.h5" --kind cubed-sphere --n 12 --levels 4 >/dev/null 2>&1 &&
    "$pillar" mesh partition "$tmp/sph.h5" --parts 2 >/dev/null 2>&1; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
    export OMPI_MCA_orte_tmpdir_base="$tmp" # not the /tmp/ompi.* of other tests' mpirun
    sid=sha256:$(sha256sum "$tmp/sph.h5" | cut -c1-64)
    sph="run --mesh $tmp/sph.h5 --stencil laplap --backend cpu --steps 3 --verify off"
    PILLAR_PLAN=off "$pillar" $sph >"$tmp/s1.out" 2>&1
    sp=$(put_plan "$sid" laplap 4 cpu "$version" zcurve false true idxvar "128, 1, 1" 0)
    mpirun --oversubscribe -np 2 "$pillar" $sph --ranks 2 >"$tmp/s2.out" 2>&1
    check "a part-only run takes the plan, its cells in the file's order" has s2.out \
        "nonchasing compressed; the CPU backend takes the order and storage; the cells stay in the file's order"
    check "a part-only run with a plan reads only its part" has s2.out "reading only its block"
    same_sum() { a=$(grep '^  state' "$tmp/s1.out"); [ -n "$a" ] && [ "$a" = "$(grep '^  state' "$tmp/s2.out")" ]; }
    check "a part-only run with a plan: the plain run's checksum" same_sum
    rm -f "$sp"
fi

exit $fail
