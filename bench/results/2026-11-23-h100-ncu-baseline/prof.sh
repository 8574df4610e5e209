source .devdeps/env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 >/dev/null || exit 1
P=build-gpu/pillar
$P mesh generate /tmp/hex.nc --kind hexagons --size 1024x1024 --levels 64 >/dev/null || exit 1
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy --section SourceCounters"
i=0
prof() { i=$((i+1)); ncu $S -k "regex:$1" --launch-skip 1 --launch-count 1 $P run "${@:2}" --backend gpu --runs 2 > $OUT/ncu-$i.txt 2>&1; echo "== $i: ${*:2}"; grep -E "^  [a-zA-Z_]+.*\(|Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|L1/TEX Cache Throughput|Compute \(SM\)" $OUT/ncu-$i.txt | head -14; }
prof kg_ --stencil graphlap --mesh /tmp/hex.nc --grid regular --access zloop-sliced --threads 32x4x1
prof kg_ --stencil graphlap --mesh /tmp/hex.nc --layout file --storage chasing --compress --access naive --threads 128x1x1
prof kg_ --stencil graphlap --mesh /tmp/hex.nc --layout file --storage nonchasing --compress --access idxvar --threads 128x1x1
prof kg_ --stencil graphlap --mesh /tmp/hex.nc --layout zcurve --storage chasing --access staged --threads 256x1x1
prof "^k_" --stencil laplap --size 512x512x64 --layout zcurve-w --storage nonchasing --compress --packed-rows --access idxvar --threads 128x1x1
prof "^k_" --stencil laplap --size 512x512x64 --grid regular --access idxvar --threads 32x4x1
ls $OUT
