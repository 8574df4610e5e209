#!/bin/sh
# pillar bench --iterated on the CPU backend (a tiny grid): the table's columns, one row per
# stencil x levels x variant the CPU has (laplap, hdiff and graphlap: host loop, K = 2, 3;
# fastwaves, lap, fluxdiff: host loop), every one verified bit for bit against the CPU in-core
# iteration; the CSV and JSON in --out; the figure of tools/plot-iterated (where matplotlib is); flags it refuses.
# usage: bench_iterated_cli.sh PILLAR REPO_ROOT
pillar=$1
root=$2
. "$(dirname "$0")/cli_lib.sh"

expect_error "does not go with --quick" bench --iterated --quick
expect_error "--levels '0'" bench --iterated --levels 0
expect_error "go with --iterated" bench --levels 4
expect_error "no row 'foo'" bench --iterated --backend cpu --variants host-loop,foo
# --variants: only the rows it names
"$pillar" bench --iterated --backend cpu --size 20x20x4 --levels 4 --stencil laplap --runs 1 \
    --variants ksteps-3 --out "$tmp/only" >"$tmp/only.out" 2>&1
if grep -qE "^  laplap +4  ksteps-3 " "$tmp/only.out" && ! grep -qE "^  laplap +4  (host-loop|ksteps-2) " "$tmp/only.out"; then
    echo "ok: --variants ksteps-3 times that row alone"
else
    echo "FAIL: --variants ksteps-3"; cat "$tmp/only.out"; fail=1
fi
if ! "$pillar" run --backend gpu --size 8x8x2 --runs 1 >/dev/null 2>&1; then
    expect_error "--backend gpu" bench --iterated --backend gpu --size 16x16x4
fi

# 7 steps: the warm-up, verified, runs all 7 (verify_steps); 2 timed runs; the progress meter
# from the start (PILLAR_PROGRESS_AFTER=0)
PILLAR_PROGRESS_AFTER=0 "$pillar" bench --iterated --backend cpu --size 20x20x4 --levels 4,5 --steps 7 --runs 2 \
    --out "$tmp/res" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then
    echo "FAIL: bench --iterated exited $rc"; cat "$tmp/out" "$tmp/err"; fail=1
fi
# no --access/--storage/--compress: the order and tables pillar run takes without flags (the
# built-in plan, src/tune/plan_defaults.c: z-curve-w runs, nonchasing compressed for laplap and
# hdiff, chasing uncompressed for the other W/E/S/N stencils), not the CPU run's own z-curve
if grep -q "^laplap double on 20x20 zcurve-w nonchasing compressed" "$tmp/out" &&
    grep -q "^hdiff double on 20x20 zcurve-w nonchasing compressed" "$tmp/out"; then
    echo "ok: the built-in plan's tables without flags"
else
    echo "FAIL: not the built-in plan's tables:"; grep " double on " "$tmp/out"; fail=1
fi
if grep -qE "^  stencil +levels +variant +us/step +speed-up +verify" "$tmp/out"; then
    echo "ok: table columns stencil, levels, variant, us/step, speed-up, verify"
else
    echo "FAIL: no table header"; cat "$tmp/out"; fail=1
fi
# want STENCIL LEVELS VARIANT: a table row with a time, a speed-up and PASS
want() {
    if grep -qE "^  $1 +$2  $3 +[0-9.]+ +[0-9.]+x  PASS \(bit-exact, 7 steps\)" "$tmp/out"; then
        echo "ok: $1 $2 $3 PASS"
    else
        echo "FAIL: no verified row for $1 $2 $3"; fail=1
    fi
}
for z in 4 5; do
    for s in laplap hdiff graphlap; do
        for v in host-loop ksteps-2 ksteps-3; do want $s $z $v; done
    done
    for s in fastwaves lap fluxdiff; do want $s $z host-loop; done
done
if grep -qE "^  (lap|fastwaves|fluxdiff) .*ksteps|persistent|auto" "$tmp/out"; then
    echo "FAIL: a variant the CPU backend or the stencil does not have"; fail=1
fi
grep -q "pillar: bench --iterated .*100% (24 of 24 rows)" "$tmp/err" && echo "ok: progress on stderr" ||
    { echo "FAIL: no progress lines on stderr"; cat "$tmp/err"; fail=1; }

csv=$(ls "$tmp/res"/iterated-*.csv 2>/dev/null | head -n1)
json=$(ls "$tmp/res"/iterated-*.json 2>/dev/null | head -n1)
head="stencil,precision,nx,ny,nz,variant,runs_as,steps_per_launch,threads,steps,runs,median_us_per_step,min_us_per_step,max_us_per_step,speedup,verify,backend"
if [ -n "$csv" ] && [ "$(head -n1 "$csv")" = "$head" ]; then
    echo "ok: CSV header"
else
    echo "FAIL: no CSV or a wrong header in $tmp/res"; ls "$tmp/res"; fail=1
fi
# every row: 20x20, 7 steps, 2 runs, min <= median <= max, PASS; the host loop's speed-up is 1
bad=$(awk -F, 'NR > 1 && !($3 == 20 && $4 == 20 && $10 == 7 && $11 == 2 && $13 <= $12 &&
                           $12 <= $14 && $12 > 0 && $16 == "PASS" && $17 == "cpu" &&
                           ($6 != "host-loop" || $15 == 1)) { print NR ": " $0 }' "$csv")
rows=$(awk 'END { print NR - 1 }' "$csv")
if [ -z "$bad" ] && [ "$rows" -eq 24 ]; then
    echo "ok: CSV has 24 rows, all PASS"
else
    echo "FAIL: CSV rows ($rows, want 24):"; echo "$bad"; fail=1
fi
if command -v python3 >/dev/null; then
    if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["rows"]) == 24 and d["steps"] == 7 and d["pillar"]["command"].startswith("pillar bench --iterated")' "$json"; then
        echo "ok: JSON"
    else
        echo "FAIL: JSON $json"; fail=1
    fi
fi
expect_output "PASS (bit-exact, 3 steps)" bench --iterated --backend cpu --stencil laplap \
    --precision float --size 16x16x3 --steps 3 --runs 1 --out "$tmp/res2"

py=
for cand in /usr/bin/python3 python3; do
    if "$cand" -c 'import matplotlib' >/dev/null 2>&1; then py=$cand; break; fi
done
if [ -n "$py" ]; then
    if "$py" "$root/tools/plot-iterated" "$csv" --out "$tmp/figs" >"$tmp/pout" 2>"$tmp/perr" &&
        [ "$(od -An -tx1 -N8 "$tmp/figs/iterated-double-20x20.png" | tr -d ' \n')" = "89504e470d0a1a0a" ]; then
        echo "ok: tools/plot-iterated wrote $(cat "$tmp/pout")"
    else
        echo "FAIL: tools/plot-iterated"; cat "$tmp/pout" "$tmp/perr"; fail=1
    fi
    echo "a,b" >"$tmp/bad.csv"
    "$py" "$root/tools/plot-iterated" "$tmp/bad.csv" --out "$tmp/badfigs" 2>"$tmp/perr"
    if [ $? -eq 2 ] && grep -q "not a CSV of pillar bench --iterated" "$tmp/perr" && [ ! -e "$tmp/badfigs" ]; then
        echo "ok: plot-iterated refuses a foreign CSV"
    else
        echo "FAIL: plot-iterated on a foreign CSV"; cat "$tmp/perr"; fail=1
    fi
else
    echo "skip: tools/plot-iterated (no matplotlib)"
fi
[ $fail -eq 0 ] && echo PASS || echo FAIL
exit $fail
