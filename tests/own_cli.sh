#!/bin/sh
# own_cli.sh — a stencil file written outside pillar's tree (a heat step, in a temporary
# directory, with its own cache) through the command line: on the CPU (cpu) its unstructured run
# equals its regular twin bit for bit on every layout and storage, its iterated run in core and
# out of core equals the CPU in-core iteration, --grid regular runs, and a file with a syntax
# error is refused (exit 1) with its own name and line, once; on the GPU (gpu) every strategy a
# stencil file has equals the CPU, and so do its iterated runs. (What a file computes against an
# independent formula: tests/test_own.c, e.g. lap5 == -8 on a quadratic field.)
# usage: own_cli.sh PILLAR [cpu|gpu]
set -u
pillar=$1
backend=${2:-cpu}
tmp=$(mktemp -d /tmp/pillar-own-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export PILLAR_CACHE_DIR="$tmp/cache"
fail=0
if [ "$backend" = gpu ] && ! "$pillar" run --backend gpu --size 8x8x2 >"$tmp/log" 2>&1; then
    echo "skip: no GPU: $(tail -1 "$tmp/log")"; exit 77
fi
cat >"$tmp/heat.c" <<'SRC'
/* one explicit heat step, written by a user outside pillar's source tree */
#pragma pillar stencil(heat) kind(quad)
#pragma pillar in(in) out(out)
#pragma pillar radius(1)
#pragma pillar carry(in <- out) fold(v)
#pragma pillar body
T c = LD(in, C);
ST(out, c + (T)0.125 * (LD(in, W) + LD(in, E) + LD(in, S) + LD(in, N) - (T)4 * c));
SRC
# run ARGS...: a pillar run whose verify line must say PASS
run() {
    if "$pillar" run --stencil-file "$tmp/heat.c" --backend "$backend" "$@" >"$tmp/out" 2>&1 &&
        grep -q "verify    PASS" "$tmp/out"; then
        echo "ok   $*"
    else
        echo "FAIL $*"; cat "$tmp/out"; fail=1
    fi
}
if [ "$backend" = cpu ]; then
    for lay in rowmajor zcurve zcurve-w random; do
        run --size 40x30x4 --layout $lay
        run --size 40x30x4 --layout $lay --storage nonchasing --compress --precision float
    done
    run --size 40x30x4 --steps 7 --out-of-core on --device-mem 200K
    run --size 40x30x4 --steps 7 --out-of-core on --device-mem 200K --fuse 3 --layout random
    if "$pillar" run --stencil-file "$tmp/heat.c" --backend cpu --grid regular --size 40x30x4 \
        >"$tmp/out" 2>&1 && grep -q "regular" "$tmp/out"; then echo "ok   --grid regular"
    else echo "FAIL --grid regular"; cat "$tmp/out"; fail=1; fi
    # a syntax error: refused with the file's name and line, the repetitions cut
    printf '#pragma pillar stencil(bad) in(in) out(out) radius(1)\n#pragma pillar body\nT c = LD(in, C)\nST(out, c);\n' >"$tmp/bad.c"
    "$pillar" run --stencil-file "$tmp/bad.c" --backend cpu --size 12x10x2 >"$tmp/out" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -q "bad.c:3:" "$tmp/out" && [ "$(grep -c 'error:' "$tmp/out")" -eq 1 ]; then
        echo "ok   a syntax error names bad.c:3, once"
    else echo "FAIL syntax error (exit $rc):"; cat "$tmp/out"; fail=1; fi
else
    for acc in naive idxvar shared shared-warp zloop zloop-sliced; do
        run --size 70x50x9 --layout zcurve-w --access $acc
        run --size 70x50x9 --layout random --storage nonchasing --compress --access $acc --precision float
    done
    run --size 70x50x9 --steps 9 --access idxvar
    run --size 70x50x9 --steps 9 --out-of-core on --device-mem 2M --fuse 2
fi
exit $fail
