#!/bin/bash
# pack-fortran.sh — packs this Debian machine's gfortran 12 (driver, f951, runtime libraries) into
# .devfortran/ of the repository, for a GPU machine that has no Fortran compiler: carry
# ".devfortran" there and `source .devfortran/env.sh` (tools/gpu-check.sh does) to build and run
# the Fortran module, example and tests (fortran_api, fortran_cli, fortran_cli_gpu).
set -euo pipefail
cd "$(dirname "$0")/.."
gcc=/usr/lib/gcc/x86_64-linux-gnu/12
[ -x "$gcc/f951" ] || { echo "pack-fortran.sh: no gfortran 12 here (apt-get install gfortran)" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/gf/bin" "$tmp/gf/lib"
cp /usr/bin/x86_64-linux-gnu-gfortran-12 "$tmp/gf/bin/gfortran"
(cd "$gcc" && cp f951 collect2 lto-wrapper liblto_plugin.so crt*.o libgcc.a libgcc_eh.a libgcc_s.so \
    libgfortran.so libgfortran.a libgfortran.spec libquadmath.so libquadmath.a "$tmp/gf/lib/" &&
    cp -r finclude "$tmp/gf/lib/")
cp -L /usr/lib/x86_64-linux-gnu/libgfortran.so.5 /usr/lib/x86_64-linux-gnu/libquadmath.so.0 "$tmp/gf/lib/"
rm -rf .devfortran && mkdir -p .devfortran
tar cJf .devfortran/gf.tar.xz -C "$tmp" gf
cat >.devfortran/env.sh <<'ENV'
# gfortran 12 packed by tools/pack-fortran.sh: unpacked into /tmp/gf once; sets FC and FFLAGS
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -d /tmp/gf ] || tar xJf "$src/gf.tar.xz" -C /tmp
export FC=/tmp/gf/bin/gfortran FFLAGS="-B/tmp/gf/lib/" LD_LIBRARY_PATH="/tmp/gf/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ENV
grep -qx '/.devfortran/' .git/info/exclude 2>/dev/null || echo '/.devfortran/' >>.git/info/exclude
echo "packed gfortran into .devfortran ($(du -h .devfortran/gf.tar.xz | cut -f1))"
