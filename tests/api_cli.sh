#!/bin/sh
# A model's time loop through libpillar (examples/c/timeloop.c, or examples/fortran/timeloop.f90
# through the Fortran module) against the command line: its final state after T steps equals
# `pillar run --steps T` on the mesh and initial field it wrote (in the model's own scrambled cell
# order), bit for bit, for T = 1, 2 and 17. Given OTHER, another build of the same example
# (the C one for the Fortran one), the initial and final fields also equal OTHER's, bit for bit.
# With API_CLI_BACKEND=gpu the examples run on the GPU (exit 77 where none is usable) and their
# states must equal both `pillar run --steps T --backend cpu` and `--backend gpu`, bit for bit.
# usage: [API_CLI_BACKEND=cpu|gpu] api_cli.sh PILLAR TIMELOOP TEST_FIELD_IO [OTHER]
pillar=$1
timeloop=$2
test_field_io=$3
other=${4:-}
backend=${API_CLI_BACKEND:-cpu}
. "$(dirname "$0")/cli_lib.sh"

if [ "$backend" = gpu ] && ! "$timeloop" --steps 0 --backend gpu >"$tmp/log" 2>&1; then
    if grep -q -e "no usable CUDA device" -e "no GPU backend" "$tmp/log"; then
        echo "skip: no GPU: $(cat "$tmp/log")"; exit 77
    fi
    echo "FAIL: timeloop --backend gpu:"; cat "$tmp/log"; exit 1
fi
clis=cpu
[ "$backend" = gpu ] && clis="cpu gpu"

for T in 1 2 17; do
    if "$timeloop" --steps $T --backend "$backend" --files "$tmp/t$T" >"$tmp/log" 2>&1; then
        echo "ok: timeloop --steps $T --backend $backend"
    else
        echo "FAIL: timeloop --steps $T --backend $backend:"; cat "$tmp/log"; fail=1; continue
    fi
    for b in $clis; do
        if "$pillar" run --backend $b --steps $T --mesh "$tmp/t$T.mesh.h5" \
            --input "$tmp/t$T.initial.h5" --output "$tmp/cli$T.h5" >"$tmp/log" 2>&1; then
            echo "ok: pillar run --steps $T --backend $b on the example's mesh and input"
        else
            echo "FAIL: pillar run --steps $T --backend $b:"; cat "$tmp/log"; fail=1; continue
        fi
        if "$test_field_io" --same "$tmp/cli$T.h5" "$tmp/t$T.final.h5" in 2>"$tmp/log"; then
            echo "ok: the example's state after $T steps == the command line's ($b), bit for bit"
        else
            echo "FAIL: states differ after $T steps ($b):"; cat "$tmp/log"; fail=1
        fi
    done
    [ -n "$other" ] || continue
    if ! "$other" --steps $T --backend "$backend" --files "$tmp/o$T" >"$tmp/log" 2>&1; then
        echo "FAIL: $other --steps $T:"; cat "$tmp/log"; fail=1; continue
    fi
    for f in initial final; do
        if "$test_field_io" --same "$tmp/o$T.$f.h5" "$tmp/t$T.$f.h5" in 2>"$tmp/log"; then
            echo "ok: --steps $T: the $f field == $(basename "$other")'s, bit for bit"
        else
            echo "FAIL: --steps $T: the $f field differs from $(basename "$other")'s:"
            cat "$tmp/log"; fail=1
        fi
    done
done
exit $fail
