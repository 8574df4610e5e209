#!/bin/sh
# run_import.sh FUZZER TEST_HOSTILE READER SRCDIR — one importer's fuzz campaign (ctest label
# `fuzz`): seeds from make_import_seeds.sh, then FUZZ_SECONDS (default 600) of libFuzzer in fork
# mode (a crash is saved and the campaign goes on), leaks inside libhdf5/libgmsh suppressed by
# name (tests/sanitize/lsan.supp; full malloc stacks, so the name is found). Afterwards every
# saved input is run again: it fails the test unless its report's first frame in a library or
# in pillar is inside libhdf5, libnetcdf or libgmsh (their known bugs: tests/fuzz/README.md).
set -eu
fuzzer=$1; maker=$2; reader=$3; src=$4
work=$(pwd)/fuzz-import-$reader # absolute: the target changes directory
rm -rf "$work"; mkdir -p "$work/corpus" "$work/crashes"
sh "$src/fuzz/make_import_seeds.sh" "$maker" "$work/seeds"
cp "$work/seeds/$reader"/* "$work/corpus/"
export LSAN_OPTIONS=suppressions=$src/sanitize/lsan.supp ASAN_OPTIONS=fast_unwind_on_malloc=0
"$fuzzer" "$work/corpus" -max_len=32768 -timeout=20 -rss_limit_mb=4096 -close_fd_mask=3 \
    -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
    -max_total_time="${FUZZ_SECONDS:-600}" -artifact_prefix="$work/crashes/" 2>"$work/fuzz.log" || true
grep -E "^#[0-9]+: cov|DONE" "$work/fuzz.log" | tail -n 2
ours=0; lib=0
for f in "$work"/crashes/*; do
    [ -e "$f" ] || continue
    "$fuzzer" -rss_limit_mb=4096 "$f" >"$f.report" 2>&1 || true
    # first frame in libhdf5/libnetcdf/libgmsh (a module path) or in pillar's sources (file:line)
    where=$(grep -m1 -oE "\(/[^ )]*lib(hdf5|netcdf|gmsh)[^ )]*|/(src|grids|storage|access|tests)/[^ ]*\.(c|h|cu):[0-9]+" "$f.report" || true)
    case $where in
        *libhdf5*|*libnetcdf*|*libgmsh*) lib=$((lib + 1)) ;;
        *) ours=$((ours + 1)); echo "FINDING in pillar: $f"; grep -m1 -E "ERROR|fuzz_import:" "$f.report" || true ;;
    esac
done
echo "fuzz_$reader: $(grep -c . "$work/fuzz.log" >/dev/null && grep -oE "#[0-9]+" "$work/fuzz.log" | tail -n1) executions; saved inputs inside libhdf5/libnetcdf/libgmsh: $lib; in pillar: $ours"
[ $ours -eq 0 ]
