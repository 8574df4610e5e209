#!/bin/sh
# tools/kernel-ab.sh on the CPU backend (AB_BACKEND=cpu, a given binary, tiny lattice and
# sphere): it runs end to end and prints one row per configuration whose label matches AB_ONLY,
# each with a time and every run verified; a row label that matches nothing adds no row.
# usage: kernel_ab_cli.sh PILLAR SOURCE_DIR
pillar=$1
SRC=$2
. "$(dirname "$0")/cli_lib.sh"
out=$tmp
PILLAR=$pillar AB_BACKEND=cpu AB_SIZE=24x24x4 AB_SPHERE=6 AB_REPS=1 AB_ONLY='^laplap (zloop-plain|regular pairs|sphere file zloop-sliced)' \
    OUT=$out bash "$SRC/tools/kernel-ab.sh" >"$out/stdout" 2>&1
check_last "the script exits 0"
t=$out/ab.txt
cat "$t"
[ "$(grep -c -E '^laplap ' "$t")" = 3 ]
check_last "three rows: the lattice's zloop-plain, its regular pairs, the sphere's zloop-sliced"
[ "$(grep -E '^laplap ' "$t" | grep -c -E ' [0-9]+\.[0-9]{4} +PASS$')" = 3 ]
check_last "each row has a median and PASS"
grep -q "^device: cpu backend" "$t"
check_last "the device line names the backend"
[ -s "$out/logs.tar.gz" ] && tar -tzf "$out/logs.tar.gz" | grep -q -E 'r1-.+-1\.log'
check_last "the runs' logs are kept"
# a missing binary or a failed run makes the script fail, not print a table of n/a
PILLAR=/nonexistent/pillar AB_BACKEND=cpu OUT=$out/bad bash "$SRC/tools/kernel-ab.sh" >"$out/bad.txt" 2>&1
[ $? -eq 2 ] && grep -q "/nonexistent/pillar" "$out/bad.txt"
check_last "the script refuses a missing binary, naming it, with exit 2"
PILLAR=$pillar AB_BACKEND=cpu AB_SIZE=3x3x2 AB_SPHERE=0 AB_REPS=1 AB_ONLY='^laplap zloop-plain' \
    OUT=$out/small bash "$SRC/tools/kernel-ab.sh" >/dev/null 2>&1
[ $? -eq 1 ] && grep -q "FAIL(" "$out/small/ab.txt"
check_last "a run that fails (a grid too small) marks its row and exits 1"
exit $fail
