# hostile_cli.sh PILLAR TEST_HOSTILE — hostile input through the command line, one table row per
# case: the exit code it must give (1 a bad file, 2 a bad command line), a phrase its message
# must hold, and the command. Every case must end within 20 s (a FIFO must not block), print
# nothing of secret.bin (a file the user did not name), create no output and leave no temporary
# file. The files come from `test_hostile --make` and from this script (Gmsh scripts, FIFOs).
pillar=$1
maker=$2
. "$(dirname "$0")/cli_lib.sh"

"$maker" --make "$tmp" || { echo "FAIL: test_hostile --make"; exit 1; }
mkfifo "$tmp/fifo.h5" "$tmp/fifo.msh" "$tmp/fifo.nc"
mkdir "$tmp/dir.msh" "$tmp/dir.h5"
: >"$tmp/empty.h5"
printf 'Point(1)={0,0,0}; System "touch %s/PWNED";\n' "$tmp" >"$tmp/script.msh"
printf 'Point(1)={0,0,0}; Point(2)={1,0,0}; Point(3)={1,1,0}; Point(4)={0,1,0};\nLine(1)={1,2}; Line(2)={2,3}; Line(3)={3,4}; Line(4)={4,1};\nCurve Loop(1)={1,2,3,4}; Plane Surface(1)={1}; Mesh 2;\nSystem "touch %s/PWNED";\n' "$tmp" >"$tmp/square.msh"
cp "$tmp/script.msh" "$tmp/script.geo"
# crashes Gmsh 4.8's MSH 2 reader (null dereference; found by fuzz_gmsh): an element line with a
# stray tag. The import reads in a child process and reports it; newer Gmsh may refuse it cleanly.
printf '$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n6\n1 0 0 0\n2 1 0 0\n3 2 0 0\n4 0 1 0\n5  0 1 1 0\n6 2 1 0\n$EndNodes\n$Elements\n2\n1 3 2 0 1 1 2 5 4\n2 3  2 02 0 1 2 3 6 5\n$EndElensetm\n' >"$tmp/gmsh-crash.msh"
out="$tmp/out.h5"

# expect RC NEEDLE ARGS... : exit code RC within 20 s, NEEDLE in stderr, no secret, no output
expect() {
    want=$1; needle=$2; shift 2
    timeout 20 "$pillar" "$@" >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?
    if [ $rc -ne "$want" ]; then
        echo "FAIL: pillar $* exited $rc (want $want$( [ $rc -eq 124 ] && echo ': it hung'))"
        cat "$tmp/stderr"; fail=1
    elif ! grep -qF -- "$needle" "$tmp/stderr"; then
        echo "FAIL: pillar $*: message does not name '$needle':"; cat "$tmp/stderr"; fail=1
    elif grep -q SECRET "$tmp/stdout" "$tmp/stderr"; then
        echo "FAIL: pillar $* printed bytes of secret.bin"; fail=1
    else
        echo "ok: pillar $* -> $(head -n1 "$tmp/stderr")"
    fi
    no_file "$out"
    [ ! -e "$tmp/PWNED" ] || { echo "FAIL: pillar $* ran a Gmsh script's shell command"; fail=1; rm -f "$tmp/PWNED"; }
}

t=$tmp
# a pillar built without Gmsh checks .msh files the same way, then says it cannot read them
gmsh_crash="Gmsh crashed reading the file"
"$pillar" --version | grep -q "Gmsh yes" || gmsh_crash="built without Gmsh"
while IFS='|' read -r rc needle args; do
    case $rc in ''|\#*) continue ;; esac
    eval "set -- $args"
    expect "$rc" "$needle" "$@"
done <<EOF
# --- Gmsh: a mesh file is data, never a script
1|which format?|mesh import $t/script.msh $out
1|which format?|mesh import $t/square.msh $out
1|its first line is not \$MeshFormat|mesh import $t/script.msh $out --format gmsh
1|which format?|mesh import $t/script.geo $out
1|a Gmsh mesh file must be named *.msh|mesh import $t/script.geo $out --format gmsh
1|a FIFO (named pipe), not a mesh to import|mesh import $t/fifo.msh $out
1|a FIFO (named pipe), not a Gmsh mesh|mesh import $t/fifo.msh $out --format gmsh
1|a directory, not a mesh to import|mesh import $t/dir.msh $out
# --- paths that are not regular files, in every command that reads one
1|a FIFO (named pipe), not a mesh file|mesh info $t/fifo.h5
1|a FIFO (named pipe), not a mesh file|run --mesh $t/fifo.h5
1|a FIFO (named pipe), not a field file|run --size 8x8x2 --input $t/fifo.h5
1|a FIFO (named pipe), not a mesh to import|mesh import $t/fifo.nc $out
1|a FIFO (named pipe), not a ICON grid file|mesh import $t/fifo.nc $out --format icon
1|a FIFO (named pipe), not a mesh file|mesh partition $t/fifo.h5 --parts 2
1|a device, not a mesh file|mesh info /dev/null
1|a device, not a field file|run --size 8x8x2 --input /dev/zero
1|a directory, not a mesh file|mesh info $t/dir.h5
1|the mesh file is empty|mesh info $t/empty.h5
1|no such file|mesh info $t/none.h5
# --- the same fault gives the same exit code in every command: a missing file 1, a bad command
# line 2 (--flag=value or --flag value alike)
1|no such file|mesh partition $t/none.h5 --parts 2
1|no such file|run --mesh $t/none.h5 --backend cpu
1|no such file|run --mesh=$t/none.h5 --steps 2 --backend cpu
1|no such file|run --size 8x8x2 --steps 2 --backend cpu --input $t/none.h5
2|unknown flag '--bogus'|mesh info $t/none.h5 --bogus
2|unknown flag '--bogus'|mesh partition $t/none.h5 --bogus=1
2|unknown flag '--bogus'|bench --bogus
2|unknown flag '--bogus'|info --bogus
2|unknown flag '--bogus'|--bogus
2|--levels needs a value|mesh generate $out --levels
2|--runs needs a value|run --runs
2|--parts '0'|mesh partition $t/none.h5 --parts=0
2|--runs '0'|bench --runs=0
2|unexpected argument 'extra'|mesh info $t/none.h5 extra
2|unexpected argument 'extra'|run extra
# --- stored integer types checked before conversion; data in other files refused unread
1|holds 18446744073709551615, out of range|mesh info $t/mesh-u64be.h5
1|holds 18446744073709551615, out of range|mesh info $t/mesh-u64le.h5
1|holds 18446744073709551615, out of range|mesh import $t/icon-u64.nc $out
1|nlevels|mesh info $t/mesh-nlevels-u64.h5
1|nlevels|run --mesh $t/mesh-nlevels-huge.h5
1|external storage|mesh info $t/mesh-extstore.h5
1|external storage|run --size 8x8x2 --input $t/fields-extstore.h5 --output $out
1|link to another file|mesh info $t/mesh-extlink.h5
1|link to another file|mesh info $t/mesh-extlink-fifo.h5
# netCDF-4 inputs are HDF5: libnetcdf would follow links and external storage, so pillar
# refuses them before it opens the file
1|link to another file|mesh import $t/mesh-extlink.h5 $out --format icon
1|link to another file|mesh import $t/mesh-extlink-fifo.h5 $out --format mpas
1|external storage|mesh import $t/mesh-extstore.h5 $out --format ugrid
1|floating-point numbers of at most 64 bits|mesh info $t/mesh-float128.h5
1|declares 80000000 values but the file stores only 0 bytes|mesh info $t/mesh-bomb.h5
1|declares 90000000 values but the file holds only|mesh import $t/icon-bomb.nc $out
1|$gmsh_crash|mesh import $t/gmsh-crash.msh $out
# --- every number on the command line at and past its limits
2|--threads '2097152x2097152x4194304'|run --size 8x8x2 --threads 2097152x2097152x4194304
2|--threads '513x1x1'|run --size 8x8x2 --threads 513x1x1
2|--device-mem 'nan'|run --size 8x8x2 --steps 2 --device-mem nan
2|--device-mem 'inf'|run --size 8x8x2 --steps 2 --device-mem inf
2|--device-mem '1e9'|run --size 8x8x2 --steps 2 --device-mem 1e9
2|--device-mem '-1G'|run --size 8x8x2 --steps 2 --device-mem -1G
2|--device-mem '2000000T'|run --size 8x8x2 --steps 2 --device-mem 2000000T
2|--seed ' -1'|run --size 8x8x2 --seed ' -1'
2|--seed '18446744073709551616'|run --size 8x8x2 --seed 18446744073709551616
2|--size '536870912x8x2'|run --size 536870912x8x2
2|too large|run --size 536870911x536870911x536870911
2|--steps '1000001'|run --size 8x8x2 --steps 1000001
2|--steps '+5'|run --size 8x8x2 --steps +5
2|--fuse '0'|run --size 8x8x2 --steps 2 --fuse 0
2|--kernel-steps '17'|run --size 8x8x2 --steps 2 --kernel-steps 17
2|--runs '0x10'|run --size 8x8x2 --runs 0x10
2|--zslice '4097'|run --size 8x8x2 --zslice 4097
2|--zcurve-w '3'|run --size 8x8x2 --zcurve-w 3
2|--runs ' 3'|bench --runs ' 3'
2|--n '8193'|mesh generate $out --kind regular --n 8193
2|--levels '0'|mesh generate $out --kind regular --n 4 --levels 0
2|--parts '-1'|mesh partition $t/mesh-i8.h5 --parts -1
EOF

# An 8-bit big-endian table is a valid mesh (small stored types load)
expect_output "16 per level" mesh info "$tmp/mesh-i8.h5"

# Debris: a run killed while writing leaves DIR/.NAME.tmp-PID; the next write of NAME removes it
# (and the older NAME.tmp-PID form), but never the temporary file of a process still running.
sh -c 'exit 0' & dead=$!; wait $dead
: >"$tmp/.res.h5.tmp-$dead"; : >"$tmp/res.h5.tmp-$dead"; : >"$tmp/.res.h5.tmp-$$"
"$pillar" run --size 8x8x2 --backend cpu --output "$tmp/res.h5" >/dev/null 2>&1 || { echo "FAIL: run --output"; fail=1; }
if [ -e "$tmp/.res.h5.tmp-$dead" ] || [ -e "$tmp/res.h5.tmp-$dead" ]; then
    echo "FAIL: a dead process's temporary file survived the next run"; fail=1
elif [ ! -e "$tmp/.res.h5.tmp-$$" ] || [ ! -e "$tmp/res.h5" ]; then
    echo "FAIL: a live process's temporary file was removed, or res.h5 is missing"; fail=1
else
    echo "ok: the next run removed the temporary files of dead processes only"
fi
rm -f "$tmp/.res.h5.tmp-$$"

# ... and a real kill: a run killed while it writes, then the next run
"$pillar" run --size 512x512x64 --stencil fastwaves --backend cpu --runs 1 --output "$tmp/big.h5" >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 600 ] && ! ls -a "$tmp" | grep -q "big.h5.tmp-"; do sleep 0.05; i=$((i + 1)); done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
if ! ls -a "$tmp" | grep -q "big.h5.tmp-"; then
    echo "FAIL: the run was not caught while writing (no temporary file to clean)"; fail=1
fi
"$pillar" run --size 8x8x2 --backend cpu --output "$tmp/big.h5" >/dev/null 2>&1
if ls -a "$tmp" | grep -q "big.h5.tmp-"; then
    echo "FAIL: a killed run's temporary file survived the next run"; ls -a "$tmp"; fail=1
else
    echo "ok: no temporary file after a killed run and the next one"
fi
exit $fail
