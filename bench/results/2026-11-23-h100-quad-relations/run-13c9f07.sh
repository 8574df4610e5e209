#!/bin/bash
# The cost of frame-free relations (issue 15): the cubed sphere 6x384^2x64 (laplap, hdiff; file,
# z-curve and METIS order against the regular grid of equal cell count) with the corrected
# tables, then the lattice (512x512x64) with the tables of 2e98bb3 (12 relations, .old/) and of
# this commit (20 relations), same configurations, same session.
#   run.sh NEW_COMMIT   in the repository root on the GPU machine, .old/ holding 2e98bb3
source .devdeps/env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/device.txt
PILLAR_COMMIT=$1 cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build-gpu -j16 > /dev/null 2>&1 || exit 1
(cd .old && PILLAR_COMMIT=2e98bb3 cmake -S . -B build-old -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build-old -j16 > /dev/null 2>&1) || exit 1
N=./build-gpu/pillar; O=./.old/build-old/pillar
{
echo "== lattice 512x512x64 double, old (12 relations) vs new (20)"
for st in laplap hdiff; do for cfg in "--storage nonchasing --compress --access idxvar --layout zcurve-w --threads 128x1x1" \
    "--storage nonchasing --compress --packed-rows --access idxvar --layout zcurve-w --threads 128x1x1" \
    "--storage chasing --compress --access idxvar --layout zcurve-w --threads 128x1x1" \
    "--storage nonchasing --compress --access zloop-sliced --layout zcurve-w"; do
  for b in O N; do echo "== $b $st $cfg"; ${!b} run --size 512x512x64 --stencil $st $cfg --runs 20 --backend gpu | grep -E "  time|verify"; done
done; done
$N mesh generate /tmp/sphere.h5 --kind cubed-sphere --n 384 --levels 64
$O mesh generate /tmp/sphere-old.h5 --kind cubed-sphere --n 384 --levels 64
for st in laplap hdiff; do
  for acc in idxvar zloop-sliced; do
    echo "== $st regular-944 $acc"; $N run --grid regular --size 944x944x64 --stencil $st --access $acc --runs 20 --backend gpu | grep -E "  time|verify"
  done
  for lay in file zcurve metis; do for acc in idxvar zloop-sliced; do for stor in "--storage nonchasing --compress" "--storage chasing --compress"; do
    echo "== N $st $lay $acc $stor"; $N run --mesh /tmp/sphere.h5 --stencil $st --layout $lay $stor --access $acc --runs 20 --backend gpu | grep -E "  time|verify"
    [ $lay = file ] && { echo "== O $st $lay $acc $stor"; $O run --mesh /tmp/sphere-old.h5 --stencil $st --layout $lay $stor --access $acc --runs 20 --backend gpu | grep -E "  time|verify"; }
  done; done; done
done
} 2>&1 | tee $OUT/quad.log | grep -E "^==|time|FAIL|rror" | paste - - | sed -E "s/ +/ /g; s/ of 20 runs.*//" | cut -c1-150
