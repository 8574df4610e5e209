#!/bin/sh
# `cmake --install` into a scratch prefix, then examples/c/timeloop.c built out of tree against
# it through find_package(pillar) (libpillar.so and libpillar.a) and through pkg-config, and run
# without LD_LIBRARY_PATH (the rpath comes from the package: no build rpath of CMake's, no -Wl
# flag of ours);
# the installed libpillar.so exports the API's pillar_* functions only. Given a Fortran compiler
# (pillar built with Fortran), examples/fortran/timeloop.f90 too: through find_package (the
# installed pillar.f90), with the installed pillar.mod and libpillar_fortran.a, and through
# pkg-config pillar-fortran alone.
# usage: install_test.sh BUILD_DIR SOURCE_DIR C_COMPILER [FORTRAN_COMPILER]
build=$1
src=$2
cc=$3
fc=${4:-}
case $fc in *NOTFOUND) fc= ;; esac # pillar configured without Fortran
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p="$tmp/prefix"

unset LD_LIBRARY_PATH # what is linked finds libpillar.so through its rpath
step() { # step WHAT COMMAND... : runs it, output shown on failure
    what=$1; shift
    if "$@" >"$tmp/log" 2>&1; then echo "ok: $what"; else echo "FAIL: $what:"; cat "$tmp/log"; fail=1; fi
}

step "cmake --install" cmake --install "$build" --prefix "$p"
for f in bin/pillar include/pillar.h include/pillar.f90; do
    step "installed $f" test -f "$p/$f"
done
libdir=$(dirname "$(find "$p" -name libpillar.a | head -n 1)")
step "installed libpillar.a, libpillar.so, pillarConfig.cmake, pillar.pc" test -f "$libdir/libpillar.so" \
    -a -f "$libdir/cmake/pillar/pillarConfig.cmake" -a -f "$libdir/pkgconfig/pillar.pc"
step "installed pillar runs" "$p/bin/pillar" --version
others=$(nm -D --defined-only "$libdir/libpillar.so" | awk '$2 ~ /^[TDBRW]$/ && $3 !~ /^pillar_/ {print $3}')
step "libpillar.so exports pillar_* only (others: $others)" test -z "$others"

for static in OFF ON; do
    step "find_package(pillar), PILLAR_USE_STATIC=$static: configure" cmake -S "$src/examples/c" \
        -B "$tmp/ex$static" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$p" -DPILLAR_USE_STATIC=$static
    step "find_package(pillar), PILLAR_USE_STATIC=$static: build" cmake --build "$tmp/ex$static"
    step "find_package(pillar), PILLAR_USE_STATIC=$static: run" "$tmp/ex$static/timeloop" --steps 3 --backend cpu
done
# without CMake's build rpath (as once installed) the package's own rpath finds libpillar.so
step "find_package(pillar), no build rpath: configure" cmake -S "$src/examples/c" -B "$tmp/exnr" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$p" -DCMAKE_SKIP_BUILD_RPATH=ON
step "find_package(pillar), no build rpath: build" cmake --build "$tmp/exnr"
step "find_package(pillar), no build rpath: run" "$tmp/exnr/timeloop" --steps 3 --backend cpu

if [ -n "$fc" ]; then
    step "installed include/pillar.mod, libpillar_fortran.a" test -f "$p/include/pillar.mod" \
        -a -f "$libdir/libpillar_fortran.a"
    for static in OFF ON; do
        step "Fortran, find_package(pillar), PILLAR_USE_STATIC=$static: configure" cmake \
            -S "$src/examples/fortran" -B "$tmp/exf$static" -DCMAKE_C_COMPILER="$cc" \
            -DCMAKE_Fortran_COMPILER="$fc" -DCMAKE_PREFIX_PATH="$p" -DPILLAR_USE_STATIC=$static
        step "Fortran, find_package(pillar), PILLAR_USE_STATIC=$static: build" cmake --build "$tmp/exf$static"
        step "Fortran, find_package(pillar), PILLAR_USE_STATIC=$static: run" \
            "$tmp/exf$static/timeloop_f" --steps 3 --backend cpu
    done
    step "Fortran, the installed pillar.mod: build" "$fc" ${FFLAGS:-} -I"$p/include" \
        "$src/examples/fortran/timeloop.f90" -L"$libdir" -lpillar_fortran -lpillar -Wl,-rpath,"$libdir" -o "$tmp/fmod"
    step "Fortran, the installed pillar.mod: run" "$tmp/fmod" --steps 3 --backend cpu
else
    echo "skip: Fortran (pillar built without a Fortran compiler)"
fi

if command -v pkg-config >/dev/null 2>&1; then
    export PKG_CONFIG_PATH="$libdir/pkgconfig"
    step "pkg-config --cflags --libs pillar: build" sh -c "\"$cc\" \"$src/examples/c/timeloop.c\" \
        \$(pkg-config --cflags --libs pillar) -lm -o \"$tmp/pc\""
    step "pkg-config: run" "$tmp/pc" --steps 3 --backend cpu
    if [ -n "$fc" ]; then
        step "pkg-config --cflags --libs pillar-fortran: build" sh -c "\"$fc\" \
            \"$src/examples/fortran/timeloop.f90\" \$(pkg-config --cflags --libs pillar-fortran) \
            -o \"$tmp/pcf\""
        step "pkg-config pillar-fortran: run" "$tmp/pcf" --steps 3 --backend cpu
    fi
else
    echo "skip: no pkg-config"
fi
exit $fail
