#!/bin/sh
# Gmsh files as users have them, from the command line (the files come from `test_gmsh --make`,
# written by Gmsh itself): an MSH 2.2 file listing each triangle once per physical group and
# partitioned files with ghost cells import with the plain square's cells; a 3D (volume) mesh is
# refused with exit 1, a message saying it is 3D, and no output file.
# usage: gmsh_cli.sh PILLAR TEST_GMSH      exit 0 pass, 1 fail, 77 skip (built without Gmsh)
pillar=$1
test_gmsh=$2
. "$(dirname "$0")/cli_lib.sh"

"$test_gmsh" --make "$tmp"; rc=$?
[ $rc -ne 77 ] || exit 77
[ $rc -eq 0 ] || { echo "FAIL: test_gmsh --make exited $rc"; exit 1; }

"$pillar" mesh import "$tmp/square.msh" "$tmp/square.nc" >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
cells=$(sed -n 's/^wrote .*; \([0-9]*\) cells,.*/\1/p' "$tmp/out")
hist=$(sed -n 's/.*; neighbours \(.*\)$/\1/p' "$tmp/out")
echo "square.msh: $cells cells, neighbours $hist"
[ -n "$cells" ] && [ "$cells" -gt 20 ] || { echo "FAIL: square.msh: no cell count in: $(cat "$tmp/out")"; fail=1; }
for f in groups22 ghosts ghosts22; do
    expect_output "$cells cells, 64 levels; neighbours $hist" mesh import "$tmp/$f.msh" "$tmp/$f.nc"
    expect_output "listed again, counted once" mesh info "$tmp/$f.nc"
done

# a volume: exit 1 exactly, the message says 3D, nothing written
"$pillar" mesh import "$tmp/cube.msh" "$tmp/cube.nc" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -ne 1 ] || ! grep -qF "a 3D (volume) mesh" "$tmp/err"; then
    echo "FAIL: cube.msh: exit $rc (want 1), message: $(cat "$tmp/err")"; fail=1
else
    echo "ok: cube.msh -> exit 1: $(cat "$tmp/err")"
fi
no_file "$tmp/cube.nc"
exit $fail
