#!/bin/bash
# Lattice cells (this commit): the cost of frame-free relations after the fast path, the cubed
# sphere 6x384^2x64 (laplap, hdiff; file, z-curve, METIS order against the regular grid of equal
# cell count) and the lattice 512x512x64 in the configurations of run-13c9f07.sh (whose log,
# quad-13c9f07.log, holds the old 12-relation figures "O" and the 20-relation ones "N" before
# the fast path). Builds first, runs the GPU tests (small, out of core) before timing anything.
#   run.sh COMMIT   in the repository root on the GPU machine
source .devdeps/env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/device.txt
PILLAR_COMMIT=$1 cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build-gpu -j16 > /dev/null 2>&1 || exit 1
(cd build-gpu && ctest -R "gpu_small|ooc_gpu" -j2 --output-on-failure > $OUT/ctest-gpu.log 2>&1; grep -E "Test #|tests passed" $OUT/ctest-gpu.log)
N=./build-gpu/pillar
{
echo "== lattice 512x512x64 double"
for st in laplap hdiff; do for cfg in "--storage nonchasing --compress --access idxvar --layout zcurve-w --threads 128x1x1" \
    "--storage nonchasing --compress --packed-rows --access idxvar --layout zcurve-w --threads 128x1x1" \
    "--storage chasing --compress --access idxvar --layout zcurve-w --threads 128x1x1" \
    "--storage nonchasing --compress --access zloop-sliced --layout zcurve-w"; do
  echo "== N $st $cfg"; $N run --size 512x512x64 --stencil $st $cfg --runs 20 --backend gpu | grep -E "  time|verify"
done; done
$N mesh generate /tmp/sphere.h5 --kind cubed-sphere --n 384 --levels 64
for st in laplap hdiff; do
  for acc in idxvar zloop-sliced; do
    echo "== $st regular-944 $acc"; $N run --grid regular --size 944x944x64 --stencil $st --access $acc --runs 20 --backend gpu | grep -E "  time|verify"
  done
  for lay in file zcurve metis; do for acc in idxvar zloop-sliced; do for stor in "--storage nonchasing --compress" "--storage chasing --compress"; do
    [ $lay = metis ] && [ $acc = idxvar ] && continue
    echo "== N $st $lay $acc $stor"; $N run --mesh /tmp/sphere.h5 --stencil $st --layout $lay $stor --access $acc --runs 20 --backend gpu | grep -E "  time|verify"
  done; done; done
done
} 2>&1 | tee $OUT/quad.log | grep -E "^==|time|FAIL|rror" | paste - - | sed -E "s/ +/ /g; s/ of 20 runs.*//" | cut -c1-150
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu --small > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -2 $OUT/memcheck.log
