#!/bin/sh
# make_import_seeds.sh TEST_HOSTILE DIR — seed inputs of the import fuzzers (fuzz_import.c):
# DIR/gmsh/ (MSH 2.2 and 4.1 meshes, a bad one, and Gmsh scripts that would create PWNED) and
# DIR/nc/ (test_hostile's ICON files, valid and not, and the netCDF samples of data/: ICON in
# four variants, MPAS, UGRID, SCRIP).
set -eu
maker=$1; out=$2
mkdir -p "$out/gmsh" "$out/nc" "$out/tmp"
cat >"$out/gmsh/msh2-square.msh" <<'MSH'
$MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
5
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
5 0.5 0.5 0
$EndNodes
$Elements
4
1 2 2 0 1 1 2 5
2 2 2 0 1 2 3 5
3 2 2 0 1 3 4 5
4 2 2 0 1 4 1 5
$EndElements
MSH
cat >"$out/gmsh/msh2-quads.msh" <<'MSH'
$MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
6
1 0 0 0
2 1 0 0
3 2 0 0
4 0 1 0
5 1 1 0
6 2 1 0
$EndNodes
$Elements
2
1 3 2 0 1 1 2 5 4
2 3 2 0 1 2 3 6 5
$EndElements
MSH
cat >"$out/gmsh/msh41-square.msh" <<'MSH'
$MeshFormat
4.1 0 8
$EndMeshFormat
$Nodes
1 4 1 4
2 1 0 4
1
2
3
4
0 0 0
1 0 0
1 1 0
0 1 0
$EndNodes
$Elements
1 2 1 2
2 1 2 2
1 1 2 3
2 1 3 4
$EndElements
MSH
printf 'Point(1)={0,0,0}; System "touch PWNED";\n' >"$out/gmsh/script.msh"
printf '$MeshFormat\n2.2 0 8\n$EndMeshFormat\nSystem "touch PWNED";\n' >"$out/gmsh/header-script.msh"
"$maker" --make "$out/tmp"
cp "$out/tmp"/icon-*.nc "$out/nc/"
cp "$out/tmp/mesh-u64be.h5" "$out/nc/not-icon.nc"
cp "$(dirname "$0")"/../../data/*.nc "$out/nc/"
rm -rf "$out/tmp"
