#!/bin/sh
# `pillar run --input/--output` from the command line: output files do not depend on the layout,
# storage or grid; a file written with --output-inputs given back as --input reproduces its run;
# mesh runs write [nz][ncells]; bad files and paths give a message naming the dataset (or path),
# a non-zero exit, no crash and no output file.
# usage: field_io_cli.sh PILLAR TEST_FIELD_IO   (TEST_FIELD_IO --bad-files DIR / --same A B NAME...)
pillar=$1
test_field_io=$2
. "$(dirname "$0")/cli_lib.sh"

# same A B NAME... : the datasets have the same type, shape and bits
same() {
    if "$test_field_io" --same "$@" 2>"$tmp/same"; then
        echo "ok: $1 and $2 hold the same $3"
    else
        echo "FAIL: $1 and $2 differ:"; cat "$tmp/same"; fail=1
    fi
}

# no_output : nothing at $tmp/o.h5 and no temporary file next to it (removes what there is)
no_output() {
    no_file "$tmp/o.h5"
    rm -f "$tmp/o.h5"
}

run="run --backend cpu --runs 1"

# ---- the same results whatever the layout, storage and grid ----
for st in laplap fastwaves; do
    expect_output "output    $tmp/$st-rowmajor.h5:" $run --stencil $st --size 21x18x5 \
        --layout rowmajor --output "$tmp/$st-rowmajor.h5"
    for how in "--layout zcurve" "--layout random --storage nonchasing --compress" \
               "--layout zcurve-w --zcurve-w 4" "--grid regular"; do
        expect_output "PASS" $run --stencil $st --size 21x18x5 $how --output "$tmp/o.h5"
        if [ $st = laplap ]; then same "$tmp/$st-rowmajor.h5" "$tmp/o.h5" out
        else same "$tmp/$st-rowmajor.h5" "$tmp/o.h5" u_out v_out; fi
        rm -f "$tmp/o.h5"
    done
done
expect_output "in coeff out [3][320] float" $run --stencil hdiff --size 20x16x3 --precision float \
    --output "$tmp/o.h5" --output-inputs
rm -f "$tmp/o.h5"

# ---- --input: a file written with --output-inputs reproduces its run under another seed ----
expect_output "output" $run --stencil hdiff --size 20x16x3 --seed 1 --output "$tmp/s1.h5" --output-inputs
expect_output "output" $run --stencil hdiff --size 20x16x3 --seed 2 --output "$tmp/s2.h5"
expect_output "input     $tmp/s1.h5" $run --stencil hdiff --size 20x16x3 --seed 2 --layout random \
    --input "$tmp/s1.h5" --output "$tmp/again.h5"
same "$tmp/s1.h5" "$tmp/again.h5" out
if "$test_field_io" --same "$tmp/s1.h5" "$tmp/s2.h5" out 2>/dev/null; then
    echo "FAIL: seeds 1 and 2 gave the same output: the test shows nothing"; fail=1
fi
# inputs read in double feed a float run (converted)
expect_output "PASS" $run --stencil hdiff --size 20x16x3 --precision float --input "$tmp/s1.h5"

# ---- mesh runs: [nz][ncells] in the file's rows ----
expect_output "wrote" mesh generate "$tmp/sphere.h5" --kind cubed-sphere --n 6 --levels 4
expect_output "output    $tmp/sphere-out.h5: in coeff out [4][216] double" \
    $run --mesh "$tmp/sphere.h5" --stencil hdiff --output "$tmp/sphere-out.h5" --output-inputs
expect_output "PASS" $run --mesh "$tmp/sphere.h5" --stencil hdiff --layout metis \
    --input "$tmp/sphere-out.h5" --output "$tmp/o.h5"
same "$tmp/sphere-out.h5" "$tmp/o.h5" out
rm -f "$tmp/o.h5"
expect_error "expected [4][216]" $run --mesh "$tmp/sphere.h5" --input "$tmp/s1.h5"
# graphlap on a general mesh: the same file in file and METIS order, given back as --input
expect_output "wrote" mesh generate "$tmp/hex.h5" --kind hexagons --size 12x10 --levels 4
expect_output "output    $tmp/hex-out.h5: in out [4][120] double" \
    $run --mesh "$tmp/hex.h5" --stencil graphlap --output "$tmp/hex-out.h5" --output-inputs
expect_output "PASS" $run --mesh "$tmp/hex.h5" --stencil graphlap --layout metis --seed 5 \
    --input "$tmp/hex-out.h5" --output "$tmp/o.h5"
same "$tmp/hex-out.h5" "$tmp/o.h5" out
rm -f "$tmp/o.h5"

# ---- bad files: message names the dataset, non-zero exit, no output ----
bad=$tmp/bad
mkdir "$bad"
"$test_field_io" --bad-files "$bad" >"$tmp/list" || { echo "FAIL: test_field_io --bad-files"; fail=1; }
while IFS="$(printf '\t')" read -r name needle; do
    expect_error "$needle" $run --stencil hdiff --size 16x12x3 --input "$bad/$name" --output "$tmp/o.h5"
    no_output
done <"$tmp/list"
expect_error "cannot read the field file" $run --input "$tmp/none.h5" --output "$tmp/o.h5"
no_output
expect_error "cannot create a file in $tmp/no-such-dir" $run --output "$tmp/no-such-dir/o.h5"
[ -e "$tmp/no-such-dir" ] && { echo "FAIL: $tmp/no-such-dir was created"; fail=1; }
expect_error "--output-inputs adds the input fields" $run --output-inputs
expect_error "--input needs a value" run --input
expect_error "unknown flag '--output'" info --output "$tmp/o.h5"

# ---- help ----
expect_output "--input FILE" run --help
expect_output "--output FILE" run --help

exit $fail
