#!/bin/sh
# format-gallery.sh — one end-to-end run per sample mesh format in data/ (ICON, MPAS, UGRID,
# SCRIP): import, a smooth input field written with xarray from the cell centres, a graphlap run
# with --output, and a PNG of the output drawn on the cells (tools/plot-field) into OUTDIR
# (default docs/formats). Needs the pillar binary (PILLAR, default build/pillar) and python3 with
# xarray, netCDF4 and matplotlib (Debian: python3-xarray python3-netcdf4 python3-matplotlib).
# usage: tools/format-gallery.sh [OUTDIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
pillar=${PILLAR:-$root/build/pillar}
out=${1:-$root/docs/formats}
py=${PYTHON:-python3}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in icon-classic mpas-sphere ugrid-mixed scrip-latlon; do
    "$pillar" mesh import "$root/data/$f.nc" "$tmp/$f.nc" --levels 2 >/dev/null
    # the input: sin(3x) cos(2y) of the cell centres (x, y: longitude, latitude in radians, or
    # the plane coordinates scaled to [0, pi]), on both levels
    "$py" - "$tmp/$f" <<'PY'
import sys, numpy as np, xarray as xr
p = sys.argv[1]
m = xr.open_dataset(p + ".nc")
if "mesh_face_lon" in m:
    x, y = np.radians(m.mesh_face_lon.values), np.radians(m.mesh_face_lat.values)
else:
    x, y = (np.pi * (a - a.min()) / np.ptp(a) for a in (m.mesh_face_x.values, m.mesh_face_y.values))
v = np.tile(np.sin(3 * x) * np.cos(2 * y), (m.sizes["nLevels"] if "nLevels" in m.sizes else 2, 1))
xr.Dataset({"in": (("nLevels", "nCells"), v)}).to_netcdf(p + "-start.nc")
PY
    "$pillar" run --mesh "$tmp/$f.nc" --stencil graphlap --backend cpu --input "$tmp/$f-start.nc" \
        --output "$tmp/$f-out.nc" --output-inputs | grep verify
    "$py" "$root/tools/plot-field" "$tmp/$f-out.nc" "$out/$f.png"
done
