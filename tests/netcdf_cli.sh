#!/bin/sh
# pillar's netCDF-4 outputs opened with xarray (tests/check_netcdf.py): named dimensions, the
# UGRID view and values against references computed in Python; a field file written by xarray
# is read back as --input; tools/plot-field draws an output. Skipped (exit 77) only when no
# Python with xarray and netCDF4 is found.
# With uxarray (REPO_ROOT/.venv-uxarray, made by .ci/run, or the system's Python), every mesh
# kind `mesh generate` writes, a partitioned mesh, and every kind of field file (outputs, with
# inputs, a state after --steps, a time axis, an emulated --size grid) are opened with it
# (tests/check_uxarray.py); PILLAR_UXARRAY=1 makes its absence a failure.
# usage: netcdf_cli.sh PILLAR REPO_ROOT
pillar=$1
root=$2
. "$(dirname "$0")/cli_lib.sh"

py=
for cand in /usr/bin/python3 python3; do
    if "$cand" -c 'import xarray, netCDF4' >/dev/null 2>&1; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "SKIP: no python3 with xarray and netCDF4"; exit 77; }

expect_output "wrote" mesh generate "$tmp/patch.nc" --size 9x7 --levels 3
expect_output "wrote" mesh generate "$tmp/sphere.nc" --kind cubed-sphere --n 3 --levels 2
expect_output "output    $tmp/mesh.nc: in out [3][63] double" \
    run --mesh "$tmp/patch.nc" --stencil laplap --backend cpu --runs 1 --output "$tmp/mesh.nc" --output-inputs
expect_output "output    $tmp/emu.nc: in out [4][120] double" \
    run --size 12x10x4 --stencil laplap --backend cpu --runs 1 --output "$tmp/emu.nc" --output-inputs
"$py" "$root/tests/check_netcdf.py" "$tmp" write-input || fail=1
expect_output "output    $tmp/again.nc: out [4][120]" \
    run --size 12x10x4 --stencil laplap --backend cpu --runs 1 --input "$tmp/start.nc" --output "$tmp/again.nc"
# a time axis of states (--output-every), the last state alone, and a run that goes on from the axis
expect_output "output    $tmp/series.nc: in [3][3][63] double, the states after steps 2, 4, 5" \
    run --mesh "$tmp/patch.nc" --stencil laplap --backend cpu --steps 5 --output-every 2 \
    --input "$tmp/mesh.nc" --output "$tmp/series.nc"
expect_output "the state after 5 steps" run --mesh "$tmp/patch.nc" --stencil laplap --backend cpu \
    --steps 5 --input "$tmp/mesh.nc" --output "$tmp/last.nc"
expect_output "the state after 2 steps" run --mesh "$tmp/patch.nc" --stencil laplap --backend cpu \
    --steps 2 --input "$tmp/series.nc" --output "$tmp/cont.nc"
expect_error "give --steps" run --mesh "$tmp/patch.nc" --output-every 2 --output "$tmp/x.nc"
expect_error "N is more than T" run --mesh "$tmp/patch.nc" --steps 2 --output-every 3 \
    --output "$tmp/x.nc"
expect_error "give --output" run --mesh "$tmp/patch.nc" --steps 2 --output-every 1
"$py" "$root/tests/check_netcdf.py" "$tmp" check || fail=1

uxpy=
for cand in "$root/.venv-uxarray/bin/python" /usr/bin/python3 python3; do
    if "$cand" -c 'import uxarray' >/dev/null 2>&1; then uxpy=$cand; break; fi
done
if [ -n "$uxpy" ]; then
    ux() { "$uxpy" "$root/tests/check_uxarray.py" "$@" || fail=1; }
    ux "$tmp/patch.nc" "$tmp/mesh.nc" 63 80
    ux "$tmp/mesh.nc" "$tmp/mesh.nc" 63 80         # a field file carries its grid
    ux "$tmp/emu.nc" "$tmp/emu.nc" 120 143         # the emulated 12x10 grid's patch
    ux "$tmp/patch.nc" "$tmp/series.nc" 63 80      # a time axis of states
    ux "$tmp/patch.nc" "$tmp/last.nc" 63 80        # the state after --steps
    ux "$tmp/sphere.nc" - 54 56                    # 6n^2 cells, 6n^2 + 2 nodes
    # every kind mesh generate makes, NCELLS NNODES counted here ('-': as the file says), and a
    # graphlap output on each
    while read -r name cells nodes args; do
        "$pillar" mesh generate "$tmp/$name.nc" --levels 2 $args >/dev/null &&
            "$pillar" run --mesh "$tmp/$name.nc" --stencil graphlap --backend cpu --runs 1 \
                --output "$tmp/$name-out.nc" --output-inputs >/dev/null ||
            { echo "FAIL: mesh generate $args, or graphlap on it"; fail=1; continue; }
        ux "$tmp/$name.nc" "$tmp/$name-out.nc" "$cells" "$nodes"
    done <<KINDS
regular 30 42 --size 6x5
shuffled 64 81 --kind shuffled --size 8x8
rotated 64 81 --kind rotated --size 8x8 --window 4
triangles 24 20 --kind triangles --size 4x3
hexagons 36 96 --kind hexagons --size 6x6
refined 48 65 --kind refined --size 6x6 --refine 2
tri-torus 32 - --kind triangles --size 4x4 --periodic
hex-torus 24 - --kind hexagons --size 4x6 --periodic
cubed 96 98 --kind cubed-sphere --n 4
KINDS
    "$pillar" mesh partition "$tmp/hexagons.nc" --parts 3 >/dev/null && ux "$tmp/hexagons.nc" - 36 96
elif [ -n "${PILLAR_UXARRAY:-}" ]; then
    echo "FAIL: PILLAR_UXARRAY is set but no Python imports uxarray"; fail=1
else
    echo "note: uxarray not found, its checks were not run"
fi

if "$py" -c 'import matplotlib' >/dev/null 2>&1; then
    if "$py" "$root/tools/plot-field" "$tmp/mesh.nc" "$tmp/mesh.png" --level 1 >/dev/null &&
       [ -s "$tmp/mesh.png" ]; then
        echo "ok: tools/plot-field drew $tmp/mesh.png"
    else
        echo "FAIL: tools/plot-field drew nothing"; fail=1
    fi
    "$py" "$root/tools/plot-field" "$tmp/mesh.nc" "$tmp/x.png" --level 9 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && grep -q "the file has 3 levels" "$tmp/err" ||
        { echo "FAIL: plot-field --level 9: exit $rc, $(cat "$tmp/err")"; fail=1; }
fi
exit $fail
