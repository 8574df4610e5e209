#!/bin/sh
# CLI behaviour: bad input names the bad value and exits non-zero without crashing; the
# acceptance commands of the foundation issue print what they promise; every --help works.
# usage: cli.sh PILLAR
pillar=$1
. "$(dirname "$0")/cli_lib.sh"

expect_error "0x5x5" run --size 0x5x5
expect_error "foo" run --stencil foo
expect_error "smaller than its halo" run --size 4x4x4
expect_error "smaller than its halo" info --size 3x9x2
expect_error "needs at least 2 levels" run --stencil fastwaves --size 16x16x1
expect_error "--bogus" run --bogus
expect_error "--bogus" --bogus
expect_error "frobnicate" frobnicate
expect_error "--size needs a value" run --size
expect_error "spiral" info --layout spiral
expect_error "12" run --layout zcurve-w --zcurve-w 12
expect_error "1024x1x1" run --threads 1024x1x1
expect_error "quad" run --precision quad
expect_error "-3" run --runs -3
expect_error "abc" run --seed abc
expect_error "--compress takes no value" run --compress=yes

expect_error "unknown flag '--bogus'" bench --bogus
expect_error "--runs needs a value" bench --runs
expect_error "abc" bench --runs abc
expect_error "quad" bench --precision quad
expect_error "exclude each other" bench --sweep domain --size 64x64x4
# without a usable GPU, bench says so and exits non-zero (on a GPU machine the GPU tests run it)
if ! "$pillar" run --backend gpu --size 8x8x2 --runs 1 >/dev/null 2>&1; then
    expect_error "needs a CUDA device" bench --quick
    expect_error "--backend gpu" run --backend gpu
fi

expect_output "PASS against the regular grid: bit-exact" run --stencil hdiff --layout zcurve \
    --storage nonchasing --compress --size 64x64x16 --backend cpu --runs 2
# iterated and out-of-core runs (CPU backend: the same chunking under a --device-mem budget)
expect_error "--steps '0'" run --steps 0
expect_error "--fuse 'x'" run --steps 2 --fuse x
expect_error "--device-mem '12Q'" run --steps 2 --device-mem 12Q
expect_error "--out-of-core 'maybe'" run --steps 2 --out-of-core maybe
expect_error "needs --device-mem" run --steps 2 --out-of-core on --backend cpu
expect_error "too small" run --size 32x32x8 --steps 2 --out-of-core on --device-mem 1K --backend cpu
expect_error "--aos does not go with --steps" run --steps 2 --aos --backend cpu
# the refusals name the strategies that iterate the stencil, from the registry (access_iterating)
expect_error "for laplap, the naive, idxvar, shared, shared-warp, zloop, zloop-sliced, zloop-plain or pairs strategy" \
    run --steps 2 --access staged --backend cpu
expect_output "this is the CPU in-core reference" run --size 32x32x8 --steps 3 --backend cpu
# --verify off: nothing compared, said so; --output refused (written after a verified run only)
expect_output "verify    skipped (--verify off)" run --size 32x32x8 --backend cpu --verify off
expect_output "verify    skipped (--verify off)" run --size 32x32x8 --steps 3 --backend cpu --verify off
expect_output "verify    skipped (--verify off)" run --size 32x32x8 --steps 3 --backend cpu \
    --out-of-core on --device-mem 40K --verify off
expect_error "--verify 'maybe'" run --verify maybe
expect_error "drop --verify off" run --size 32x32x8 --verify off --output "$tmp/never.h5"
[ -e "$tmp/never.h5" ] && { echo "FAIL --verify off --output wrote a file"; fail=1; }
# --persistent (issue 19): a GPU executor; the flag parses, off runs as before, on refuses the CPU
expect_error "--persistent on runs on the GPU" run --size 32x32x8 --steps 3 --persistent on \
    --backend cpu
expect_error "maybe" run --steps 3 --persistent maybe
expect_error "--persistent on runs on the GPU" run --size 32x32x8 --steps 3 --persistent on \
    --out-of-core on --device-mem 64K --fuse 2 --backend cpu
expect_output "this is the CPU in-core reference" run --size 32x32x8 --steps 3 --persistent off \
    --backend cpu
expect_error "--persistent-levels goes with --persistent on or auto" run --size 32x32x8 --steps 3 \
    --persistent off --persistent-levels 2 --backend cpu
expect_error "--persistent-levels" run --steps 3 --persistent-levels -1
for st in laplap hdiff fastwaves; do
    expect_output "PASS: 0 of" run --stencil $st --size 40x36x12 --steps 4 --fuse 2 \
        --out-of-core on --device-mem 200K --storage nonchasing --compress --backend cpu
done
expect_output "out of core" run --size 40x36x12 --steps 3 --out-of-core on --device-mem 200K --backend cpu
expect_error "--kernel-steps 4 is more than --fuse 2" run --steps 4 --fuse 2 --kernel-steps 4 \
    --backend cpu
expect_output "2 step(s) per transfer" run --size 40x36x12 --steps 4 --kernel-steps 2 \
    --out-of-core on --device-mem 200K --backend cpu
expect_output "(sharing off)" run --stencil fastwaves --size 40x36x12 --steps 3 --out-of-core on \
    --device-mem 200K --backend cpu
expect_output "PASS: 0 of" run --stencil fastwaves --size 40x36x12 --steps 3 --out-of-core on \
    --device-mem 200K --backend cpu --share
if grep -qF "(sharing off)" "$tmp/out"; then echo "FAIL: --share left sharing off"; fail=1; fi

expect_output "* chasing compressed" info --size 512x512x64 --layout rowmajor --compress
expect_output "top pattern" info --size 512x512x64 --layout rowmajor --compress
# --json: one JSON object with the facts of the table (tests/check_json.py compares them)
expect_json() { # INDENT 'EXPR' ARGS...
    indent=$1 expr=$2; shift 2
    "$pillar" "$@" >"$tmp/table" 2>/dev/null
    "$pillar" "$@" --json >"$tmp/json" 2>"$tmp/err"; rc=$?
    if python3 "$(dirname "$0")/check_json.py" "$tmp/table" "$tmp/json" "$indent" "$expr" \
        >"$tmp/why" 2>&1; then
        echo "ok: pillar $* --json (exit $rc): $(cat "$tmp/why")"
    else
        echo "FAIL: pillar $* --json (exit $rc): $(cat "$tmp/why")"; cat "$tmp/json" "$tmp/err"
        fail=1
    fi
}
expect_json 2 'd["ok"] and d["values"]["verified"] and d["values"]["cells"] == 32 * 32 and d["verify"].startswith("PASS")' \
    run --size 32x32x8 --backend cpu --runs 2
expect_json 2 'd["ok"] and d["values"]["steps"] == 3 and d["values"]["levels"] == 12 and d["plan"]' \
    run --size 40x36x12 --steps 3 --out-of-core on --device-mem 200K --backend cpu
# a run that fails still prints its object, with "ok": false
"$pillar" run --mesh "$tmp/none.h5" --json >"$tmp/json" 2>/dev/null
if [ $? -eq 1 ] && python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["ok"] is False' \
    "$tmp/json"; then echo "ok: a failed run --json says ok: false"
else echo "FAIL: a failed run --json"; cat "$tmp/json"; fail=1; fi
expect_error "--json does not go with --plan-only" run --plan-only --json
# --progress: the meter on stderr (PILLAR_PROGRESS_AFTER=0: from the first update, not after 2 s);
# without it and with stderr no terminal, nothing; a run shorter than 2 s shows nothing
ooc="--size 40x36x12 --steps 4 --out-of-core on --device-mem 200K --backend cpu"
PILLAR_PROGRESS_AFTER=0 "$pillar" run $ooc --progress >"$tmp/out" 2>"$tmp/err"
if grep -q "^pillar: run 100% ([0-9]* of [0-9]* chunks)$" "$tmp/err" &&
    grep -q "^pillar: verify .*% (1 of 4 steps), [0-9]* s left$" "$tmp/err" &&
    grep -q "^pillar: verify 100% (4 of 4 steps)$" "$tmp/err" && grep -q "PASS" "$tmp/out"; then
    echo "ok: --progress shows the run's chunks and the verification's steps"
else
    echo "FAIL: --progress:"; cat "$tmp/err"; fail=1
fi
PILLAR_PROGRESS_AFTER=0 "$pillar" run $ooc >/dev/null 2>"$tmp/err"
grep -q "pillar: run" "$tmp/err" && { echo "FAIL: a meter without --progress or a terminal"; fail=1; }
"$pillar" run --size 32x32x8 --steps 3 --backend cpu --progress >/dev/null 2>"$tmp/err"
[ -s "$tmp/err" ] && { echo "FAIL: a meter for a run under 2 s: $(cat "$tmp/err")"; fail=1; }
for cmd in "" run info; do
    expect_output "usage: pillar" $cmd --help
done
expect_output "commands:" help
# pillar help COMMAND prints that command's help (it printed the top-level help)
for cmd in run info bench mesh "mesh generate" "mesh import" "mesh info" "mesh partition"; do
    expect_output "usage: pillar $cmd " help $cmd
done
expect_error "unknown command 'frob'" help frob
expect_error "not 'extra'" help run extra
# --version in every command; --flag=value wherever --flag value works
for cmd in "" run info bench mesh "mesh info" "mesh generate" "mesh import" "mesh partition"; do
    expect_output "pillar " $cmd --version
done
expect_output "PASS against the regular grid: bit-exact" run --stencil=hdiff --size=24x20x4 \
    --backend=cpu --runs=1 --layout=random --seed=7
expect_output "grid        20x16x4" info --size=20x16x4 --layout=rowmajor
expect_error "--runs 'abc'" bench --runs=abc
expect_error "exclude each other" bench --sweep=domain --size=64x64x4
expect_error "--precision 'quad'" bench --precision=quad
for flag in --stencil --size --precision --layout --storage --compress --access --sweep --runs --out; do
    expect_output "$flag" bench --help
done

exit $fail
