#!/bin/sh
# tools/same-kernels.sh on the CPU backend with tiny sizes (SAME_KERNELS_BACKEND=cpu): it runs
# end to end, prints one row per stencil x strategy with every path verified, and says "refused"
# where a path refuses a strategy (twopass has no iterated or out-of-core kernels).
# usage: same_kernels_cli.sh PILLAR SOURCE_DIR
pillar=$1
SRC=$2
. "$(dirname "$0")/cli_lib.sh"
out=$tmp
SAME_KERNELS_BACKEND=cpu PILLAR=$pillar OUT=$out bash "$SRC/tools/same-kernels.sh" >"$out/stdout" 2>&1
check_last "the script exits 0"
s=$out/summary.txt
cat "$s"
[ "$(grep -c -E '^(laplap|hdiff) +(idxvar|zloop-sliced|twopass) ' "$s")" = 6 ]
check_last "six rows (laplap, hdiff x idxvar, zloop-sliced, twopass)"
for acc in idxvar zloop-sliced; do
    [ "$(grep -E "^(laplap|hdiff) +$acc " "$s" | grep -o -E ' P( |$)' | wc -l)" = 8 ]
    check_last "$acc: in-core, sphere and both out-of-core runs verified (P) for both stencils"
    [ "$(grep -E "^(laplap|hdiff) +$acc " "$s" | grep -c -E '\(([4-9]|[1-9][0-9]+) chunks\)')" = 2 ]
    check_last "$acc: the out-of-core runs cut the grid into at least 4 chunks"
done
[ "$(grep -E '^(laplap|hdiff) +twopass ' "$s" | grep -o 'refused' | wc -l)" = 6 ]
check_last "twopass: refused by the iterated and out-of-core paths, and said so"
[ -s "$out/same-kernels.tar.gz" ] && tar -tzf "$out/same-kernels.tar.gz" | grep -q 'laplap-idxvar-ooc4.log'
check_last "the logs are in the tarball"
# a broken binary makes the script fail, not print an empty table
SAME_KERNELS_BACKEND=cpu PILLAR=/nonexistent/pillar OUT=$out/bad bash "$SRC/tools/same-kernels.sh" >/dev/null 2>&1
[ $? -ne 0 ]
check_last "the script fails without a pillar binary"
exit $fail
