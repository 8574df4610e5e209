#!/bin/sh
# quickstart.sh — sets pillar up on a fresh Debian machine and runs its default job.
# As root it installs the missing system packages (compilers, CMake, HDF5, netCDF and its tools,
# METIS, Gmsh, Open MPI, matplotlib, xarray with netCDF4, venv);
# then it configures and builds into build/ and runs `pillar` on its built-in 512x512x64 grid.
#   PILLAR_NO_RUN=1   build only (CI)
#   PILLAR_CUDA=OFF   build without the CUDA backend even where nvcc exists
set -eu
cd "$(dirname "$0")/.."
pkgs="build-essential gfortran cmake pkg-config libhdf5-dev libnetcdf-dev netcdf-bin libmetis-dev libgmsh-dev libopenmpi-dev openmpi-bin python3 python3-matplotlib python3-xarray python3-netcdf4 python3-venv"
missing=""
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "quickstart: installing$missing"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    else
        echo "quickstart: missing packages:$missing (run this script as root, or install them)" >&2
        exit 1
    fi
fi
# nvcc is often installed outside PATH
[ -x /usr/local/cuda/bin/nvcc ] && PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPILLAR_CUDA="${PILLAR_CUDA:-AUTO}" >/dev/null
cmake --build build -j "$(nproc)"
[ -n "${PILLAR_NO_RUN:-}" ] || ./build/pillar
