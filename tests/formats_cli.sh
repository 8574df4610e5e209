#!/bin/sh
# formats_cli.sh PILLAR SRCDIR — `pillar mesh import` of other tools' netCDF meshes (ICON, MPAS,
# UGRID, SCRIP; docs/mesh-formats-in.md):
#  1. the committed samples in data/ are what tools/make-samples.py makes (compared as ncdump
#     text, so the check does not depend on the library's bytes);
#  2. each sample imports, found from its content, with the cell count, the degree histogram and
#     the nodes its construction gives (make-samples.py's docstring), and graphlap runs and
#     verifies on it; the four netCDF variants of the ICON grid give the same mesh, and so does
#     the same grid written as UGRID;
#  3. bad files, written here from CDL text with ncgen, are refused with exit 1 and a message
#     naming the variable and the first bad cell, leaving no output.
# Skipped (77) where ncgen or python3 is missing.
pillar=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"
command -v ncgen >/dev/null && command -v ncdump >/dev/null && command -v python3 >/dev/null ||
    { echo "SKIP: ncgen, ncdump (Debian netcdf-bin) or python3 missing"; exit 77; }
data=$src/data
out=$tmp/out.h5

# ---- 1. the samples are reproducible ----
python3 "$src/tools/make-samples.py" "$tmp/gen" >"$tmp/gen.log" || { echo "FAIL: make-samples.py"; cat "$tmp/gen.log"; fail=1; }
for f in "$data"/*.nc; do
    b=$(basename "$f")
    if ! [ -e "$tmp/gen/$b" ]; then
        echo "FAIL: make-samples.py does not make $b"; fail=1
    elif ncdump "$f" | sed 1d >"$tmp/a.cdl" && ncdump "$tmp/gen/$b" | sed 1d >"$tmp/b.cdl" &&
         cmp -s "$tmp/a.cdl" "$tmp/b.cdl"; then
        echo "ok: data/$b is what make-samples.py makes"
    else
        echo "FAIL: data/$b differs from what make-samples.py makes"; fail=1
    fi
done
for b in icon-classic icon-64bit icon-cdf5 icon-netcdf4 mpas-sphere mpas-coast ugrid-mixed \
         ugrid-sphere scrip-latlon; do
    [ -e "$data/$b.nc" ] || { echo "FAIL: data/$b.nc is missing"; fail=1; }
done

# ---- 2. round trips: import (format from the content), mesh info, graphlap ----
# sample | what the import prints | mesh info lines (;-separated)
while IFS='|' read -r name wrote info; do
    case $name in ''|\#*) continue ;; esac
    m=$tmp/$name.h5
    expect_output "$wrote" mesh import "$data/$name.nc" "$m" --levels 3
    old_ifs=$IFS; IFS=';'
    for line in $info; do IFS=$old_ifs; expect_output "$line" mesh info "$m"; done
    IFS=$old_ifs
    expect_output "PASS against the CPU unstructured executor (same cells): bit-exact" \
        run --mesh "$m" --stencil graphlap --backend cpu --runs 1
done <<EOF
icon-classic|icon: 80 triangles from $data/icon-classic.nc (netCDF classic (CDF-1))|neighbours  3: 80 cells;nodes       42, 3 coordinates each; up to 3 corners per cell;0 halo cells, 80 inner
icon-64bit|icon: 80 triangles from $data/icon-64bit.nc (netCDF 64-bit offset (CDF-2))|neighbours  3: 80 cells;nodes       42, 3 coordinates
icon-cdf5|icon: 80 triangles from $data/icon-cdf5.nc (netCDF CDF-5)|neighbours  3: 80 cells;nodes       42, 3 coordinates
icon-netcdf4|icon: 80 triangles from $data/icon-netcdf4.nc (netCDF-4 (HDF5))|neighbours  3: 80 cells;nodes       42, 3 coordinates
# the icosahedron cut 3x3, dual: 12 pentagons, closed; 180 triangles = MPAS vertices
mpas-sphere|mpas: 92 cells|neighbours  6: 80, 5: 12 cells;nodes       180, 3 coordinates each; up to 7 corners per cell;0 halo cells, 92 inner;coordinates 3 per cell
# 11 cells removed: a coastline (make-samples.py prints these counts from its own tables)
mpas-coast|mpas: 81 cells|neighbours  6: 59, 5: 14, 4: 6, 3: 2 cells;nodes       169, 3 coordinates;halo        radius 2 (graphlap): 29 halo cells, 52 inner
# 8x6 squares, 16 of them cut in 2: 64 faces on 9x7 nodes
ugrid-mixed|ugrid: 64 faces from $data/ugrid-mixed.nc (netCDF classic (CDF-1))|neighbours  4: 16, 3: 36, 2: 12 cells;nodes       63, 2 coordinates each; up to 4 corners per cell;coordinates 2 per cell;(per-cell counts in /cell_sides)
ugrid-sphere|ugrid: 80 faces from $data/ugrid-sphere.nc (netCDF-4 (HDF5))|neighbours  3: 80 cells;nodes       42, 3 coordinates each
# 12x6 cells of 30 degrees: the 24 at the poles are triangles; 12*5 + 2 nodes
scrip-latlon|scrip: 72 cells from $data/scrip-latlon.nc (netCDF 64-bit offset (CDF-2))|neighbours  4: 48, 3: 24 cells;nodes       62, 3 coordinates each; up to 4 corners per cell;0 halo cells, 72 inner
EOF

# the same grid in four netCDF variants, and as UGRID: the same tables (h5dump, when installed)
if command -v h5dump >/dev/null; then
    # (netCDF-4's dimension lists hold object addresses, which differ between files: left out)
    tables() { h5dump -d /cell_neighbours -d /cell_nodes -d "$2" "$1" | sed 1d |
        grep -v 'DATASET [0-9]* "/'; }
    tables "$tmp/icon-classic.h5" /node_coordinates >"$tmp/ref.txt"
    for v in 64bit cdf5 netcdf4; do
        tables "$tmp/icon-$v.h5" /node_coordinates | cmp -s - "$tmp/ref.txt" &&
            echo "ok: icon-$v.nc gives the mesh icon-classic.nc gives" ||
            { echo "FAIL: icon-$v.nc and icon-classic.nc give different meshes"; fail=1; }
    done
    tables "$tmp/icon-classic.h5" /cell_sides >"$tmp/ref.txt" 2>/dev/null
    tables "$tmp/ugrid-sphere.h5" /cell_sides 2>/dev/null | cmp -s - "$tmp/ref.txt" &&
        echo "ok: ugrid-sphere.nc gives the neighbours and corners icon-classic.nc gives" ||
        { echo "FAIL: ugrid-sphere.nc and icon-classic.nc differ in neighbours or corners"; fail=1; }
fi
# --format forces a reader
expect_output "icon: 80 triangles" mesh import "$data/icon-cdf5.nc" "$tmp/f.h5" --format icon
expect_output "ugrid: 80 faces" mesh import "$data/ugrid-sphere.nc" "$tmp/f.h5" --format=ugrid

# coincident nodes: the geodesic sphere of 180 triangles (make-samples.py's construction) as
# UGRID whose every face has its own 3 node ids (540 ids at 92 positions); copy k of a node is
# moved by JITTER * k degrees of longitude. ugrid_copies NAME JITTER
ugrid_copies() {
    python3 - "$src/tools/make-samples.py" "$tmp/$1.nc" "$2" <<'PY' || { echo "FAIL: $1"; fail=1; }
import importlib.util, math, sys
spec = importlib.util.spec_from_file_location("samples", sys.argv[1])
s = importlib.util.module_from_spec(spec)
spec.loader.exec_module(s)
points, tris = s.geodesic(3)
assert len(tris) == 180 and len(points) == 92
deg, jitter, seen = 180 / math.pi, float(sys.argv[3]), {}
lon, lat, faces = [], [], []
for t in tris:
    row = []
    for v in t:
        k = seen[v] = seen.get(v, -1) + 1
        x, y = s.lonlat(points[v])
        lon.append(x * deg + jitter * k)
        lat.append(y * deg)
        row.append(len(lon) - 1)
    faces.append(row)
variables = [
    ("int", "mesh", (), {"cf_role": "mesh_topology", "topology_dimension": 2,
                          "node_coordinates": "lon lat", "face_node_connectivity": "fn"}, [0]),
    ("int", "fn", ("nFaces", "nMax"), {}, s.flat(faces)),
    ("double", "lon", ("nNodes",), {"units": "degrees_east"}, lon),
    ("double", "lat", ("nNodes",), {"units": "degrees_north"}, lat)]
s.ncgen(s.cdl("copies", [("nNodes", len(lon)), ("nFaces", 180), ("nMax", 3)], variables),
        sys.argv[2], 3)
PY
}
ugrid_copies ugrid-copies 0
ugrid_copies ugrid-copies-near 1e-10
# identical positions merge by default, and the count is said; the sphere is closed
m=$tmp/copies.h5
expect_output "merged 448 coincident node ids (at identical positions): 92 nodes of the file's 540" \
    mesh import "$tmp/ugrid-copies.nc" "$m"
expect_output "neighbours  3: 180 cells" mesh info "$m"
expect_output "nodes       92, 3 coordinates each" mesh info "$m"
expect_output "0 halo cells, 180 inner" mesh info "$m"
expect_output "PASS against the CPU unstructured executor (same cells): bit-exact" \
    run --mesh "$m" --stencil graphlap --backend cpu --runs 1
# kept apart (off, or positions that differ) the faces share no edge; --merge-nodes [TOL]
# joins those within TOL (1e-9 on the unit sphere when omitted)
expect_output "neighbours 0: 180" mesh import "$tmp/ugrid-copies.nc" "$m" --merge-nodes off
expect_output "neighbours 0: 180" mesh import "$tmp/ugrid-copies-near.nc" "$m"
expect_output "merged 448 coincident node ids (at most 1e-09 apart): 92 nodes of the file's 540" \
    mesh import "$tmp/ugrid-copies-near.nc" "$m" --merge-nodes
expect_output "neighbours  3: 180 cells" mesh info "$m"
expect_output "merged 448 coincident node ids (at most 1e-08 apart)" \
    mesh import "$tmp/ugrid-copies-near.nc" "$m" --merge-nodes=1e-8 --levels 2
expect_output "merged 448 coincident node ids (at most 1e-09 apart)" \
    mesh import --merge-nodes "$tmp/ugrid-copies-near.nc" "$m"
# read directly by mesh info (and run --mesh), the same rule and the same option
expect_output "neighbours  0: 180 cells" mesh info "$tmp/ugrid-copies-near.nc"
expect_output "neighbours  3: 180 cells" mesh info "$tmp/ugrid-copies-near.nc" --merge-nodes
expect_output "PASS against the CPU unstructured executor (same cells): bit-exact" \
    run --mesh "$tmp/ugrid-copies-near.nc" --merge-nodes 1e-8 --stencil graphlap --backend cpu --runs 1 --levels 2
# a tolerance that merges the nodes of a face: refused, naming the face
"$pillar" mesh import "$tmp/ugrid-copies.nc" "$m" --merge-nodes 0.5 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "twice in a row (corners .*nodes after merging coincident ones" "$tmp/err" ||
    { echo "FAIL: --merge-nodes 0.5: exit $rc, $(cat "$tmp/err")"; fail=1; }
expect_error "--merge-nodes 'near': expected a distance" \
    mesh import "$tmp/ugrid-copies.nc" "$m" --merge-nodes=near
expect_error "--merge-nodes '-1': expected a distance" \
    mesh import "$tmp/ugrid-copies.nc" "$m" --merge-nodes=-1

# ---- 3. bad files ----
# mk NAME KIND: CDL on stdin -> $tmp/NAME.nc (KIND: 1 classic, 2 64-bit offset, 5 CDF-5, 3
# netCDF-4)
mk() { cat >"$tmp/$1.cdl" && ncgen -k "$2" -o "$tmp/$1.nc" "$tmp/$1.cdl" ||
       { echo "FAIL: ncgen $1"; fail=1; }; }

# ICON: 2 triangles sharing an edge. icon NAME NEIGHBOURS VERTICES [TYPE] [CLAT]
icon() {
    mk "$1" 1 <<CDL
netcdf icon { dimensions: cell = 2 ; vertex = 4 ; nv = 3 ;
variables: double clon(cell) ; ${5-double clat(cell) ;} double vlon(vertex) ; double vlat(vertex) ;
  int vertex_of_cell(nv, cell) ; ${4:-int} neighbor_cell_index(nv, cell) ;
data: clon = 0.1, 0.2 ; ${5-clat = 0.1, 0.2 ;} vlon = 0, 0.3, 0.3, 0 ; vlat = 0, 0, 0.3, 0.3 ;
  vertex_of_cell = $3 ; neighbor_cell_index = $2 ; }
CDL
}
icon icon-ok "2, 1, 0, 0, 0, 0" "1, 1, 2, 3, 3, 4"
icon icon-asym "2, 0, 0, 0, 0, 0" "1, 1, 2, 3, 3, 4"
icon icon-range "3, 1, 0, 0, 0, 0" "1, 1, 2, 3, 3, 4"
icon icon-twice "2, 1, 2, 0, 0, 0" "1, 1, 2, 3, 3, 4"
icon icon-self "1, 1, 0, 0, 0, 0" "1, 1, 2, 3, 3, 4"
icon icon-vrange "2, 1, 0, 0, 0, 0" "1, 1, 2, 9, 3, 4"
icon icon-type "2, 1, 0, 0, 0, 0" "1, 1, 2, 3, 3, 4" double
icon icon-noclat "2, 1, 0, 0, 0, 0" "1, 1, 2, 3, 3, 4" int ""
expect_output "icon: 2 triangles" mesh import "$tmp/icon-ok.nc" "$tmp/ok.h5"

# MPAS: 2 triangles. mpas NAME CELLSONCELL NEDGES [TYPE] [LONLAT] (attributes: $mpas_atts)
mpas() {
    mk "$1" 5 <<CDL
netcdf mpas { dimensions: nCells = 2 ; nVertices = 4 ; maxEdges = 3 ;
variables: int nEdgesOnCell(nCells) ; ${4:-int} cellsOnCell(nCells, maxEdges) ;
  int verticesOnCell(nCells, maxEdges) ; ${5-double lonCell(nCells) ; double latCell(nCells) ;} ${mpas_atts-}
  double lonVertex(nVertices) ; double latVertex(nVertices) ;
data: nEdgesOnCell = $3 ; cellsOnCell = $2 ; verticesOnCell = 1, 2, 3, 2, 4, 3 ;
  ${5-lonCell = 0.1, 0.2 ; latCell = 0.1, 0.2 ;} lonVertex = 0, 0.3, 0.3, 0 ; latVertex = 0, 0, 0.3, 0.3 ; }
CDL
}
mpas mpas-ok "2, 0, 0, 1, 0, 0" "3, 3"
mpas mpas-asym "2, 0, 0, 0, 0, 0" "3, 3"
mpas mpas-range "3, 0, 0, 1, 0, 0" "3, 3"
mpas mpas-twice "2, 2, 0, 1, 0, 0" "3, 3"
mpas mpas-nedges "2, 0, 0, 1, 0, 0" "3, 4"
mpas mpas-type "2, 0, 0, 1, 0, 0" "3, 3" double
mpas mpas-nocoord "2, 0, 0, 1, 0, 0" "3, 3" int ""
expect_output "mpas: 2 cells" mesh import "$tmp/mpas-ok.nc" "$tmp/ok.h5"
# no neighbour across an edge: 0, or the _FillValue (or missing_value)
mpas_atts="cellsOnCell:_FillValue = -1 ;" mpas mpas-fill "2, -1, -1, 1, -1, -1" "3, 3"
expect_output "mpas: 2 cells" mesh import "$tmp/mpas-fill.nc" "$tmp/ok.h5"

# UGRID: nodes (0,0) (1,0) (1,1) (0,1) (2,0.5) (3,0) (3,1). ugrid NAME FACES NODES [ATTRS]
# [TYPE] [START] [FACE_DIM] [EXTRA VARIABLES] [EXTRA DATA]
ugrid() {
    fn_att=${5:-"mesh:face_node_connectivity = \"fn\" ;"}
    mk "$1" 1 <<CDL
netcdf ugrid { dimensions: node = 7 ; face = $2 ; nmax = 4 ;
variables: int mesh ; mesh:cf_role = "mesh_topology" ; mesh:topology_dimension = ${4:-2} ;
  mesh:node_coordinates = "x y" ; $fn_att
  mesh:face_dimension = "${8:-face}" ; $9
  ${6:-int} fn(face, nmax) ; fn:start_index = ${7:-1} ; fn:_FillValue = -999 ;
  double x(node) ; double y(node) ; ${10}
data: mesh = 0 ; fn = $3 ; x = 0, 1, 1, 0, 2, 3, 3 ; y = 0, 0, 1, 1, 0.5, 0, 1 ; ${11} }
CDL
}
ugrid ugrid-ok 2 "1, 2, 3, 4, 2, 5, 3, _"
ugrid ugrid-three 3 "1, 2, 3, _, 2, 1, 4, _, 1, 2, 5, _"
ugrid ugrid-fillmid 2 "1, 2, 3, 4, 2, _, 5, 3"
ugrid ugrid-range 2 "1, 2, 3, 4, 2, 8, 3, _"
ugrid ugrid-twice 2 "1, 2, 3, _, 1, 2, 3, _"
ugrid ugrid-start 2 "1, 2, 3, 4, 2, 5, 3, _" 2 "" int 2
ugrid ugrid-facedim 2 "1, 2, 3, 4, 2, 5, 3, _" 2 "" int 1 nmesh_edge
ugrid ugrid-nofn 2 "1, 2, 3, 4, 2, 5, 3, _" 2 " "
ugrid ugrid-type 2 "1, 2, 3, 4, 2, 5, 3, _" 2 "" double
ugrid ugrid-1d 2 "1, 2, 3, 4, 2, 5, 3, _" 1
ff='mesh:face_face_connectivity = "ff" ;'
ffv='int ff(face, nmax) ; ff:start_index = 1 ; ff:_FillValue = -999 ;'
ugrid ugrid-ffok 3 "1, 2, 3, 4, 2, 5, 3, _, 2, 6, 5, _" 2 "" int 1 face "$ff" "$ffv" \
    "ff = 2, _, _, _, 1, 3, _, _, 2, _, _, _ ;"
ugrid ugrid-ffasym 3 "1, 2, 3, 4, 2, 5, 3, _, 2, 6, 5, _" 2 "" int 1 face "$ff" "$ffv" \
    "ff = 2, _, _, _, 3, _, _, _, 2, _, _, _ ;"
ugrid ugrid-ffnoedge 3 "1, 2, 3, 4, 2, 5, 3, _, 2, 6, 5, _" 2 "" int 1 face "$ff" "$ffv" \
    "ff = 2, 3, _, _, 1, 3, _, _, 2, 1, _, _ ;"
expect_output "ugrid: 2 faces" mesh import "$tmp/ugrid-ok.nc" "$tmp/ok.h5"
# UGRID as uxarray and others write it: the quadrangle of ugrid-ok and FACE2 (a triangle and its
# padding), stored as TYPE with the attributes ATTS. ugrid_fn NAME KIND TYPE ATTS FACE2
# [NODE_COORDINATES] [START]
ugrid_fn() {
    s=${7:-0}
    mk "$1" "$2" <<CDL
netcdf ugrid { dimensions: node = 7 ; face = 2 ; nmax = 4 ;
variables: int mesh ; mesh:cf_role = "mesh_topology" ; mesh:topology_dimension = 2 ;
  mesh:node_coordinates = "${6:-x y}" ; mesh:face_node_connectivity = "fn" ;
  $3 fn(face, nmax) ; $4 double x(node) ; double y(node) ; double z(node) ; double w(node) ;
data: mesh = 0 ; fn = $((s)), $((s + 1)), $((s + 2)), $((s + 3)), $5 ;
  x = 0, 1, 1, 0, 2, 3, 3 ; y = 0, 0, 1, 1, 0.5, 0, 1 ; z = 0, 0, 0, 0, 0, 0, 0 ;
  w = 0, 0, 0, 0, 0, 0, 0 ; }
CDL
}
# start_index is optional, 0 when absent (UGRID); the triangle padded with the _FillValue
ugrid_fn ugrid-nostart 1 int "fn:_FillValue = -1 ;" "1, 4, 2, _"
# uxarray's padding: int64 with _FillValue INT64_MIN, applied before any range check. ncgen
# cannot write INT64_MIN (nor int64 into CDF-5 right): netCDF-4 gets INT64_MIN + 1, and its
# copy in CDF-5 is patched to INT64_MIN (the _FillValue and the padding entry: the only two
# such 8-byte strings in the file)
ugrid_fn ugrid-int64min 3 int64 \
    "fn:_FillValue = -9223372036854775807 ; fn:start_index = 0LL ;" "1, 4, 2, _"
nccopy -k cdf5 "$tmp/ugrid-int64min.nc" "$tmp/ugrid-int64min-cdf5.nc"
python3 - "$tmp/ugrid-int64min-cdf5.nc" <<'PY' || { echo "FAIL: patching INT64_MIN in"; fail=1; }
import sys
b = open(sys.argv[1], "rb").read()
one, least = (2**63 + 1).to_bytes(8, "big"), (2**63).to_bytes(8, "big")
assert b.count(one) == 2
open(sys.argv[1], "wb").write(b.replace(one, least))
PY
ncdump "$tmp/ugrid-int64min-cdf5.nc" | grep -q "_FillValue = -9223372036854775808" ||
    { echo "FAIL: ugrid-int64min-cdf5.nc does not hold INT64_MIN"; fail=1; }
# missing_value instead of _FillValue (any integer type), and both together
ugrid_fn ugrid-missing 1 int "fn:missing_value = -9s ;" "1, 4, 2, -9"
ugrid_fn ugrid-fill-missing 1 int "fn:_FillValue = -999 ; fn:missing_value = -9, -8 ;" \
    "1, 4, 2, -8"
ugrid_fn ugrid-missing-real 1 int "fn:missing_value = 0.5, -7. ;" "1, 4, 2, -7"
# the one padding rule: the last corner repeated, with or without a _FillValue, from 1
ugrid_fn ugrid-repeat 1 int "" "1, 4, 2, 2"
ugrid_fn ugrid-repeat-fill 1 int "fn:_FillValue = -999 ; fn:start_index = 1 ;" "2, 5, 3, 3" \
    "x y" 1
for f in nostart int64min int64min-cdf5 missing fill-missing missing-real repeat repeat-fill; do
    rm -f "$tmp/ok.h5"
    expect_output "ugrid: 2 faces" mesh import "$tmp/ugrid-$f.nc" "$tmp/ok.h5"
    expect_output "neighbours  1: 2 cells" mesh info "$tmp/ok.h5"
    expect_output "nodes       7, 2 coordinates each; up to 4 corners per cell" mesh info "$tmp/ok.h5"
done
# refused: a _FillValue of another type than its variable (ncgen converts it: the int attribute
# -999 is patched into a short); a repeated corner that is not the padding (another follows);
# four variables of node coordinates
ugrid_fn ugrid-filltype 1 int "fn:_FillValue = -999 ;" "1, 4, 2, _"
python3 - "$tmp/ugrid-filltype.nc" <<'PY' || { echo "FAIL: patching a short _FillValue in"; fail=1; }
import sys
b = open(sys.argv[1], "rb").read()
att = b"_FillValue\0\0" + (4).to_bytes(4, "big") + (1).to_bytes(4, "big")
assert b.count(att + (-999 & 0xffffffff).to_bytes(4, "big")) == 1
short = b"_FillValue\0\0" + (3).to_bytes(4, "big") + (1).to_bytes(4, "big")
open(sys.argv[1], "wb").write(b.replace(att + (-999 & 0xffffffff).to_bytes(4, "big"),
                                        short + (-999 & 0xffff).to_bytes(2, "big") + b"\0\0"))
PY
ncdump -h "$tmp/ugrid-filltype.nc" | grep -q "_FillValue = -999s" ||
    { echo "FAIL: ugrid-filltype.nc has no short _FillValue"; fail=1; }
ugrid_fn ugrid-repeat-mid 1 int "" "1, 4, 4, 2"
ugrid_fn ugrid-4coord 1 int "fn:_FillValue = -1 ; fn:start_index = 0 ;" "1, 4, 2, _" "x y z w"
ugrid_fn ugrid-3coord 1 int "fn:_FillValue = -1 ;" "1, 4, 2, _" "x y z"
# an edge of three faces, the third through node ids of its own at the same positions (4 and
# 5 lie where 0 and 1 do): merged, they are the edge of faces 0 and 1, which is refused
mk ugrid-three-dup 1 <<CDL
netcdf ugrid { dimensions: node = 7 ; face = 3 ; nmax = 3 ;
variables: int mesh ; mesh:cf_role = "mesh_topology" ; mesh:topology_dimension = 2 ;
  mesh:node_coordinates = "x y" ; mesh:face_node_connectivity = "fn" ; int fn(face, nmax) ;
  double x(node) ; double y(node) ;
data: mesh = 0 ; fn = 0, 1, 2, 1, 0, 3, 4, 5, 6 ; x = 0, 1, 1, 0, 0, 1, 0.5 ;
  y = 0, 0, 1, 1, 0, 0, -1 ; }
CDL
expect_output "neighbours 1: 2 0: 1" mesh import "$tmp/ugrid-three-dup.nc" "$tmp/ok.h5" --merge-nodes off
expect_output "ugrid: 2 faces" mesh import "$tmp/ugrid-3coord.nc" "$tmp/ok.h5"
expect_output "ugrid: 3 faces" mesh import "$tmp/ugrid-ffok.nc" "$tmp/ok.h5"

# SCRIP: cells of 10 degrees. scrip NAME CELLS CORNER_LAT CORNER_LON CENTRE_LAT CENTRE_LON
# [UNITS] [CENTRE_LON_VARIABLE]
scrip() {
    u=${7:-degrees}
    lon_var="double grid_center_lon(grid_size) ; grid_center_lon:units = \"$u\" ;"
    lon_data="grid_center_lon = $6 ;"
    [ $# -lt 8 ] || { lon_var=""; lon_data=""; }
    mk "$1" 2 <<CDL
netcdf scrip { dimensions: grid_size = $2 ; grid_corners = 4 ;
variables: double grid_corner_lat(grid_size, grid_corners) ; grid_corner_lat:units = "$u" ;
  double grid_corner_lon(grid_size, grid_corners) ; grid_corner_lon:units = "$u" ;
  double grid_center_lat(grid_size) ; grid_center_lat:units = "$u" ; $lon_var
data: grid_corner_lat = $3 ; grid_corner_lon = $4 ; grid_center_lat = $5 ; $lon_data }
CDL
}
lat2="0, 0, 10, 10, 0, 0, 10, 10"
lon2="0, 10, 10, 0, 10, 20, 20, 10"
scrip scrip-ok 2 "$lat2" "$lon2" "5, 5" "5, 15"
# a third cell, a triangle (its last corner repeated), on the edge the two share
scrip scrip-three 3 "$lat2, 0, 10, 5, 5" "$lon2, 10, 10, 5, 5" "5, 5, 5" "5, 15, 8"
scrip scrip-units 2 "$lat2" "$lon2" "5, 5" "5, 15" furlongs
scrip scrip-lat 2 "0, 0, 10, 95, 0, 0, 10, 10" "$lon2" "5, 5" "5, 15"
scrip scrip-point 2 "0, 0, 10, 10, 0, 0, 0, 0" "0, 10, 10, 0, 10, 10, 10, 10" "5, 0" "5, 10"
scrip scrip-nolon 2 "$lat2" "$lon2" "5, 5" "5, 15" degrees ""
expect_output "scrip: 2 cells" mesh import "$tmp/scrip-ok.nc" "$tmp/ok.h5"

# not a mesh of any format; a netCDF file cut short
printf 'neither netCDF nor Gmsh\n' >"$tmp/text.nc"
cp "$tmp/text.nc" "$tmp/text.txt"
head -c 300 "$data/icon-classic.nc" >"$tmp/cut.nc"
# a classic header of 16 bytes declaring 2^31 - 1 dimensions (libnetcdf 4.9 would try to
# allocate them and crash: found by fuzz_nc)
printf 'CDF\001\000\000\000\000\000\000\000\012\177\377\377\377' >"$tmp/dims.nc"
rm -f "$out"

# expect1 NEEDLE ARGS... : exit 1, NEEDLE in stderr, no output file
expect1() {
    needle=$1; shift
    "$pillar" "$@" >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?
    if [ $rc -ne 1 ]; then
        echo "FAIL: pillar $* exited $rc (want 1)"; cat "$tmp/stderr"; fail=1
    elif ! grep -qF -- "$needle" "$tmp/stderr"; then
        echo "FAIL: pillar $*: message does not name '$needle':"; cat "$tmp/stderr"; fail=1
    else
        echo "ok: pillar $* -> $(head -n1 "$tmp/stderr")"
    fi
    no_file "$out"
}
t=$tmp
while IFS='|' read -r name needle; do
    case $name in ''|\#*) continue ;; esac
    expect1 "$needle" mesh import "$t/$name.nc" "$out"
done <<EOF
icon-asym|neighbor_cell_index: asymmetric at cell 0: column 0 = 1, but cell 1 does not list 0
icon-range|neighbor_cell_index[0][0] = 3 is out of range (1..2, or <= 0 for none)
icon-twice|neighbor_cell_index: cell 0 lists cell 1 twice (columns 0 and 1)
icon-self|neighbor_cell_index: cell 0 is its own neighbour
icon-vrange|vertex_of_cell[1][1] = 9 is out of range (1..4)
icon-type|variable neighbor_cell_index has the wrong type; expected integers
icon-noclat|variable clat is missing
mpas-asym|cellsOnCell: asymmetric at cell 0: column 0 = 1, but cell 1 does not list 0
mpas-range|cellsOnCell[0][0] = 3 is out of range (1..2, or 0 for none)
mpas-twice|cellsOnCell: cell 0 lists cell 1 twice (columns 0 and 1)
mpas-nedges|nEdgesOnCell[1] = 4 is out of range (1..maxEdges = 3)
mpas-type|variable cellsOnCell has the wrong type; expected integers
mpas-nocoord|variable xCell is missing
ugrid-three|fn: cell 0: its edge between nodes 0 and 1 is shared by 3 cells (0, 1 and 2)
ugrid-fillmid|variable fn: face 1, entry 2 = 5 follows a fill value
ugrid-range|variable fn: face 1, entry 1 = 8 is out of range (1..7, counted from 1;
ugrid-twice|fn: cell 0 lists cell 1 twice (columns 0 and 1)
ugrid-three-dup|fn: cell 0: its edge between nodes 0 and 1 is shared by 3 cells (0, 1 and 2); a surface has at most 2 cells on an edge (faces and nodes counted from 0, nodes after merging coincident ones
ugrid-filltype|variable fn: attribute _FillValue has another type than the variable
ugrid-repeat-mid|fn: cell 1 has node 4 twice in a row
ugrid-4coord|attribute node_coordinates names 4 variables; expected 2 or 3
ugrid-start|variable fn: attribute start_index must be the integer 0 or 1
ugrid-facedim|variable fn has dimensions (face, nmax), neither of them the faces' nmesh_edge
ugrid-nofn|mesh topology mesh has no attribute face_node_connectivity
ugrid-type|variable fn has the wrong type; expected integers
ugrid-1d|no UGRID 2D mesh: no variable has cf_role = "mesh_topology" and topology_dimension = 2 (the file's meshes are not 2D)
ugrid-ffasym|ff: asymmetric at cell 0: column 0 = 1, but cell 1 does not list 0
ugrid-ffnoedge|ff: face 0 lists face 2, but they share no edge in the face-node connectivity
scrip-three|grid_corner_lat/lon: cell 0: its edge between nodes 1 and 2 is shared by 3 cells (0, 1 and 2)
scrip-units|variable grid_corner_lat: units 'furlongs': expected degrees or radians
scrip-lat|grid_corner_lat[3] = 95 is not a latitude in degrees
scrip-point|grid_corner_lat/lon: cell 1 has 1 corner; a cell needs at least 3
scrip-nolon|variable grid_center_lon is missing
cut|a netCDF classic (CDF-1) header that does not fit in the file
dims|a netCDF classic (CDF-1) header that does not fit in the file (counts or names beyond its 16 bytes)
text|which format? pillar recognises none of its own in this file's content (not netCDF)
EOF
# an MPAS mesh cut short in each netCDF-3 variant (libnetcdf reads zeros past the end): the data
# of its last variables lie past the file's end
for k in classic 64-bit-offset cdf5; do
    nccopy -k $k "$data/mpas-sphere.nc" "$tmp/mpas-$k.nc" || { echo "FAIL: nccopy -k $k"; fail=1; }
    expect_output "mpas: 92 cells" mesh import "$tmp/mpas-$k.nc" "$tmp/ok.h5"
    size=$(wc -c <"$tmp/mpas-$k.nc")
    for cut in 8 800; do
        head -c $((size - cut)) "$tmp/mpas-$k.nc" >"$tmp/mpas-$k-cut.nc"
        expect1 "the file is truncated: the data of variable zVertex end at byte $size, but the file has $((size - cut)) bytes" \
            mesh import "$tmp/mpas-$k-cut.nc" "$out"
        expect1 "the file is truncated" mesh import "$tmp/mpas-$k-cut.nc" "$out" --format mpas
    done
done
expect1 "which format? pillar recognises none of its own in this file's content" \
    mesh import "$tmp/text.txt" "$out"
# the format comes from the content, never the name: files of formats pillar does not read get
# "which format?" and what each reader looks for. An Exodus II mesh (netCDF: connect1,
# coordx, ...), an MPAS mesh without cellsOnCell, a FESOM 2 ASCII mesh (nod2d.out: a count,
# then "index x y flag" lines)
mk exodus 2 <<CDL
netcdf exodus { dimensions: num_nodes = 4 ; num_elem = 2 ; num_el_blk = 1 ; num_el_in_blk1 = 2 ;
  num_nod_per_el1 = 3 ; len_string = 33 ;
variables: double coordx(num_nodes) ; double coordy(num_nodes) ;
  int connect1(num_el_in_blk1, num_nod_per_el1) ; connect1:elem_type = "TRI3" ;
  int eb_prop1(num_el_blk) ; eb_prop1:name = "ID" ;
  :api_version = 8.f ; :version = 8.f ; :floating_point_word_size = 8 ;
data: coordx = 0, 1, 1, 0 ; coordy = 0, 0, 1, 1 ; connect1 = 1, 2, 3, 1, 3, 4 ; eb_prop1 = 1 ; }
CDL
# an MPAS mesh without cellsOnCell and verticesOnCell (without cellsOnCell alone its neighbours
# are derived from verticesOnCell: grid_readers_cli)
ncdump "$data/mpas-sphere.nc" | sed -e '/^	int cellsOnCell(/d' -e '/^ cellsOnCell =/,/;$/d' \
    -e '/^	int verticesOnCell(/d' -e '/^ verticesOnCell =/,/;$/d' >"$tmp/mpas-nocells.cdl"
ncgen -k 5 -o "$tmp/mpas-nocells.nc" "$tmp/mpas-nocells.cdl" || { echo "FAIL: ncgen mpas-nocells"; fail=1; }
printf '4\n1 0.0 0.0 1\n2 1.0 0.0 1\n3 1.0 1.0 1\n4 0.0 1.0 0\n' >"$tmp/nod2d.out"
printf '2\n1 2 3\n1 3 4\n' >"$tmp/elem2d.out"
cp "$tmp/nod2d.out" "$tmp/nod2d.nc"
for f in exodus.nc mpas-nocells.nc nod2d.out elem2d.out nod2d.nc; do
    expect1 "which format? pillar recognises none of its own in this file's content" \
        mesh import "$tmp/$f" "$out"
    grep -qF 'looked for: ugrid: a variable with cf_role = "mesh_topology"; icon: variable neighbor_cell_index, or vertex_of_cell with clon/clat; mpas: variables cellsOnCell and nEdgesOnCell, or verticesOnCell and nEdgesOnCell; scrip: variables grid_corner_lat and grid_corner_lon; esmf: variables nodeCoords, elementConn and numElementConn; bounds: ' "$tmp/stderr" ||
        { echo "FAIL: mesh import $f does not list what the readers look for"; cat "$tmp/stderr"; fail=1; }
done
expect1 "variable cellsOnCell is missing, and so is verticesOnCell" mesh import "$tmp/mpas-nocells.nc" "$out" --format mpas
expect1 "variable neighbor_cell_index is missing" mesh import "$tmp/exodus.nc" "$out" --format icon
# a forced format that is not the file's: its reader names what is missing
expect1 "variable cellsOnCell is missing" mesh import "$data/icon-classic.nc" "$out" --format mpas
expect1 "no UGRID 2D mesh" mesh import "$data/scrip-latlon.nc" "$out" --format ugrid
expect1 "variable grid_corner_lat is missing" mesh import "$data/mpas-sphere.nc" "$out" --format scrip
expect1 "variable neighbor_cell_index is missing" mesh import "$data/ugrid-mixed.nc" "$out" --format icon
expect_error "--format 'netcdf': choose ugrid, icon, mpas, scrip, esmf, bounds or gmsh" \
    mesh import "$data/icon-classic.nc" "$out" --format netcdf
no_file "$out"
exit $fail
