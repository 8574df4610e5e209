#!/bin/sh
# `pillar run --input/--output` from the command line: output files do not depend on the layout,
# storage or grid; a file written with --output-inputs given back as --input reproduces its run;
# mesh runs write [nz][ncells]; bad files and paths give a message naming the dataset (or path),
# a non-zero exit, no crash and no output file.
# usage: field_io_cli.sh PILLAR TEST_FIELD_IO   (TEST_FIELD_IO --bad-files DIR / --same A B NAME...)
pillar=$1
test_field_io=$2
. "$(dirname "$0")/cli_lib.sh"

# field_check MODE ARGS... : test_field_io MODE ARGS... exits 0 (else its message is shown)
field_check() {
    mode=$1; shift
    if "$test_field_io" "$mode" "$@" 2>"$tmp/check"; then
        echo "ok: test_field_io $mode $*"
    else
        echo "FAIL: test_field_io $mode $*:"; cat "$tmp/check"; fail=1
    fi
}

# same A B NAME... : the datasets have the same type, shape and bits
same() { field_check --same "$@"; }

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

# ---- iterated runs: --output holds the state after the last step, --input is the first ----
# iterated FILE T STENCIL PRECISION GRID [INPUT] : FILE holds what T steps on the regular grid
# give, folded by test_field_io itself (cpu_run_regular, not src/exec/iterate.c), bit for bit
iterated() { field_check --iterate "$@"; }
state_of() {
    case $1 in laplap|lap) echo in ;; hdiff) echo in coeff ;; *) echo u_pos v_pos rho hhl ;; esac
}
it="run --backend cpu --size 24x20x6"
for st in laplap hdiff fastwaves lap; do
    for p in double float; do
        expect_output "in core" $it --stencil $st --precision $p --steps 3 --output "$tmp/it3.h5"
        grep -qF "the state after 3 steps" "$tmp/out" || { echo "FAIL: no output line"; fail=1; }
        iterated "$tmp/it3.h5" 3 $st $p 24x20x6
        # 1 step, then 2 from its output: the 3-step state, whatever the layout and storage
        expect_output "the state after 1 step" $it --stencil $st --precision $p --steps 1 \
            --output "$tmp/it1.h5" --layout random
        expect_output "input     $tmp/it1.h5" $it --stencil $st --precision $p --steps 2 \
            --input "$tmp/it1.h5" --output "$tmp/it12.h5" --storage nonchasing --compress
        same "$tmp/it3.h5" "$tmp/it12.h5" $(state_of $st)
        # out of core on the CPU (chunks under a budget, 2 steps per pass, K = 2 per launch)
        expect_output "out of core" $it --stencil $st --precision $p --steps 3 --fuse 2 \
            --out-of-core on --device-mem 100K --output "$tmp/ooc3.h5"
        same "$tmp/it3.h5" "$tmp/ooc3.h5" $(state_of $st)
        rm -f "$tmp/it3.h5" "$tmp/it1.h5" "$tmp/it12.h5" "$tmp/ooc3.h5"
    done
done
expect_output "2 steps per kernel launch" run --backend cpu --size 24x20x6 --steps 4 --kernel-steps 2 \
    --out-of-core on --device-mem 100K --output "$tmp/k2.h5"
iterated "$tmp/k2.h5" 4 laplap double 24x20x6
# from a file of a single run (--output-inputs), in float from double inputs
expect_output "the state after 5 steps" run --backend cpu --stencil hdiff --size 20x16x3 --steps 5 \
    --input "$tmp/s1.h5" --output "$tmp/it5.h5" --output-inputs
iterated "$tmp/it5.h5" 5 hdiff double 20x16x3 "$tmp/s1.h5"
# on a mesh file (a regular patch: checked against its regular grid), in file, METIS and
# z-curve order, in core and out of core
expect_output "wrote" mesh generate "$tmp/patch.h5" --size 22x18 --levels 5
expect_output "the state after 4 steps" run --backend cpu --mesh "$tmp/patch.h5" --steps 4 \
    --output "$tmp/mesh4.h5"
iterated "$tmp/mesh4.h5" 4 laplap double "$tmp/patch.h5"
expect_output "in [5][396] double, the state after 4 steps" run --backend cpu \
    --mesh "$tmp/patch.h5" --steps 4 --layout metis --out-of-core on --device-mem 60K \
    --output "$tmp/o.h5"
same "$tmp/mesh4.h5" "$tmp/o.h5" in
rm -f "$tmp/o.h5"
expect_output "the state after 2 steps" run --backend cpu --mesh "$tmp/patch.h5" --steps 2 --layout zcurve \
    --output "$tmp/mesh2.h5"
expect_output "input     $tmp/mesh2.h5" run --backend cpu --mesh "$tmp/patch.h5" --steps 2 --input "$tmp/mesh2.h5" \
    --output "$tmp/o.h5"
same "$tmp/mesh4.h5" "$tmp/o.h5" in
rm -f "$tmp/o.h5"
# an iterated run's bad --input or --output path: exit 1, nothing written
expect_error "cannot read the field file" run --backend cpu --steps 2 --input "$tmp/none.h5" \
    --output "$tmp/o.h5"
no_output
expect_error "cannot create a file in $tmp/no-such-dir" run --backend cpu --steps 2 \
    --output "$tmp/no-such-dir/o.h5"

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
