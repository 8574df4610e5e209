source .devdeps/env.sh; source .devfortran/env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 2>&1 | grep -E "error" ; 
ctest --test-dir build-gpu -R "^(own_gpu|dist_cli_gpu|dist_gpu|gmsh|install|dist_model)$" --output-on-failure > $OUT/ctest.log 2>&1; grep -E "Test +#|tests passed|FAIL" $OUT/ctest.log
P=build-gpu/pillar
for s in laplap hdiff; do $P run --plan-only --backend gpu --stencil $s --size 1024x1024x64; done > $OUT/plan.txt 2>&1
$P mesh generate /tmp/hex.nc --kind hexagons --size 1024x1024 --levels 64 >/dev/null && $P run --plan-only --backend gpu --stencil graphlap --mesh /tmp/hex.nc --layout metis >> $OUT/plan.txt 2>&1
grep -vE "^ +(2|4|8|16|32|64|128|256|512) " $OUT/plan.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun -np 2 --oversubscribe $P run --stencil laplap --size 1024x1024x64 --steps 20 --backend gpu 2>&1 | grep -E "time|pieces|verify"
