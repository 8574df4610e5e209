#!/bin/sh
# make.sh — small inputs for trying pillar, the examples and tests by hand, made with the pillar
# binary (nothing here is downloaded). Usage: sh data/make.sh [PILLAR [DIR]]
#   PILLAR  the pillar binary (default: build/pillar of this checkout)
#   DIR     where the files go (default: this folder)
# Writes, in DIR:
#   sphere.h5         a cubed sphere of 6 panels of 8x8 cells, 8 levels (docs/mesh-format.md)
#   sphere-laplap.h5  laplap's input and output fields on it, in the mesh's cell order
#                     (docs/field-format.md), verified on the CPU; usable as --input
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pillar=${1:-$here/../build/pillar}
dir=${2:-$here}
if [ ! -x "$pillar" ]; then
    echo "make.sh: no pillar binary at $pillar (build first, or give its path)" >&2
    exit 1
fi
mkdir -p "$dir"
"$pillar" mesh generate "$dir/sphere.h5" --kind cubed-sphere --n 8 --levels 8
"$pillar" run --mesh "$dir/sphere.h5" --stencil laplap --backend cpu --runs 1 \
    --output "$dir/sphere-laplap.h5" --output-inputs
