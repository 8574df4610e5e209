#!/bin/sh
# tools/kernel-ab.sh on the CPU backend (AB_BACKEND=cpu, a given binary, tiny lattice and
# sphere): it runs end to end and prints one row per configuration whose label matches AB_ONLY,
# each with a time and every run verified; a row label that matches nothing adds no row.
# usage: kernel_ab_cli.sh PILLAR SOURCE_DIR
P=$1
SRC=$2
out=$(mktemp -d /tmp/pillar-kernel-ab-XXXXXX)
trap 'rm -rf "$out"' EXIT
fail=0
check() { # check WHAT: fails the test with WHAT when the last command failed
    if [ $? -ne 0 ]; then
        echo "FAIL: $1"
        fail=1
    fi
}
PILLAR=$P AB_BACKEND=cpu AB_SIZE=24x24x4 AB_SPHERE=6 AB_REPS=1 AB_ONLY='^laplap (zloop-plain|regular pairs|sphere file zloop-sliced)' \
    OUT=$out bash "$SRC/tools/kernel-ab.sh" >"$out/stdout" 2>&1
check "the script exits 0"
t=$out/ab.txt
cat "$t"
[ "$(grep -c -E '^laplap ' "$t")" = 3 ]
check "three rows: the lattice's zloop-plain, its regular pairs, the sphere's zloop-sliced"
[ "$(grep -E '^laplap ' "$t" | grep -c -E ' [0-9]+\.[0-9]{4} +PASS$')" = 3 ]
check "each row has a median and PASS"
grep -q "^device: cpu backend" "$t"
check "the device line names the backend"
[ -s "$out/logs.tar.gz" ] && tar -tzf "$out/logs.tar.gz" | grep -q -E 'r1-.+-1\.log'
check "the runs' logs are kept"
exit $fail
