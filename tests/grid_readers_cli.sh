#!/bin/sh
# grid_readers_cli.sh PILLAR SRCDIR — grid files of the readers that derive or merge
# (docs/mesh-formats-in.md), made by tests/make_grids.py (netCDF4, numpy) from the samples in
# data/, which tools/make-samples.py builds from their construction:
#  1. ICON without neighbor_cell_index and MPAS without cellsOnCell: the neighbours derived from
#     the cells' vertices give the mesh the file's own table gives, byte for byte, and graphlap
#     the same output;
#  2. ESMF unstructured grids (1- and 0-based, spherical and planar, mixed polygons padded with
#     -1) and CF cell bounds (SCRIP's corners; FESOM's padding by the last vertex) give the
#     neighbours and corners of the same grid read from its own format, and bad ones are
#     refused naming the variable and the first bad entry;
#  3. SCRIP files that made the corner merging quadratic import within 5 s, correctly, and the
#     corners of a SCRIP grid moved by less than the tolerance, in chains or apart merge into the
#     nodes a brute-force merging of every pair gives;
#  4. MPAS positions that are not finite are refused naming the variable and the index;
#  5. run --mesh and mesh info read every grid file directly, with import's --levels and
#     --format: what they print and graphlap's output are those of the imported mesh file.
# Skipped (77) where python3 with netCDF4 and numpy, or ncdump, is missing.
pillar=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"
py=/usr/bin/python3
[ -x $py ] || py=python3
$py -c "import netCDF4, numpy" 2>/dev/null && command -v ncdump >/dev/null ||
    { echo "SKIP: python3 with netCDF4 and numpy, or ncdump (netcdf-bin), missing"; exit 77; }
data=$src/data
make="$py $src/tests/make_grids.py"

# the variables of a mesh file as text, without its /kind (which names the source file)
dump() { ncdump "$1" | sed 1d | grep -v ':kind = '; }
# variable $2 of mesh file $1: its values only
values() { ncdump -v "$2" "$1" | sed -n '/^data:/,$p'; }
# same_vars A B WHAT VAR...: the values of VAR... agree in mesh files A and B
same_vars() {
    a=$1; b=$2; what=$3; shift 3
    for v in "$@"; do
        if values "$a" "$v" >"$tmp/va" && values "$b" "$v" >"$tmp/vb" && cmp -s "$tmp/va" "$tmp/vb"
        then echo "ok: $what: the same $v"
        else echo "FAIL: $what: $v differs"; fail=1
        fi
    done
}
# graphlap's output on mesh file $1 into $2, as text without the names of the files
graphlap() {
    "$pillar" run --mesh "$1" --stencil graphlap --backend cpu --runs 1 --output "$2" \
        >"$tmp/run.out" 2>&1 || { echo "FAIL: graphlap on $1"; cat "$tmp/run.out"; fail=1; }
    ncdump "$2" | sed 1d | grep -v "\.h5\|\.nc\"" >"$2.txt"
}

# ---- 1. neighbours derived from the vertices ----
for case in icon-classic:neighbor_cell_index mpas-sphere:cellsOnCell mpas-coast:cellsOnCell; do
    name=${case%%:*}; var=${case##*:}
    $make copy "$data/$name.nc" "$tmp/$name-derived.nc" drop="$var" ||
        { echo "FAIL: make_grids.py copy $name"; fail=1; }
    expect_output "from $tmp/$name-derived.nc" \
        mesh import "$tmp/$name-derived.nc" "$tmp/$name-derived.h5" --levels 3
    expect_output "wrote" mesh import "$data/$name.nc" "$tmp/$name.h5" --levels 3
    dump "$tmp/$name.h5" >"$tmp/a.txt"; dump "$tmp/$name-derived.h5" >"$tmp/b.txt"
    if cmp -s "$tmp/a.txt" "$tmp/b.txt"; then
        echo "ok: $name without $var: the mesh its $var gives"
    else
        echo "FAIL: $name without $var: another mesh than its $var gives"; fail=1
        diff "$tmp/a.txt" "$tmp/b.txt" | head -5
    fi
    graphlap "$tmp/$name.h5" "$tmp/q1.nc"; graphlap "$tmp/$name-derived.h5" "$tmp/q2.nc"
    cmp -s "$tmp/q1.nc.txt" "$tmp/q2.nc.txt" && echo "ok: $name without $var: the same graphlap" ||
        { echo "FAIL: $name without $var: graphlap differs"; fail=1; }
done
$make copy "$data/mpas-sphere.nc" "$tmp/mpas-bare.nc" drop=cellsOnCell,verticesOnCell
expect_error "variable cellsOnCell is missing, and so is verticesOnCell" \
    mesh import "$tmp/mpas-bare.nc" "$tmp/x.h5" --format mpas
$make copy "$data/icon-classic.nc" "$tmp/icon-bare.nc" drop=neighbor_cell_index,vertex_of_cell
expect_error "variable neighbor_cell_index is missing, and so is vertex_of_cell" \
    mesh import "$tmp/icon-bare.nc" "$tmp/x.h5" --format icon
no_file "$tmp/x.h5"

# ---- 2. ESMF and CF cell bounds: the grids of the samples, in these formats ----
expect_output "wrote" mesh import "$data/icon-classic.nc" "$tmp/icon.h5" --levels 3
for start in 1 0; do
    $make esmf-from-icon "$data/icon-classic.nc" "$tmp/esmf$start.nc" start=$start
    expect_output "esmf: 80 elements from $tmp/esmf$start.nc" \
        mesh import "$tmp/esmf$start.nc" "$tmp/esmf$start.h5" --levels 3
    same_vars "$tmp/icon.h5" "$tmp/esmf$start.h5" "ESMF (start_index $start) of icon-classic" \
        cell_neighbours cell_nodes
done
# planar, triangles and quadrangles padded with -1; no centerCoords: the mean of the nodes
$make esmf-from-ugrid "$data/ugrid-mixed.nc" "$tmp/esmf-mixed.nc"
expect_output "neighbours 4: 16 3: 36 2: 12" mesh import "$tmp/esmf-mixed.nc" "$tmp/em.h5"
expect_output "coordinates 2 per cell" mesh info "$tmp/em.h5"
values "$tmp/em.h5" coordinates | grep -q "^  666.666666666667, 333.333333333333," &&
    echo "ok: ESMF without centerCoords: a triangle's centre is the mean of its nodes" ||
    { echo "FAIL: ESMF centres"; values "$tmp/em.h5" coordinates | head -5; fail=1; }
# SCRIP's 12 x 6 grid as CF bounds: SCRIP's mesh
$make bounds-from-scrip "$data/scrip-latlon.nc" "$tmp/bounds.nc"
expect_output "bounds: 72 cells from $tmp/bounds.nc" mesh import "$tmp/bounds.nc" "$tmp/b.h5"
expect_output "wrote" mesh import "$data/scrip-latlon.nc" "$tmp/s.h5"
same_vars "$tmp/s.h5" "$tmp/b.h5" "CF bounds of scrip-latlon" \
    cell_neighbours cell_nodes node_coordinates coordinates
# the MPAS mesh's cells padded FESOM's way: 12 pentagons, 80 hexagons, 180 vertices, closed
$make bounds-from-mpas "$data/mpas-sphere.nc" "$tmp/fesom.nc"
expect_output "neighbours 6: 80 5: 12" mesh import "$tmp/fesom.nc" "$tmp/f.h5"
expect_output "nodes       180, 3 coordinates" mesh info "$tmp/f.h5"
expect_output "0 halo cells, 92 inner" mesh info "$tmp/f.h5"
# bad ESMF and CF-bounds files: refused naming the variable and the first bad entry
while IFS='|' read -r what src args needle; do
    case $what in ''|\#*) continue ;; esac
    eval "$make copy $tmp/$src $tmp/bad.nc $args"
    expect_error "$needle" mesh import "$tmp/bad.nc" "$tmp/x.h5"
    no_file "$tmp/x.h5"
done <<EOF
start_index 2|esmf1.nc|vatt=elementConn:start_index:2|elementConn: attribute start_index must be 0 or 1
a node past the last|esmf1.nc|set=elementConn:7:43|elementConn[2][1] = 43 is out of range (1..42
a node 0 counted from 1|esmf1.nc|set=elementConn:0:0|elementConn[0][0] = 0 is out of range (1..42
the fill value among the nodes|esmf-mixed.nc|set=elementConn:2:-1|elementConn[0][2] holds the fill value, but element 0 has 3 nodes
too few nodes|esmf1.nc|set=numElementConn:5:2|numElementConn[5] = 2 is out of range (3..maxNodePElement = 3)
a node not a position|esmf1.nc|set=nodeCoords:9:nan|nodeCoords (column 1, latitude)[4] = nan is not a latitude
a centre beyond the pole|esmf1.nc|set=centerCoords:1:91|centerCoords (column 1, latitude)[0] = 91 is not a latitude
a planar node not finite|esmf-mixed.nc|set=nodeCoords:3:inf|nodeCoords[1][1] = inf is not a finite position
an element twice|esmf1.nc|set=elementConn:3:1 set=elementConn:4:2 set=elementConn:5:3 set=elementConn:0:1 set=elementConn:1:2 set=elementConn:2:3|elementConn: cell 0: its edge between nodes 0 and 1 is shared by
a corner not a latitude|bounds.nc|set=lat_bnds:5:nan|lat_bnds[5] = nan is not a latitude in degrees
EOF
$make copy "$tmp/esmf1.nc" "$tmp/bad.nc" drop=numElementConn
expect_error "variable numElementConn is missing" mesh import "$tmp/bad.nc" "$tmp/x.h5" --format esmf
$make copy "$tmp/bounds.nc" "$tmp/bad.nc" drop=lat_bnds
expect_error "no variables of cell centres with bounds" mesh import "$tmp/bad.nc" "$tmp/x.h5" --format bounds
$py - "$tmp/rect.nc" <<'PY'
import sys, netCDF4, numpy as np
with netCDF4.Dataset(sys.argv[1], "w") as f:
    f.createDimension("nv", 2)
    for axis, n, units in (("lon", 4, "degrees_east"), ("lat", 3, "degrees_north")):
        f.createDimension(axis, n)
        v = f.createVariable(axis, "f8", (axis,))
        v.units, v.bounds = units, axis + "_bnds"
        v[:] = np.arange(n) * 10.0
        f.createVariable(axis + "_bnds", "f8", (axis, "nv"))[:] = 0
PY
expect_error "lie on two dimensions (a rectilinear grid)" mesh import "$tmp/rect.nc" "$tmp/x.h5" --format bounds
$py - "$tmp/esmf3d.nc" <<'PY'
import sys, netCDF4
with netCDF4.Dataset(sys.argv[1], "w") as f:
    for name, n in (("nodeCount", 4), ("elementCount", 1), ("maxNodePElement", 4), ("coordDim", 3)):
        f.createDimension(name, n)
    f.createVariable("nodeCoords", "f8", ("nodeCount", "coordDim"))[:] = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    f.createVariable("elementConn", "i4", ("elementCount", "maxNodePElement"))[:] = [[1, 2, 3, 4]]
    f.createVariable("numElementConn", "i4", ("elementCount",))[:] = [4]
PY
expect_error "nodeCoords has coordDim = 3: a mesh of volumes" mesh import "$tmp/esmf3d.nc" "$tmp/x.h5"
no_file "$tmp/x.h5"

# ---- 3. SCRIP's corner merging in O(n log n): 5 s of CPU time at most ----
# (the kernel stops pillar after 5 s of CPU, SIGXCPU: a loaded machine may take longer on the
# clock; 60 s of it end a hang. A sanitizer build runs 2-3x the CPU time of a release build:
# PILLAR_TEST_CPU_SCALE, set by tests/CMakeLists.txt there, scales the limit. Passive OpenMP
# threads: a thread spinning for a descheduled sibling on a loaded machine burns CPU time that
# is not the algorithm's.)
cpu_s=$((5 * ${PILLAR_TEST_CPU_SCALE:-1}))
in_5s() { (ulimit -t $cpu_s; OMP_WAIT_POLICY=passive exec timeout 60 "$pillar" "$@") >"$tmp/out" 2>"$tmp/err"; }
$make scrip-identical "$tmp/ident.nc"
$make scrip-thin "$tmp/thin.nc"
in_5s mesh import "$tmp/ident.nc" "$tmp/x.h5"; rc=$?
[ $rc -eq 1 ] && grep -q "its edge between nodes 0 and 1 is shared by 500000 cells" "$tmp/err" &&
    echo "ok: 500000 cells with identical corners: refused within $cpu_s s of CPU" ||
    { echo "FAIL: 500000 identical cells: exit $rc (152, 137, 124: more than $cpu_s s)"; cat "$tmp/err"; fail=1; }
no_file "$tmp/x.h5"
in_5s mesh import "$tmp/thin.nc" "$tmp/thin.h5" --levels 2; rc=$?
[ $rc -eq 0 ] && grep -q "neighbours 2: 299998 1: 2" "$tmp/out" &&
    echo "ok: 300000 thin cells on a meridian: imported within $cpu_s s of CPU" ||
    { echo "FAIL: 300000 thin cells: exit $rc (152, 137, 124: more than $cpu_s s)"; cat "$tmp/out" "$tmp/err"; fail=1; }
# each thin cell's neighbours are the cells before and after it
$py - "$tmp/thin.h5" <<'EOF' || fail=1
import sys, netCDF4, numpy as np
with netCDF4.Dataset(sys.argv[1]) as f:
    f.set_auto_mask(False)
    nb = np.sort(np.array(f["cell_neighbours"][:]), axis=1)[:, -2:]
n = len(nb)
i = np.arange(n)
want = np.stack([np.where(i > 0, i - 1, -1), np.where(i < n - 1, i + 1, -1)], axis=1)
want = np.sort(want, axis=1)
ok = (nb == want).all()
print(("ok" if ok else "FAIL") + ": the thin cells' neighbours are the cells before and after")
sys.exit(0 if ok else 1)
EOF

# corners moved by less than the tolerance, in chains, or apart: the nodes brute force gives
for seed in 1 2 3; do
    $make scrip-jitter "$tmp/jitter.nc" $seed
    expect_output "scrip: 72 cells" mesh import "$tmp/jitter.nc" "$tmp/jitter.h5"
    $make check-merge "$tmp/jitter.nc" "$tmp/jitter.h5" || fail=1
done

# ---- 4. MPAS positions that are not finite ----
while IFS='|' read -r what args needle; do
    case $what in ''|\#*) continue ;; esac
    eval "$make copy $data/mpas-sphere.nc $tmp/bad.nc $args"
    expect_error "$needle" mesh import "$tmp/bad.nc" "$tmp/x.h5"
    no_file "$tmp/x.h5"
done <<EOF
xCell on a plane|gatt=on_a_sphere:NO set=xCell:7:inf|xCell[7] = inf is not a finite position
yCell on a plane|gatt=on_a_sphere:NO set=yCell:0:nan|yCell[0] = nan is not a finite position
zCell without lonCell|drop=lonCell,latCell set=zCell:91:-inf|zCell[91] = -inf is not a finite position
xVertex without lonVertex|drop=lonVertex,latVertex set=xVertex:5:nan|xVertex[5] = nan is not a finite position
yVertex on a plane|gatt=on_a_sphere:NO set=yVertex:179:nan|yVertex[179] = nan is not a finite position
lonCell|set=lonCell:3:nan|lonCell[3] = nan is not a longitude
EOF

# ---- 5. grid files read directly ----
for name in icon-classic mpas-coast scrip-latlon; do
    "$pillar" mesh import "$data/$name.nc" "$tmp/$name-64.h5" >/dev/null
    "$pillar" mesh info "$tmp/$name-64.h5" | sed 1d >"$tmp/a.txt"
    "$pillar" mesh info "$data/$name.nc" >"$tmp/b.out" 2>&1 || { echo "FAIL: mesh info $name.nc"; fail=1; }
    sed 1d "$tmp/b.out" | cmp -s - "$tmp/a.txt" &&
        echo "ok: mesh info $name.nc prints what it prints of the imported file" ||
        { echo "FAIL: mesh info $name.nc differs from the imported file's"; cat "$tmp/b.out"; fail=1; }
    graphlap "$tmp/$name-64.h5" "$tmp/q1.nc"; graphlap "$data/$name.nc" "$tmp/q2.nc"
    cmp -s "$tmp/q1.nc.txt" "$tmp/q2.nc.txt" && grep -q "cells = " "$tmp/q1.nc.txt" &&
        echo "ok: run --mesh $name.nc: graphlap's output on the imported file" ||
        { echo "FAIL: run --mesh $name.nc: graphlap differs"; fail=1; }
done
expect_output "x 3 levels" run --mesh "$data/ugrid-sphere.nc" --levels 3 --stencil graphlap \
    --backend cpu --runs 1
expect_output "cells       80 per level, 7 levels" mesh info "$data/icon-64bit.nc" --levels=7
expect_output "7 levels" mesh info "$tmp/icon-classic-64.h5" --levels 7
expect_output "ugrid: 80 faces" mesh info "$data/ugrid-sphere.nc" --format ugrid
expect_error "no UGRID 2D mesh" mesh info "$data/icon-cdf5.nc" --format ugrid
printf 'not a grid\n' >"$tmp/text.h5"
for cmd in "mesh info" "run --mesh"; do
    expect_error "text.h5: not an HDF5 file; nor is it a grid file of another tool's format: which format?" \
        $cmd "$tmp/text.h5"
done
"$pillar" run --levels 3 --stencil graphlap >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && echo "ok: run --levels without --mesh: exit 2" ||
    { echo "FAIL: run --levels without --mesh: exit $rc"; fail=1; }
# a partition is stored into a pillar mesh file only: a grid file stays as it was
cp "$data/scrip-latlon.nc" "$tmp/grid.nc"
expect_error "grid.nc: not an HDF5 file" mesh partition "$tmp/grid.nc" --parts 2
cmp -s "$data/scrip-latlon.nc" "$tmp/grid.nc" || { echo "FAIL: mesh partition changed a grid file"; fail=1; }

exit $fail
