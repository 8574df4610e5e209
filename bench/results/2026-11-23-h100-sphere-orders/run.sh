#!/bin/bash
# device run 5: cubed sphere 6x384^2x64 in file, z-curve and METIS order vs the regular grid of equal cell count
source .devdeps/env.sh
PILLAR_COMMIT=$1 cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release > $OUT/configure.log 2>&1
cmake --build build-gpu -j16 > $OUT/build.log 2>&1 || { grep -E "error" $OUT/build.log | head -20; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/device.txt
P=./build-gpu/pillar
{
$P mesh generate /tmp/sphere.h5 --kind cubed-sphere --n 384 --levels 64
for lay in file zcurve metis; do echo "== info $lay"; $P mesh info /tmp/sphere.h5 --layout $lay | grep -A5 "neighbour table"; done
for st in laplap hdiff fastwaves; do
  for acc in idxvar zloop-sliced; do
    echo "== $st regular-944 $acc"; $P run --grid regular --size 944x944x64 --stencil $st --access $acc --runs 20 --backend gpu | grep -E "time|verify"
  done
  for lay in file zcurve metis; do for acc in idxvar zloop-sliced; do for stor in "--storage nonchasing --compress" "--storage chasing --compress"; do
    echo "== $st $lay $acc $stor"; $P run --mesh /tmp/sphere.h5 --stencil $st --layout $lay $stor --access $acc --runs 20 --backend gpu | grep -E "time|verify"
  done; done; done
done
} > $OUT/sphere.log 2>&1
grep -E "^==|time|FAIL|rror" $OUT/sphere.log | paste - - | sed -E "s/ +/ /g; s/ of 20 runs.*//" | cut -c1-120
grep -ci "metis.*error\|cannot bisect" $OUT/sphere.log
