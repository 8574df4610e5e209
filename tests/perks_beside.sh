#!/bin/sh
# tools/perks-beside.sh without a GPU: its table and CSV from stand-ins written here (not PERKS's
# or pillar's output: a fake nvidia-smi, PERKS binaries and pillar that print lines in their
# formats with numbers chosen so that the table's values are known), the degraded cases (a
# missing PERKS binary, a refused or failing PERKS configuration, a pillar variant not run, no
# PERKS at all, no pillar), the usage error, and the clean refusal where no GPU is listed.
# usage: perks_beside.sh REPO_ROOT          exit 0 pass, 1 fail
root=${1:?usage: perks_beside.sh REPO_ROOT}
tool=$root/tools/perks-beside.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
mkdir -p "$tmp/bin" "$tmp/nogpu" "$tmp/perks" "$tmp/build" "$tmp/state"

cat >"$tmp/bin/nvidia-smi" <<'EOF'
#!/bin/sh
echo "Stand-in GPU, 1.0"
EOF
cat >"$tmp/nogpu/nvidia-smi" <<'EOF'
#!/bin/sh
echo "No devices were found"
exit 6
EOF

# PERKS stand-in: µs a step = L x a factor per configuration; the timed runs of a configuration
# take 1.0, 1.1, 0.9 of it (median 1.0); bdim 128 blkpsm 1 usesm is refused, bdim 256 blkpsm 2
# usesm fails its check (and is the fastest: it must not count)
cat >"$tmp/perks/fake" <<'EOF'
#!/bin/sh
v=${0##*3d7pt_}
L=$1 it=3 bd=256 k=0 sm=0 check=0
for a in "$@"; do
    case $a in --iter=*) it=${a#--iter=} ;; --bdim=*) bd=${a#--bdim=} ;; --blkpsm=*) k=${a#--blkpsm=} ;;
    --usesm) sm=1 ;; --check) check=1 ;; esac
done
f=0 rf=0 sf=0
case $v:$bd:$k:$sm in
baseline:256:*) f=2.0 ;;
baseline:128:*) f=2.25 ;;
persistent:*) f=1.9 ;;
gen:256:1:1) f=1.0 sf=6 ;;
gen:256:2:1) f=0.5 sf=3 ;;
gen:128:2:1) f=1.25 sf=2 ;;
gen:128:1:1) [ $check = 1 ] && echo "the kernel is inlaunchable"; exit 0 ;;
esac
if [ $check = 1 ]; then
    if [ "$v:$bd:$k:$sm" = gen:256:2:1 ]; then echo "[Test] RMS Error : 3.000000e-03"; exit 255; fi
    echo "[Test] RMS Error : 1.000000e-13"; exit 0
fi
n=$(cat "$STATE/count" 2>/dev/null || echo 0)
echo $((n + 1)) >"$STATE/count"
awk -v L="$L" -v f="$f" -v it="$it" -v n="$n" -v bd="$bd" -v v="$v" -v rf="$rf" -v sf="$sf" 'BEGIN {
    m = (n % 3 == 0) ? 1.0 : (n % 3 == 1) ? 1.1 : 0.9
    printf "800\t2\t%d\t512\t512\t%d\t%d\t8\t<8,16,1>\t132\t1\t10.0\t%f\t1.0\t", L, it, bd, L * f * m * it / 1000
    if (v == "gen") printf "%d\t%d\t100\t", rf, sf
    printf "\n" }'
EOF
chmod +x "$tmp/bin/nvidia-smi" "$tmp/nogpu/nvidia-smi" "$tmp/perks/fake"
for v in baseline persistent gen; do ln -s fake "$tmp/perks/3d7pt_$v"; done # no genwr

# pillar stand-in: bench --iterated writes its CSV (laplap: host loop 3.5 L, persistent 4.5 L, on
# chip 2.25 L;
# graphlap: host loop 10 L, persistent not run); mesh generate stores the levels; run prints the
# kernels' (off) or the launch's (on) time: 3 L and 4 L µs a step
cat >"$tmp/build/pillar" <<'EOF'
#!/bin/sh
cmd=$1; shift
case $cmd in
bench)
    st= out= lv=
    while [ $# -gt 0 ]; do
        case $1 in --stencil) st=$2 ;; --out) out=$2 ;; --levels) lv=$2 ;; esac; shift
    done
    mkdir -p "$out"
    echo "pillar bench --iterated on Stand-in GPU, commit 0123abc: 200 steps a run, median of 3 runs"
    if [ "$st" = laplap ]; then echo "laplap double on 512x512 zcurve-w nonchasing compressed, 200 steps, median of 3 runs after a verified warm-up (kernels only; Stand-in GPU)"
    else echo "graphlap double on hexagons 1024x1024, file order, neighbour lists, 200 steps, median of 3 runs after a verified warm-up (kernels only; Stand-in GPU)"; fi
    c=$out/iterated-20260101-000000.csv
    echo "stencil,precision,nx,ny,nz,variant,runs_as,steps_per_launch,threads,steps,runs,median_us_per_step,min_us_per_step,max_us_per_step,speedup,verify,backend" >"$c"
    for L in $(echo "$lv" | tr ',' ' '); do
        if [ "$st" = laplap ]; then
            awk -v L="$L" 'BEGIN { h = 3.5 * L; p = 4.5 * L; o = 0
                printf "laplap,double,512,512,%d,host-loop,host-loop,1,128,200,3,%.3f,%.3f,%.3f,1.0000,PASS,gpu\n", L, h, h, h
                printf "laplap,double,512,512,%d,persistent,persistent,200,0,200,3,%.3f,%.3f,%.3f,%.4f,PASS,gpu\n", L, p, p, p, h / p
                o = 2.25 * L
                printf "laplap,double,512,512,%d,onchip,onchip,200,0,200,3,%.3f,%.3f,%.3f,%.4f,PASS,gpu\n", L, o, o, o, h / o
                printf "laplap,double,512,512,%d,auto,host-loop,1,128,200,3,%.3f,%.3f,%.3f,1.0000,PASS,gpu\n", L, h, h, h }' >>"$c"
        else
            awk -v L="$L" 'BEGIN { h = 10 * L
                printf "graphlap,double,1024,1024,%d,host-loop,host-loop,1,128,200,3,%.3f,%.3f,%.3f,1.0000,PASS,gpu\n", L, h, h, h
                printf "graphlap,double,1024,1024,%d,persistent,persistent,200,0,200,3,,,,,not run,gpu\n", L }' >>"$c"
        fi
    done ;;
mesh)
    shift; f=$1; shift
    while [ $# -gt 0 ]; do [ "$1" = --levels ] && echo "$2" >"$f"; shift; done
    echo "wrote $f" ;;
run)
    f= mode= vo=0
    while [ $# -gt 0 ]; do
        case $1 in --mesh) f=$2 ;; --persistent) mode=$2 ;; --verify) vo=1 ;; esac; shift
    done
    L=$(cat "$f")
    echo "laplap double, 200 steps on mesh $f (zcurve order)"
    if [ "$mode" = off ]; then
        awk -v L="$L" 'BEGIN { printf "  time      9.000 ms per step (median pass 9 ms / 200 steps, of 1 pass), total 1 s\n  kernels   %.3f ms per step (the steps alone, copies excluded)\n", 3 * L / 1000 }'
    else
        echo "  persistent 132 blocks x 256 threads (1 per SM at most), <= 1 of 2 cells per block"
        awk -v L="$L" 'BEGIN { printf "  time      %.3f ms per step (the launch: 1 ms for 200 steps, 199 grid barriers), total 1 s with the copies\n", 4 * L / 1000 }'
    fi
    if [ $vo = 1 ]; then echo "  verify    skipped (--verify off)"; else echo "  verify    PASS: 0 of 5 points differ"; fi ;;
esac
EOF
chmod +x "$tmp/build/pillar"

export STATE="$tmp/state" BESIDE_RUNS=3 BESIDE_LEVELS="16 64" PERKS_BDIMS="256 128" PERKS_BLKPSM="1 2"
P=$tmp/bin:$PATH

# usage
bash "$tool" >"$tmp/usage.txt" 2>&1
[ $? -eq 2 ] && grep -q '^usage: tools/perks-beside.sh PERKS_DIR BUILD OUT' "$tmp/usage.txt" || bad "usage: $(cat "$tmp/usage.txt")"

# no GPU: exit 2, one message, nothing written
PATH=$tmp/nogpu:$PATH bash "$tool" "$tmp/perks" "$tmp/build" "$tmp/out0" >"$tmp/nogpu.txt" 2>&1
rc=$?
[ $rc -eq 2 ] || bad "no GPU: exit $rc, want 2"
grep -q 'no NVIDIA GPU here' "$tmp/nogpu.txt" || bad "no GPU: message: $(cat "$tmp/nogpu.txt")"
[ ! -e "$tmp/out0" ] || bad "no GPU: $tmp/out0 written"

# the full stand-in run
# (exit 1: the configuration whose check fails)
PATH=$P bash "$tool" "$tmp/perks" "$tmp/build" "$tmp/out" >"$tmp/run.txt" 2>&1
rc=$?
[ $rc -eq 1 ] || bad "run: exit $rc, want 1: $(tail -n 5 "$tmp/run.txt")"
grep -q '^perks-beside.sh: 2 configuration(s) failed their check$' "$tmp/run.txt" || bad "run: no failure line"
md=$tmp/out/perks-beside.md
csv=$tmp/out/perks-beside.csv
want() { grep -qxF -- "$1" "$2" || bad "missing in ${2##*/}: $1"; }
want "| 512x512 x 16 | 32.0 → 16.0 µs (**2.00x**); best: gen bdim=256 blkpsm=1 usesm, cache registers 0 + shared 6 planes; host loop bdim=256 | 30.4 µs (1.05x) persistent bdim=256 blkpsm=1 | laplap on 512x512 zcurve-w nonchasing compressed | 56.0 → 36.0 µs (**1.56x**); best: onchip |" "$md"
want "| 512x512 x 64 | 128 → 64.0 µs (**2.00x**); best: gen bdim=256 blkpsm=1 usesm, cache registers 0 + shared 6 planes; host loop bdim=256 | 122 µs (1.05x) persistent bdim=256 blkpsm=1 | laplap on 512x512 zcurve-w nonchasing compressed | 224 → 144 µs (**1.56x**); best: onchip |" "$md"
want "| graphlap on hexagons 1024x1024; file order; neighbour lists x 16 | — (PERKS: boxes only) | — | graphlap on hexagons 1024x1024; file order; neighbour lists | 160 → no persistent run (persistent: not run) |" "$md"
want "| laplap on cubed sphere 6x240^2 x 64 | — (PERKS: boxes only) | — | laplap on cubed sphere 6x240^2 | 192 → 256 µs (**0.75x**); best: persistent |" "$md"
want "perks,3d7pt box,512,512,16,gen,bdim=256 blkpsm=1 usesm,registers 0 + shared 6 planes,3,16.000,14.400,17.600,PASS (PERKS's check: RMS 1.000000e-13 after 10 steps),grid <8;16;1>; blocks per SM 1" "$csv"
want "perks,3d7pt box,512,512,16,gen,bdim=256 blkpsm=2 usesm,registers 0 + shared 3 planes,3,8.000,7.200,8.800,FAIL (PERKS's check: RMS 3.000000e-03 after 10 steps),grid <8;16;1>; blocks per SM 1" "$csv"
want "perks,3d7pt box,512,512,64,gen,bdim=128 blkpsm=1 usesm,,0,,,,not run: the kernel is inlaunchable," "$csv"
want "perks,3d7pt box,512,512,64,genwr,bdim=128 blkpsm=2 usesm,,0,,,,no binary 3d7pt_genwr in $tmp/perks," "$csv"
want "pillar,laplap on cubed sphere 6x240^2,240,240,16,persistent,pillar run,,3,64.000,64.000,64.000,PASS (20 steps),132 blocks x 256 threads" "$csv"
n=$(grep -c '^perks,' "$csv")
[ "$n" -eq 36 ] || bad "PERKS rows: $n, want 36 (2 levels x 2 bdims x (baseline + 2 blkpsm x 4))"
grep -q 'commit 0123abc' "$md" || bad "the pillar commit is not in the table's header"

# no PERKS at all: the table says so, the pillar half runs
PATH=$P bash "$tool" "$tmp/nowhere" "$tmp/build" "$tmp/out2" >"$tmp/run2.txt" 2>&1 || bad "no PERKS: exit $?"
want "| 512x512 x 16 | no host loop (baseline: no PERKS at $tmp/nowhere) | none (persistent: no PERKS at $tmp/nowhere; gen: no PERKS at $tmp/nowhere; genwr: no PERKS at $tmp/nowhere) | laplap on 512x512 zcurve-w nonchasing compressed | 56.0 → 36.0 µs (**1.56x**); best: onchip |" "$tmp/out2/perks-beside.md"

# no pillar: its rows say so, PERKS's half runs (exit 1: the failing check)
PATH=$P BESIDE_LEVELS=16 bash "$tool" "$tmp/perks" "$tmp/nobuild" "$tmp/out3" >"$tmp/run3.txt" 2>&1
[ $? -eq 1 ] || bad "no pillar: exit not 1"
want "| 512x512 x 16 | 32.0 → 16.0 µs (**2.00x**); best: gen bdim=256 blkpsm=1 usesm, cache registers 0 + shared 6 planes; host loop bdim=256 | 30.4 µs (1.05x) persistent bdim=256 blkpsm=1 | laplap on 512x512 | no host loop (host-loop: not run: no $tmp/nobuild/pillar) |" "$tmp/out3/perks-beside.md"

[ $fail = 0 ] && echo "perks_beside: all checks passed"
exit $fail
