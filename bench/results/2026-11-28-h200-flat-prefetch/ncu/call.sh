#!/bin/bash
# call (x1): issue 36: ncu of the new best unstructured laplap/hdiff kernels and their twins (H200)
set -u
source .devdeps/env.sh
T0=$SECONDS
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release > $OUT/cfg.log 2>&1 && cmake --build $B -j16 --target pillar > $OUT/build.log 2>&1 || { tail -n 20 $OUT/build.log; exit 1; }
echo "built at $((SECONDS-T0)) s"
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section InstructionStats"
run() { # name, pillar run flags
  timeout 100 ncu -k 'regex:k_(LAPLAP|HDIFF)_' -s 2 -c 1 $S $B/pillar run --size 512x512x64 --precision double --backend gpu --runs 3 --verify off $2 > $OUT/ncu-$1.txt 2>&1
  echo "$1 rc $? at $((SECONDS-T0)) s"
}
run laplap-uns "--stencil laplap --layout rowmajor --storage nonchasing --compress --packed-rows --access zloop-plain --threads 128x1x1"
run laplap-reg "--stencil laplap --grid regular --access pairs"
run hdiff-uns "--stencil hdiff --layout zcurve-w --storage nonchasing --compress --packed-rows --access zloop-plain --threads 128x1x1"
run hdiff-reg "--stencil hdiff --grid regular --access pairs"
for f in $OUT/ncu-*.txt; do echo "== $f"; grep -E "^  [a-z_]+.*\(|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|L1/TEX Hit|L2 Hit|DRAM Throughput|Memory Throughput|L1/TEX Cache Throughput|Executed Ipc A|Issue Slots Busy|Warp Cycles Per Issued|Executed Instructions  " $f | head -16; done
rm -f $OUT/cfg.log
