source .devdeps/env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 --target pillar test_persistent > /tmp/build.log 2>&1 || { grep error /tmp/build.log | head; exit 1; }
P=build-gpu/pillar
for s in laplap hdiff; do $P run --plan-only --backend gpu --stencil $s --size 1024x1024x64; done > $OUT/plan.txt 2>&1
$P mesh generate /tmp/hex.nc --kind hexagons --size 1024x1024 --levels 64 >/dev/null && $P run --plan-only --backend gpu --stencil graphlap --mesh /tmp/hex.nc --layout metis >> $OUT/plan.txt 2>&1
grep -E "measured|pack|interior|^ +(1|2|8|1024) " $OUT/plan.txt
M=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,launch__registers_per_thread,launch__grid_size,launch__block_size
for a in "off" "on --persistent-levels 0" "on --persistent-levels 1"; do echo "== laplap 512x512x16 20 steps --persistent $a"; ncu --metrics $M -k "regex:^k" --launch-count 1 $P run --stencil laplap --size 512x512x16 --steps 20 --backend gpu --persistent $a 2>&1 | grep -E "^  k|dram__|gpu__time|throughput|warps_active|stalled|registers|grid_size|block_size|verify"; done > $OUT/ncu-persistent.txt 2>&1; cat $OUT/ncu-persistent.txt
timeout 80 ctest --test-dir build-gpu -R "^persistent$" --output-on-failure > $OUT/ctest-persistent.log 2>&1; tail -5 $OUT/ctest-persistent.log
