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
# an empty output path is named as such (not ": names a directory")
2|--output '': the path is empty|run --size 8x8x2 --backend cpu --output ''
2|FILE '': the path is empty|mesh generate '' --kind hexagons --n 4
2|OUT '': the path is empty|mesh import $t/icon-ok.nc ''
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
# ... and datasets of a few KB each, deflated zeros, that together would take about 100 MB
1|compressed more than 256:1|mesh info $t/mesh-zbomb.h5
1|compressed more than 256:1|mesh import $t/icon-zbomb.nc $out
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

# --- an output that is an input (by name, through a hard link, through a symbolic link) is
# refused with exit 2 before anything is read or written, and the input stays byte-identical
export PILLAR_CACHE_DIR="$tmp/cache"
"$pillar" mesh generate "$tmp/in.h5" --kind hexagons --n 6 --levels 2 >/dev/null || { echo "FAIL: mesh generate"; fail=1; }
"$pillar" run --mesh "$tmp/in.h5" --stencil graphlap --backend cpu --output-inputs --output "$tmp/fields.h5" >/dev/null || { echo "FAIL: run --output"; fail=1; }
cat >"$tmp/heat.c" <<'SRC'
#pragma pillar stencil(heat) kind(quad) in(in) out(out) radius(1)
#pragma pillar body
ST(out, LD(in, C) + (T)0.125 * (LD(in, W) + LD(in, E) + LD(in, S) + LD(in, N) - (T)4 * LD(in, C)));
SRC
cp "$(dirname "$0")/../data/icon-classic.nc" "$tmp/icon.nc"
for f in in.h5 fields.h5 heat.c icon.nc; do
    cp "$tmp/$f" "$tmp/orig-$f"; ln -f "$tmp/$f" "$tmp/hard-$f"; ln -sf "$f" "$tmp/sym-$f"
done
# same ARGS... : exit 2 naming the input, every input unchanged, no temporary file
same() {
    timeout 20 "$pillar" "$@" >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?
    if [ $rc -ne 2 ] || ! grep -q "never writes over an input" "$tmp/stderr"; then
        echo "FAIL: pillar $* exited $rc (want 2, an output that is an input):"; cat "$tmp/stderr"; fail=1
    else
        echo "ok: pillar $* -> $(head -n1 "$tmp/stderr")"
    fi
    for f in in.h5 fields.h5 heat.c icon.nc; do
        cmp -s "$tmp/$f" "$tmp/orig-$f" || { echo "FAIL: pillar $* changed $f"; fail=1; cp "$tmp/orig-$f" "$tmp/$f"; }
    done
    if ls -a "$tmp" | grep -q "tmp-"; then echo "FAIL: pillar $* left a temporary file"; fail=1; fi
}
for pre in "" hard- sym-; do
    same run --mesh "$tmp/in.h5" --stencil graphlap --backend cpu --output "$tmp/${pre}in.h5"
    same run --mesh "$tmp/in.h5" --stencil graphlap --backend cpu --steps 2 --output "$tmp/${pre}in.h5"
    same run --mesh "$tmp/in.h5" --stencil graphlap --backend cpu --input "$tmp/fields.h5" --output "$tmp/${pre}fields.h5"
    same run --size 8x8x2 --stencil-file "$tmp/heat.c" --backend cpu --output "$tmp/${pre}heat.c"
    same mesh import "$tmp/icon.nc" "$tmp/${pre}icon.nc"
done

# --- a full disk (a 16 KB tmpfs; skipped where mounting is not permitted): every command that
# writes exits 1 saying the disk is full, leaves nothing, and never crashes (libhdf5 once did at
# exit, the file left open after nc_close failed); so does a program using the library
full="$tmp/full"
mkdir "$full"
if mount -t tmpfs -o size=16k tmpfs "$full" 2>/dev/null; then
    trap 'umount "$full" 2>/dev/null; rm -rf "$tmp"' EXIT
    out="$full/out.h5"
    expect 1 "no space left on device" run --size 8x8x2 --backend cpu --output "$out"
    expect 1 "no space left on device" run --size 64x64x8 --backend cpu --output "$out"
    expect 1 "no space left on device" run --size 8x8x2 --backend cpu --steps 2 --output "$out"
    expect 1 "no space left on device" mesh generate "$out" --kind hexagons --n 4 --levels 1
    expect 1 "no space left on device" mesh generate "$out" --kind hexagons --n 64
    expect 1 "no space left on device" mesh import "$tmp/icon.nc" "$out"
    timeout 20 "$maker" --write-fields "$out"; rc=$?
    if [ $rc -ne 0 ]; then echo "FAIL: pillar_write_fields on a full disk: exit $rc"; fail=1
    else echo "ok: pillar_write_fields on a full disk returns an error, the program exits 0"; fi
    no_file "$out"
    umount "$full"
    out="$tmp/out.h5"
else
    echo "skip: the full-disk cases (mount -t tmpfs is not permitted here)"
fi

# --- the stencil cache runs code: a folder or a file of it that another user owns or can write
# is refused (as ssh does) and nothing planted in it is loaded; what is loaded names its key;
# the engine headers are checked on each use; the compile log never follows a planted link.
# A planted shared object's constructor would create $marker.
marker="$tmp/PLANTED-CODE-RAN"
printf '#include <fcntl.h>\n#include <unistd.h>\n__attribute__((constructor)) static void pwn(void) { close(open("%s", O_CREAT | O_WRONLY, 0644)); }\n' "$marker" >"$tmp/evil.c"
cc -shared -fPIC -o "$tmp/evil.so" "$tmp/evil.c" || { echo "FAIL: cc evil.so"; fail=1; }
chmod 644 "$tmp/evil.so"
heat() { # heat CACHE: run heat.c with the cache CACHE
    PILLAR_CACHE_DIR="$1" timeout 60 "$pillar" run --size 8x8x2 --stencil-file "$tmp/heat.c" --backend cpu >"$tmp/stdout" 2>"$tmp/stderr"
}
# cache_case WHAT RC NEEDLE CACHE: heat with CACHE exits RC naming NEEDLE, and no planted code ran
cache_case() {
    heat "$4"; rc=$?
    if [ -e "$marker" ]; then echo "FAIL: $1: the planted shared object was loaded"; fail=1; rm -f "$marker"
    elif [ $rc -ne "$2" ] || ! grep -qF -- "$3" "$tmp/stderr" "$tmp/stdout"; then
        echo "FAIL: $1: exit $rc (want $2), message without '$3':"; cat "$tmp/stderr"; fail=1
    else echo "ok: $1 -> $(head -n1 "$tmp/stderr")"; fi
}
good="$tmp/good-cache"
heat "$good" || { echo "FAIL: heat.c in a fresh cache"; cat "$tmp/stderr"; fail=1; }
so=$(ls "$good"/cpu-*.so | head -n1); so=${so##*/}
# a file in the user's own cache that is not what its name says: compiled again, never loaded
cp -r "$good" "$tmp/c-swap"; cp "$tmp/evil.so" "$tmp/c-swap/$so"
cache_case "a shared object that does not name its key" 0 "compiled 'heat'" "$tmp/c-swap"
# an engine header changed in the cache: written again from the embedded copy
cp -r "$good" "$tmp/c-hdr"; rm "$tmp/c-hdr/$so"
echo '#error planted header' >>"$(ls -d "$tmp"/c-hdr/include-*)/stencils/body.h"
cache_case "a changed engine header in the cache" 0 "verify    PASS" "$tmp/c-hdr"
# a symbolic link planted at the compile log's name (this process's pid: sh execs pillar)
cp -r "$good" "$tmp/c-log"; rm "$tmp/c-log/$so"
echo precious >"$tmp/victim.txt"
PILLAR_CACHE_DIR="$tmp/c-log" sh -c 'ln -s "$1" "$2/.$3.tmp-$$.log"; exec "$4" run --size 8x8x2 --stencil-file "$5" --backend cpu' sh \
    "$tmp/victim.txt" "$tmp/c-log" "$so" "$pillar" "$tmp/heat.c" >/dev/null 2>&1
if [ "$(cat "$tmp/victim.txt")" = precious ]; then echo "ok: the compile log does not follow a planted link"
else echo "FAIL: the compile log followed a planted link and truncated its target"; fail=1; fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
    chmod 711 "$tmp"; mkdir "$tmp/shared"; chmod 1777 "$tmp/shared"
    cp -r "$good" "$tmp/stage"; cp "$tmp/evil.so" "$tmp/stage/$so"; chmod -R a+rX "$tmp/stage"
    # a cache folder another user created, holding the planted object under the right name
    as_nobody sh -c "mkdir -m 755 '$tmp/shared/theirs' && cp -r '$tmp/stage/.' '$tmp/shared/theirs/'"
    cache_case "a cache folder of another user" 1 "is owned by uid" "$tmp/shared/theirs"
    # the user's own folder, writable by others: another user replaces the object
    mkdir -m 777 "$tmp/shared/open"; cp -r "$good/." "$tmp/shared/open/"; chmod 777 "$tmp/shared/open"
    as_nobody sh -c "cp '$tmp/evil.so' '$tmp/shared/open/x' && mv -f '$tmp/shared/open/x' '$tmp/shared/open/$so'"
    cache_case "a cache folder others can write" 1 "is writable by others" "$tmp/shared/open"
    # the user's folder holding a file of another user
    cp -r "$good" "$tmp/c-file"; chmod 755 "$tmp/c-file"; as_nobody cp "$tmp/evil.so" "$tmp/shared/evil.so"
    mv "$tmp/shared/evil.so" "$tmp/c-file/$so"
    cache_case "a file of another user in the cache" 1 "is owned by uid" "$tmp/c-file"
else
    echo "skip: the cache cases as another user (not root, or no setpriv or nobody)"
fi

# --- the cache key covers the headers a stencil file includes (its own, next to it or by an
# absolute path): a #define changed in one compiles the stencil again and changes the result
mkdir "$tmp/own"
for how in relative absolute; do
    [ $how = relative ] && inc=consts.h || inc="$tmp/own/consts.h"
    printf '#pragma pillar stencil(heat2) kind(quad) in(in) out(out) radius(1)\n#include "%s"\n#pragma pillar body\nST(out, LD(in, C) + (T)K_FACTOR * (LD(in, W) + LD(in, E) + LD(in, S) + LD(in, N) - (T)4 * LD(in, C)));\n' "$inc" >"$tmp/own/heat2.c"
    echo '#define K_FACTOR 0.125' >"$tmp/own/consts.h"
    k=0
    for factor in 0.125 0.125 0.25; do
        k=$((k + 1))
        echo "#define K_FACTOR $factor" >"$tmp/own/consts.h"
        PILLAR_CACHE_DIR="$tmp/own/cache-$how" "$pillar" run --size 8x8x2 --stencil-file "$tmp/own/heat2.c" --backend cpu \
            --output "$tmp/own/out.h5" >"$tmp/own/log$k" 2>&1 || { echo "FAIL: heat2.c ($how include, K_FACTOR $factor):"; cat "$tmp/own/log$k"; fail=1; }
        mv "$tmp/own/out.h5" "$tmp/own/out$k.h5" # (one name: the file records the command line)
    done
    if grep -q "loaded 'heat2' (from the cache)" "$tmp/own/log2" && cmp -s "$tmp/own/out1.h5" "$tmp/own/out2.h5" &&
        grep -q "compiled 'heat2'" "$tmp/own/log3" && ! cmp -s "$tmp/own/out1.h5" "$tmp/own/out3.h5"; then
        echo "ok: a #define changed in a header included by $how path compiles the stencil again"
    else
        echo "FAIL: a header included by $how path changed, the stencil was not compiled again:"; cat "$tmp/own/log2" "$tmp/own/log3"; fail=1
    fi
done

# --- MPI: a rank that fails alone (its --input or --mesh unreadable: the same relative path in
# another folder per rank) stops every rank, and ranks given different --steps are refused; each
# job ends within 10 s with a message (timeout 20: a hang fails)
if "$pillar" --version | grep -q "MPI yes" && command -v mpirun >/dev/null; then
    m="$tmp/mpi"; mkdir -p "$m/r0" "$m/r1"
    "$pillar" run --size 12x10x2 --steps 1 --backend cpu --output-inputs --output "$m/r0/f.h5" >/dev/null
    "$pillar" mesh generate "$m/r0/mesh.h5" --kind hexagons --n 8 --levels 2 >/dev/null
    echo "not a field file" >"$m/r1/f.h5"
    printf '#!/bin/sh\ncd "%s/r$OMPI_COMM_WORLD_RANK" && exec "$@"\n' "$m" >"$m/in-rank-dir"
    printf '#!/bin/sh\ns=$1; shift; [ "$OMPI_COMM_WORLD_RANK" = 1 ] && s=$((s + 1)); exec "$@" --steps $s\n' >"$m/steps-per-rank"
    chmod +x "$m/in-rank-dir" "$m/steps-per-rank"
    # mpi_alone WHAT NEEDLE ARGS...: a 2-rank job, exit != 0 within 10 s, NEEDLE in its output
    mpi_alone() {
        what=$1; needle=$2; shift 2
        t0=$(date +%s)
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMPI_MCA_orte_tmpdir_base="$m" \
            timeout 20 mpirun --oversubscribe -np 2 "$@" >"$m/log" 2>&1; rc=$?
        dt=$(($(date +%s) - t0))
        if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ $dt -gt 10 ] || ! grep -qF -- "$needle" "$m/log"; then
            echo "FAIL: MPI, $what: exit $rc after $dt s (want != 0 within 10 s, '$needle'):"; cat "$m/log"; fail=1
        else
            echo "ok: MPI, $what: exit $rc after $dt s"
        fi
    }
    mpi_alone "rank 1 cannot read --input" "another rank failed" \
        "$m/in-rank-dir" "$pillar" run --ranks 2 --backend cpu --size 12x10x2 --steps 2 --input f.h5
    mpi_alone "rank 1 has no --mesh" "no such file" \
        "$m/in-rank-dir" "$pillar" run --ranks 2 --backend cpu --mesh mesh.h5 --stencil graphlap --steps 2
    mpi_alone "ranks given different --steps" "different arguments" \
        "$m/steps-per-rank" 2 "$pillar" run --ranks 2 --backend cpu --size 12x10x2
    # every rank reports a failed partition; each line whole ("pillar: pillar: ..." when a
    # message was written in pieces that interleaved with another rank's)
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMPI_MCA_orte_tmpdir_base="$m" \
        timeout 20 mpirun --oversubscribe -np 7 "$pillar" run --backend cpu --size 6x6x2 --steps 1 >"$m/log" 2>&1
    if grep "partition" "$m/log" | grep -qv "^pillar: [^p]"; then
        echo "FAIL: MPI, a message line cut by another rank's:"; grep partition "$m/log"; fail=1
    else echo "ok: MPI, each rank's message is one whole line"; fi
else
    echo "skip: the MPI cases (pillar built without MPI, or no mpirun)"
fi

# --- stencil files and their compiler: a comment never closed, a bad clause named by its
# character, a compiler that hangs (stopped after PILLAR_COMPILE_TIMEOUT), one that writes
# nothing; temporary files of a killed compile removed by the next use of the cache
printf '#pragma pillar stencil(h) in(in) out(out) radius(1)\n#pragma pillar body\n/* ST(out, LD(in, C));\n' >"$tmp/unclosed.c"
printf '#pragma pillar stencil(h) in(in) out(out) radius(1) ;x\n#pragma pillar body\nST(out, LD(in, C));\n' >"$tmp/semicolon.c"
printf '#!/bin/sh\nexec sleep 30\n' >"$tmp/cc-hangs"; printf '#!/bin/sh\nexit 0\n' >"$tmp/cc-silent"
chmod +x "$tmp/cc-hangs" "$tmp/cc-silent"
expect 1 "unclosed.c:3: a comment opened here ('/*') is never closed" run --size 8x8x2 --stencil-file "$tmp/unclosed.c" --backend cpu
expect 1 "semicolon.c:1: unexpected ';' in '#pragma pillar'" run --size 8x8x2 --stencil-file "$tmp/semicolon.c" --backend cpu
t0=$(date +%s)
CC="$tmp/cc-hangs" PILLAR_COMPILE_TIMEOUT=2 PILLAR_CACHE_DIR="$tmp/cc-cache" expect 1 "did not finish within 2 s" run --size 8x8x2 --stencil-file "$tmp/heat.c" --backend cpu
[ $(($(date +%s) - t0)) -le 10 ] || { echo "FAIL: a hanging compiler was not stopped within 10 s"; fail=1; }
CC="$tmp/cc-silent" PILLAR_CACHE_DIR="$tmp/cc-cache" expect 1 "exited 0 but wrote no shared object" run --size 8x8x2 --stencil-file "$tmp/heat.c" --backend cpu
if ls -a "$tmp/cc-cache" | grep -q "tmp-"; then echo "FAIL: the failed compiles left temporary files"; ls -a "$tmp/cc-cache"; fail=1; fi
# a compile killed with SIGKILL (pillar and its hanging compiler): the next use removes its files
CC="$tmp/cc-hangs" PILLAR_CACHE_DIR="$tmp/cc-cache" "$pillar" run --size 8x8x2 --stencil-file "$tmp/heat.c" --backend cpu >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 400 ] && ! ls -a "$tmp/cc-cache" | grep -q "tmp-$pid"; do sleep 0.05; i=$((i + 1)); done
kill -9 -- -$(ps -o pgid= -p $(pgrep -P $pid | head -n1) | tr -d ' ') 2>/dev/null; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
ls -a "$tmp/cc-cache" | grep -q "tmp-$pid" || { echo "FAIL: the compile was not caught running (no temporary file)"; fail=1; }
sh -c 'exit 0' & dead=$!; wait $dead
: >"$tmp/cc-cache/.cpu-0123.so.tmp-$dead"; : >"$tmp/cc-cache/.cpu-0123.so.tmp-$dead.log"; : >"$tmp/cc-cache/.cpu-0123.so.tmp-$$.log"
PILLAR_CACHE_DIR="$tmp/cc-cache" "$pillar" run --size 8x8x2 --stencil-file "$tmp/heat.c" --backend cpu >/dev/null 2>&1 || { echo "FAIL: heat.c after a killed compile"; fail=1; }
if ls -a "$tmp/cc-cache" | grep -q "tmp-$pid\|tmp-$dead"; then echo "FAIL: a killed compile's temporary files survived:"; ls -a "$tmp/cc-cache"; fail=1
elif [ ! -e "$tmp/cc-cache/.cpu-0123.so.tmp-$$.log" ]; then echo "FAIL: a live process's temporary file was removed"; fail=1
else echo "ok: the temporary files of a killed compile are removed by the next use of the cache"; fi

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
