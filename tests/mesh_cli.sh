#!/bin/sh
# `pillar mesh` and `pillar run --mesh` from the command line: generate / info / partition print
# what they promise; runs on mesh files verify; bad files and flags give a message naming the
# dataset or flag, a non-zero exit, no crash and no partial output file.
# General meshes: generate triangles/hexagons, info shows the degree histogram, graphlap runs
# on them, the W/E/S/N stencils refuse them; the locally refined patch (hanging nodes); ICON
# import; bad general and ICON files likewise. --layout zcurve on quad and general meshes.
# usage: mesh_cli.sh PILLAR TEST_MESH TEST_GRAPH   (TEST_* --bad-files DIR write the bad files)
pillar=$1
test_mesh=$2
test_graph=$3
. "$(dirname "$0")/cli_lib.sh"

m=$tmp/m
mkdir "$m"

# ---- generate + info ----
expect_output "wrote" mesh generate "$m/sphere.h5" --kind cubed-sphere --n 12 --levels 8
expect_output "cells       864 per level, 8 levels" mesh info "$m/sphere.h5"
# --json: the same facts as one JSON object (tests/check_json.py compares them with the table)
for args in "$m/sphere.h5" "$m/sphere.h5 --layout metis"; do
    "$pillar" mesh info $args >"$tmp/table"
    "$pillar" mesh info $args --json >"$tmp/json"
    if python3 "$(dirname "$0")/check_json.py" "$tmp/table" "$tmp/json" 0 \
        'd["ok"] and d["values"]["cells"] == 864 and len(d["neighbour_tables"]) == 4 and len(d["halo"]) == 3'; then
        echo "ok: mesh info $args --json"
    else
        echo "FAIL: mesh info $args --json"; cat "$tmp/json"; fail=1
    fi
done
expect_output "neighbours  4: 864, 3: 0" mesh info "$m/sphere.h5"
expect_output "corners     8 vertices where 3 cells meet" mesh info "$m/sphere.h5"
expect_output "vertices    866 interior, 8 of them where not 4 cells meet; 0 on the boundary" \
    mesh info "$m/sphere.h5"
expect_output "lattice     144 cells where E(W(c)) != c" mesh info "$m/sphere.h5"
expect_output "0 halo cells, 864 inner" mesh info "$m/sphere.h5"
expect_output "chasing compressed" mesh info "$m/sphere.h5"
expect_output "wrote" mesh generate "$m/patch.h5" --size 40x30 --levels 6
expect_output "halo        radius 2 (laplap, hdiff): 264 halo cells, 936 inner" mesh info "$m/patch.h5"
expect_output "halo        radius 1 (fastwaves): 136 halo cells, 1064 inner" mesh info "$m/patch.h5"
expect_output "patch       regular 40x30" mesh info "$m/patch.h5"
expect_output "lattice     0 cells" mesh info "$m/patch.h5"
expect_output "neighbours  4: 1064, 3: 132, 2: 4" mesh info "$m/patch.h5"
expect_output "wrote" mesh generate "$m/shuffled.h5" --kind shuffled --size 40x30 --window 16 --levels 6
expect_output "wrote" mesh generate "$m/rotated.h5" --kind rotated --size 40x30 --window 4 --levels 6

# --flag=value as --flag value
expect_output "216 cells, 4 levels" \
    mesh generate "$m/eq.h5" --kind=cubed-sphere --n=6 --levels=4
expect_output "stored a METIS partition into 3 parts" mesh partition "$m/eq.h5" --parts=3
expect_output "layout      metis: 3 parts (stored)" mesh info --layout=metis "$m/eq.h5" --radius=1

# ---- partition ----
expect_output "stored a METIS partition into 9 parts" mesh partition "$m/sphere.h5" --parts 9
expect_output "partition   9 parts stored" mesh info "$m/sphere.h5"
# a large mesh's stored partition (a few long runs of one value) stays readable: stored plain,
# not deflated past the readers' 256:1 limit (src/io/ugrid_write.c)
"$pillar" mesh generate "$m/big.h5" --kind cubed-sphere --n 512 --levels 32 >/dev/null
expect_output "stored a METIS partition into 4 parts" mesh partition "$m/big.h5" --parts 4
expect_output "partition   4 parts stored" mesh info "$m/big.h5"
rm -f "$m/big.h5"
expect_output "metis: 9 parts (stored)" mesh info "$m/sphere.h5" --layout metis

# ---- run --mesh (CPU) ----
# fastwaves moves (u, v) in each cell's frame: refused where the frame turns
for f in sphere rotated; do
    expect_error "but the frame turns at" run --mesh "$m/$f.h5" --stencil fastwaves --backend cpu
done
for st in laplap hdiff fastwaves; do
    [ $st = fastwaves ] || expect_output "PASS against the CPU unstructured executor (same cells): bit-exact" \
        run --mesh "$m/sphere.h5" --stencil $st --backend cpu --runs 2
    expect_output "PASS against the regular grid: bit-exact" \
        run --mesh "$m/patch.h5" --stencil $st --backend cpu --runs 2 --layout metis
    expect_output "PASS against the regular grid: bit-exact" \
        run --mesh "$m/shuffled.h5" --stencil $st --backend cpu --runs 2 --storage nonchasing --compress
    [ $st = fastwaves ] || expect_output "PASS against the CPU unstructured executor" \
        run --mesh "$m/rotated.h5" --stencil $st --backend cpu --runs 2 --precision float
done
expect_output "metis order (9 parts)" run --mesh "$m/sphere.h5" --layout metis --backend cpu --runs 1
# zcurve: cells along a Morton curve of their coordinates (cube face by face on the sphere)
for st in laplap hdiff fastwaves graphlap; do
    [ $st = graphlap ] || expect_output "PASS against the regular grid: bit-exact" \
        run --mesh "$m/patch.h5" --stencil $st --backend cpu --runs 1 --layout zcurve
    [ $st = fastwaves ] || expect_output "x 8 levels, zcurve order" \
        run --mesh "$m/sphere.h5" --stencil $st --backend cpu --runs 1 --layout zcurve
done
expect_output "PASS against the regular grid: bit-exact" \
    run --mesh "$m/shuffled.h5" --backend cpu --runs 1 --layout zcurve --storage nonchasing
expect_output "zcurve: by cube face, 2D Morton order on each" mesh info "$m/sphere.h5" --layout zcurve
expect_output "zcurve: 2D Morton order of the coordinates" mesh info "$m/patch.h5" --layout zcurve
expect_output "(zcurve order): 1200 cells" \
    run --mesh "$m/patch.h5" --layout zcurve --steps 3 --backend cpu --out-of-core on --device-mem 200K
expect_output "PASS against the regular grid: bit-exact" \
    run --layout metis --layout zcurve --mesh "$m/patch.h5" --backend cpu --runs 1
# out of core in METIS order: chunks of whole stored parts, bit-exact
expect_output "4 part(s) x 1 slab(s)" run --mesh "$m/sphere.h5" --layout metis --steps 3 \
    --out-of-core on --device-mem 200K --backend cpu
expect_output "parts of whole METIS parts (9 in all)" run --mesh "$m/sphere.h5" --layout metis \
    --steps 3 --out-of-core on --device-mem 200K --backend cpu
expect_output "PASS: 0 of" run --mesh "$m/sphere.h5" --layout metis --steps 3 --out-of-core on \
    --device-mem 200K --backend cpu
expect_output "PASS" run --mesh "$m/patch.h5" --grid regular --backend cpu --runs 1
expect_output "PASS against the regular grid: bit-exact" run --size 24x20x4 --backend cpu --runs 1

# ---- general meshes, graphlap ----
expect_output "wrote" mesh generate "$m/hex.h5" --kind hexagons --size 20x16 --levels 6
expect_output "neighbours  6: 252, 5: 14, 4: 36, 3: 16, 2: 2 cells" mesh info "$m/hex.h5"
expect_output "general mesh" mesh info "$m/hex.h5"
expect_output "halo        radius 2 (graphlap): 128 halo cells, 192 inner" mesh info "$m/hex.h5"
expect_output "nonchasing compressed" mesh info "$m/hex.h5" --layout metis
expect_output "wrote" mesh generate "$m/tri.h5" --kind triangles --size 12x10 --periodic --levels 4
expect_output "neighbours  3: 240 cells" mesh info "$m/tri.h5"
expect_output "0 halo cells, 240 inner" mesh info "$m/tri.h5"
expect_output "metis: " mesh info "$m/tri.h5" --layout metis
expect_output "stored a METIS partition into 4 parts" mesh partition "$m/hex.h5" --parts 4
# a 12x12 patch with its middle 4x4 split 2x2: hanging nodes, 4x4 coarse cells with 5 neighbours
expect_output "192 cells, 4 levels" \
    mesh generate "$m/refined.h5" --kind refined --size 12x12 --refine 4 --levels 4
expect_output "neighbours  5: 16, 4: 132, 3: 40, 2: 4 cells" mesh info "$m/refined.h5"
expect_output "edges       at most 5 per cell (per-cell counts in /cell_sides)" \
    mesh info "$m/refined.h5"
expect_output "halo        radius 2 (graphlap): 80 halo cells, 112 inner" mesh info "$m/refined.h5"
expect_output "1200 cells" mesh generate "$m/refined30.h5" --kind refined --size 30x30
expect_output "zcurve order, chasing uncompressed offset table (up to 5 neighbours per cell)" \
    run --mesh "$m/refined.h5" --stencil graphlap --backend cpu --runs 1 --layout zcurve
for f in hex tri patch sphere refined refined30; do
    expect_output "PASS against the CPU unstructured executor (same cells): bit-exact" \
        run --mesh "$m/$f.h5" --stencil graphlap --backend cpu --runs 2
done
expect_output "nonchasing compressed offset table (up to 6 neighbours per cell)" \
    run --mesh "$m/hex.h5" --stencil graphlap --backend cpu --runs 1 --layout metis --precision float \
    --storage nonchasing --compress
# the lattice twin of a bounded generated mesh: neighbours by arithmetic, the same bits (a
# periodic one has none)
expect_output "wrote" mesh generate "$m/trib.h5" --kind triangles --size 9x7 --levels 3
for f in hex trib; do
    expect_output "its lattice addressed by arithmetic (regular twin)" \
        run --mesh "$m/$f.h5" --stencil graphlap --backend cpu --runs 1 --grid regular
    expect_output "PASS against the CPU unstructured executor (same cells): bit-exact" \
        run --mesh "$m/$f.h5" --stencil graphlap --backend cpu --runs 1 --grid regular
done
expect_error "laplap reads W/E/S/N relations, but this is a general mesh" \
    run --mesh "$m/hex.h5" --backend cpu
expect_error "--stencil graphlap runs on the cells of a mesh file" run --stencil graphlap
expect_error "--stencil graphlap runs on the cells of a mesh file" bench --stencil graphlap
# graphlap in time: in core, and out of core in chunks (METIS parts, fused steps, sharing)
expect_output "verify    this is the CPU in-core reference itself" \
    run --mesh "$m/hex.h5" --stencil graphlap --backend cpu --steps 3
for f in hex tri refined; do
    expect_output "PASS: 0 of" run --mesh "$m/$f.h5" --stencil graphlap --backend cpu --steps 5 \
        --fuse 2 --out-of-core on --device-mem 40K --layout metis --share
done
expect_output "PASS: 0 of" run --mesh "$m/hex.h5" --stencil graphlap --backend cpu --steps 4 \
    --out-of-core on --device-mem 60K --layout zcurve --precision float
# K steps per launch on balls grown through the neighbour lists (access/gtiles.cu's CPU twin)
for f in hex tri refined; do
    expect_output "PASS: 0 of" run --mesh "$m/$f.h5" --stencil graphlap --backend cpu --steps 5 \
        --fuse 3 --kernel-steps 2 --out-of-core on --device-mem 80K --layout metis
done
expect_output "PASS: 0 of" run --mesh "$m/hex.h5" --stencil graphlap --backend cpu --steps 4 \
    --kernel-steps 3
expect_error "fluxdiff has no K-step kernel: the balls of a K-step launch stage the state only" \
    run --mesh "$m/hex.h5" --stencil fluxdiff --backend cpu --steps 4 --kernel-steps 2
expect_error "--access graph-twopass has no kernels for laplap" \
    run --size 32x32x4 --stencil laplap --backend cpu --steps 2 --access graph-twopass
expect_error "--access graph-twopass runs one step per launch" \
    run --mesh "$m/hex.h5" --stencil graphlap --backend cpu --steps 4 --access graph-twopass \
    --kernel-steps 2
# fluxdiff: coefficients from the coordinates, every mesh kind; iterated in core and out of core
# (each chunk with its cells' coefficients), bit for bit the CPU in-core iteration
for f in hex trib sphere refined; do
    expect_output "PASS against the CPU unstructured executor (same cells): bit-exact" \
        run --mesh "$m/$f.h5" --stencil fluxdiff --backend cpu --runs 1 --storage nonchasing
done
expect_output "verify    this is the CPU in-core reference itself" \
    run --mesh "$m/hex.h5" --stencil fluxdiff --backend cpu --steps 2
for f in hex tri trib sphere refined patch; do
    expect_output "PASS: 0 of" run --mesh "$m/$f.h5" --stencil fluxdiff --backend cpu --steps 7 \
        --fuse 3 --out-of-core on --device-mem 40K --layout metis --share
done
expect_output "PASS: 0 of" run --mesh "$m/refined.h5" --stencil fluxdiff --backend cpu --steps 5 \
    --fuse 2 --out-of-core on --device-mem 30K --precision float
for f in patch tri; do
    expect_error "graphlap has a regular twin on bounded hexagon and triangle meshes" \
        run --mesh "$m/$f.h5" --stencil graphlap --grid regular --backend cpu
done
expect_error "laplap reads W/E/S/N relations, but this is a general mesh" \
    bench --mesh "$m/hex.h5" --stencil laplap
expect_error "--size 4x3: periodic hexagons need at least 3x4 cells, an even number of rows" \
    mesh generate "$m/x.h5" --kind hexagons --size 4x3 --periodic
expect_error "--periodic goes with --kind triangles or hexagons" mesh generate "$m/x.h5" --periodic
expect_error "--refine goes with --kind refined" mesh generate "$m/x.h5" --kind hexagons --refine 2
expect_error "--refine 13: the refined square must be from 1 to 12 cells wide" \
    mesh generate "$m/x.h5" --kind refined --size 12x20 --refine 13
expect_error "--refine '0'" mesh generate "$m/x.h5" --kind refined --refine 0
expect_error "laplap reads W/E/S/N relations, but this is a general mesh" \
    run --mesh "$m/refined.h5" --backend cpu
no_file "$m/x.h5"

# ---- ICON import ----
icon=$tmp/icon
mkdir "$icon"
"$test_graph" --bad-files "$icon" >"$tmp/glist" || { echo "FAIL: test_graph --bad-files"; fail=1; }
expect_output "wrote $m/icon.h5: icon: 60 triangles" mesh import "$icon/grid.nc" "$m/icon.h5" --levels 4
expect_output "cells       60 per level, 4 levels" mesh info "$m/icon.h5"
expect_output "PASS" run --mesh "$m/icon.h5" --stencil graphlap --backend cpu --runs 1
expect_output "64 levels" mesh import "$icon/grid.nc" "$m/icon64.h5"
expect_output "; 60 cells, 3 levels" mesh import --levels=3 "$icon/grid.nc" "$m/icon3.h5"
printf 'neither netCDF nor Gmsh\n' >"$icon/grid.txt"
expect_error "which format?" mesh import "$icon/grid.txt" "$m/x.h5"
expect_error "IN and OUT files" mesh import "$icon/grid.nc"
expect_error "cannot read the mesh to import: no such file" mesh import "$tmp/none.nc" "$m/x.h5"
while IFS="$(printf '\t')" read -r kind name needle; do
    if [ "$kind" = icon ]; then # (a file without neighbor_cell_index is no ICON file by content)
        expect_error "$needle" mesh import "$icon/$name" "$m/x.h5" --format icon
        no_file "$m/x.h5"
    else
        expect_error "$needle" mesh info "$icon/$name"
        expect_error "$needle" run --mesh "$icon/$name" --stencil graphlap --backend cpu
    fi
done <"$tmp/glist"

# ---- bad flags ----
expect_error "--kind 'hexagon': choose regular, cubed-sphere, shuffled, rotated, triangles, hexagons or refined" \
    mesh generate "$m/x.h5" --kind hexagon
no_file "$m/x.h5"
expect_error "which FILE" mesh generate --kind regular
expect_error "--size '0x4'" mesh generate "$m/x.h5" --size 0x4
expect_error "--n '0'" mesh generate "$m/x.h5" --kind cubed-sphere --n 0
expect_error "--parts K is required" mesh partition "$m/sphere.h5"
expect_error "--parts 100000" mesh partition "$m/sphere.h5" --parts 100000
expect_error "--bogus" mesh info "$m/sphere.h5" --bogus
expect_error "unknown subcommand 'frob'" mesh frob
expect_error "--layout metis orders the cells of a mesh file" run --layout metis
expect_error "--layout metis orders the cells of a mesh file" info --layout metis
expect_error "--size does not go with --mesh" run --mesh "$m/patch.h5" --size 8x8x8
expect_error "--layout rowmajor needs a regular grid to order; with --mesh choose file, metis or zcurve" \
    run --mesh "$m/patch.h5" --layout rowmajor
expect_error "--layout 'peano': choose file, metis or zcurve" mesh info "$m/patch.h5" --layout peano
expect_error "not a regular patch" run --mesh "$m/sphere.h5" --grid regular --backend cpu
expect_error "cannot create" mesh generate "$tmp/no-such-dir/x.h5"
no_file "$tmp/no-such-dir/x.h5"

# ---- bad files: message names the dataset and the first bad cell; no crash ----
bad=$tmp/bad
mkdir "$bad"
"$test_mesh" --bad-files "$bad" >"$tmp/list" || { echo "FAIL: test_mesh --bad-files"; fail=1; }
while IFS="$(printf '\t')" read -r name needle; do
    expect_error "$needle" mesh info "$bad/$name"
    expect_error "$needle" run --mesh "$bad/$name" --backend cpu
done <"$tmp/list"
# a failed partition leaves the file as it was
cp "$bad/asymmetric.h5" "$tmp/asym.h5"
expect_error "asymmetric at cell 1" mesh partition "$tmp/asym.h5" --parts 2
nocoord="no-coordinates.h5: --layout zcurve orders the cells by their coordinates, but the file has no /coordinates"
expect_error "$nocoord" run --mesh "$bad/no-coordinates.h5" --layout zcurve --backend cpu
expect_error "$nocoord" mesh info "$bad/no-coordinates.h5" --layout zcurve
expect_output "PASS" run --mesh "$bad/no-coordinates.h5" --layout metis --backend cpu --runs 1
cmp -s "$bad/asymmetric.h5" "$tmp/asym.h5" || { echo "FAIL: partition changed a bad file"; fail=1; }
printf 'not hdf5\n' >"$tmp/text.h5"
expect_error "not an HDF5 file" mesh info "$tmp/text.h5"
expect_error "cannot read" mesh info "$tmp/none.h5"
expect_output "wrote" mesh generate "$m/tiny.h5" --size 4x4 --levels 2
expect_error "no inner cells for laplap" run --mesh "$m/tiny.h5" --backend cpu
expect_output "wrote" mesh generate "$m/flat.h5" --size 9x9 --levels 1
expect_error "needs at least 2 levels" run --mesh "$m/flat.h5" --stencil fastwaves --backend cpu

# ---- help ----
for sub in "" generate import info partition; do
    expect_output "usage: pillar mesh" mesh $sub --help
done
expect_output "--mesh FILE" run --help
expect_output "mesh     mesh files" help

exit $fail
