#!/bin/sh
# persist_cli.sh — `pillar run --persistent auto` on the GPU launches what `--persistent on`
# launches: the plan's block shape is the host loop's (256 threads), and it must not reach the
# persistent launch (it once did: the on-chip kernel then ran with a quarter of its threads and
# no prefetch, 3x slower than its model and than on). Where the model says on, auto times both
# launches on the device before it picks, and says so, once a run (--output-every). The plan's
# line names the order that runs. The runs bit-exact against the CPU.
# usage: persist_cli.sh PILLAR
pillar=$1
. "$(dirname "$0")/cli_lib.sh"
if ! "$pillar" run --backend gpu --size 8x8x2 >"$tmp/log" 2>&1; then
    echo "skip: no GPU: $(tail -1 "$tmp/log")"; exit 77
fi
# the launch line: "persistent B blocks x T threads on chip: ..."
launch() {
    "$pillar" run --backend gpu --stencil laplap --size 512x512x16 --layout zcurve --steps 40 \
        --persistent "$1" >"$tmp/$1.out" 2>&1 || { echo "FAIL: --persistent $1 exited $?"; cat "$tmp/$1.out"; fail=1; }
    grep -q "verify    PASS" "$tmp/$1.out" || { echo "FAIL: --persistent $1 not verified"; cat "$tmp/$1.out"; fail=1; }
    grep -oE "^  persistent [0-9]+ blocks x [0-9]+ threads" "$tmp/$1.out"
}
on=$(launch on)
auto=$(launch auto)
line=$(grep "^  persistent o[nf]* (auto" "$tmp/auto.out")
gain=$(echo "$line" | sed -n 's/.* \([0-9.]*\)x; on from 1\.10x.*/\1/p')
if [ -z "$line" ]; then
    echo "FAIL: no persistent line from auto"; cat "$tmp/auto.out"; fail=1
elif [ -z "$gain" ]; then # the on-chip kernels refused this card: the line says why
    echo "ok: auto's line (no on-chip model here): $(echo "$line" | cut -c1-200)"
elif awk "BEGIN { exit !($gain >= 1.10) }" && ! echo "$line" | grep -q "timed here over"; then
    echo "FAIL: the model said on ($gain x) and auto timed nothing: $line"; fail=1
else
    echo "ok: auto's line: $(echo "$line" | cut -c1-200)"
fi
if grep -q "^  persistent on (auto" "$tmp/auto.out"; then
    if [ -n "$on" ] && [ "$on" = "$auto" ]; then
        echo "ok: auto launches as on: $auto"
    else
        echo "FAIL: auto launched '$auto', on '$on'"; cat "$tmp/auto.out"; fail=1
    fi
else # the model kept the host loop here (another card): nothing to compare
    echo "ok: auto kept the host loop: $(grep '^  persistent' "$tmp/auto.out" | head -1)"
fi
# the plan's line names the order that runs (--layout zcurve), not the plan's own (zcurve-w)
if grep -q "^  tuned .* zcurve order" "$tmp/auto.out" && ! grep -q "^  tuned .*zcurve-w order" "$tmp/auto.out"; then
    echo "ok: the plan's line names the run's order"
else
    echo "FAIL: the plan's line: $(grep '^  tuned' "$tmp/auto.out")"; fail=1
fi
# --output-every: auto decides at the first pass; the second keeps that choice, timing nothing
"$pillar" run --backend gpu --stencil laplap --size 512x512x16 --layout zcurve --steps 40 \
    --output-every 20 --output "$tmp/every.h5" --persistent auto >"$tmp/every.out" 2>&1 ||
    { echo "FAIL: --output-every with auto exited $?"; cat "$tmp/every.out"; fail=1; }
n=$(grep -c "^  persistent o[nf]* (auto" "$tmp/every.out")
later=$(grep -c "^  persistent o[nf]* (auto, as the first pass chose)" "$tmp/every.out")
if [ "$n" = 2 ] && [ "$later" = 1 ]; then
    echo "ok: auto decided once in two passes"
else
    echo "FAIL: auto's lines over two passes:"; grep "^  persistent" "$tmp/every.out"; fail=1
fi
exit $fail
