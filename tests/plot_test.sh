#!/bin/sh
# tools/plot: renders the expected PNG figures from a synthetic `pillar bench` JSON, and rejects
# bad input (not JSON, missing file, no runs) with exit 2, a one-line message and no PNG.
# usage: plot_test.sh REPO_ROOT     exit 0 pass, 1 fail, 77 skip (no matplotlib)
root=${1:?usage: plot_test.sh REPO_ROOT}
plot=$root/tools/plot
py=
for cand in /usr/bin/python3 python3; do
    if "$cand" -c 'import matplotlib' >/dev/null 2>&1; then py=$cand; break; fi
done
if [ -z "$py" ]; then echo "SKIP: matplotlib missing"; exit 77; fi
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Synthetic results: 2 stencils, regular + unstructured (2 layouts x 2 storages x 2 compressed),
# 3 accesses, 4 block shapes, nz in {16, 64}, one 128x128 domain.
"$py" - "$tmp/results.json" <<'EOF'
import json, random, sys
random.seed(7)
runs = []
shapes = [[32, 4, 1], [32, 4, 2], [64, 2, 1], [128, 1, 1]]
cost = {"laplap": 1.0, "hdiff": 1.6}
for stencil in cost:
    for nz in (16, 64):
        for access in ("naive", "idxvar", "shared"):
            for t in shapes:
                runs.append(dict(stencil=stencil, precision="double", nx=128, ny=128, nz=nz,
                                 grid="regular", layout=None, storage=None, compressed=None,
                                 access=access, threads=t, zslice=8))
                for layout in ("rowmajor", "zcurve"):
                    for storage in ("chasing", "nonchasing"):
                        for compressed in (False, True):
                            runs.append(dict(stencil=stencil, precision="double", nx=128, ny=128,
                                             nz=nz, grid="unstructured", layout=layout,
                                             storage=storage, compressed=compressed,
                                             access=access, threads=t, zslice=8))
for r in runs:
    slow = 1.0 if r["grid"] == "regular" else 1.05 + 0.3 * random.random()
    med = r["nz"] * 128 * 128 / 400.0 * cost[r["stencil"]] * slow * (1 + 0.2 * random.random())
    r.update(median_us=round(med, 3), min_us=round(med * 0.97, 3), max_us=round(med * 1.05, 3),
             gbs=round(1e3 / med, 2))
json.dump({"pillar": {"version": "0.1.0", "commit": "test", "date": "2026-01-01T00:00:00Z",
                      "command": "synthetic"},
           "device": {"name": "Synthetic GPU"}, "copy_ceiling_gbs": 2990.5,
           "runs_per_config": 20, "runs": runs, "best": [], "compression": []},
          open(sys.argv[1], "w"), indent=1)
EOF

# is_png FILE: the 8-byte PNG signature
is_png() {
    [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = "89504e470d0a1a0a" ]
}

if "$py" "$plot" "$tmp/results.json" --out "$tmp/figs" >"$tmp/out" 2>"$tmp/err"; then
    echo "ok: plot exited 0, wrote $(wc -l <"$tmp/out") files"
    cp "$tmp/out" "$tmp/figs.list"
else
    echo "FAIL: plot exited non-zero:"; cat "$tmp/err"; fail=1
fi
for stencil in laplap hdiff; do
    for name in overview-$stencil-double-128x128x16 overview-$stencil-double-128x128x64 \
                zsweep-$stencil-double; do
        f=$tmp/figs/$name.png
        if [ -s "$f" ] && is_png "$f" && grep -qF "$f" "$tmp/out"; then
            echo "ok: $name.png"
        else
            echo "FAIL: $name.png missing, not a PNG or not printed"; fail=1
        fi
    done
    # one block-shape map per stencil and precision, at the largest grid (nz 64), none at nz 16
    n16=$(ls "$tmp/figs" | grep -c "^blocks-$stencil-double-128x128x16-")
    [ "$n16" -eq 0 ] || { echo "FAIL: a block map for the smaller grid"; fail=1; }
    for nz in 64; do
        n=$(ls "$tmp/figs" | grep -c "^blocks-$stencil-double-128x128x$nz-.*\.png$")
        f=$(ls "$tmp/figs"/blocks-$stencil-double-128x128x$nz-*.png 2>/dev/null | head -n1)
        if [ "$n" -eq 1 ] && is_png "$f"; then
            echo "ok: $(basename "$f")"
        else
            echo "FAIL: want one blocks-$stencil-double-128x128x$nz-ACCESS.png, found $n"; fail=1
        fi
    done
done
if ls -a "$tmp/figs" | grep -q 'tmp'; then echo "FAIL: temporary files left in output"; fail=1; fi

# expect_bad NEEDLE FILE : exit 2, NEEDLE on a one-line stderr, no traceback, no PNG written
expect_bad() {
    needle=$1; file=$2
    rm -rf "$tmp/bad"; mkdir "$tmp/bad"
    "$py" "$plot" "$file" --out "$tmp/bad" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -ne 2 ]; then
        echo "FAIL: plot $file exited $rc (want 2)"; cat "$tmp/err"; fail=1
    elif ! grep -q -- "$needle" "$tmp/err" || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        echo "FAIL: plot $file: want one line naming '$needle':"; cat "$tmp/err"; fail=1
    elif [ -n "$(ls -A "$tmp/bad")" ]; then
        echo "FAIL: plot $file wrote files: $(ls -A "$tmp/bad")"; fail=1
    else
        echo "ok: bad input -> $(cat "$tmp/err")"
    fi
}
echo 'this is not json' >"$tmp/notjson.json"
echo '{"device": {}}' >"$tmp/noruns.json"
echo '{"runs": []}' >"$tmp/empty.json"
expect_bad "not JSON" "$tmp/notjson.json"
expect_bad "no such file" "$tmp/missing.json"
expect_bad '"runs"' "$tmp/noruns.json"
expect_bad "empty" "$tmp/empty.json"

echo 'a,b\n1,2' >"$tmp/notfk.csv"
expect_bad "fk-sweep" "$tmp/notfk.csv"

# A CSV of tools/fk-sweep.sh: one fk figure per stencil and size.
{
    echo "stencil,size,mode,budget,F,K,ms_per_step,kernel_ms_per_step,link_use_percent,chunks"
    echo "laplap,256x256x8,single,,1,1,0.5,0.5,,"
    echo "laplap,256x256x8,incore,,16,2,0.9,0.4,,1"
    for F in 1 2 4; do for K in 1 2; do
        [ $K -le $F ] && echo "laplap,256x256x8,ooc,1M,$F,$K,$((8 / F)).5,0.6,80,5"
    done; done
    echo "laplap,256x256x8,ooc,1M,8,1,1.2,,70,5"   # no kernel time (older sweeps)
} >"$tmp/sweep.csv"
rm -rf "$tmp/fk"
if "$py" "$plot" "$tmp/sweep.csv" --out "$tmp/fk" >"$tmp/out" 2>"$tmp/err" &&
    [ "$(cat "$tmp/out")" = "$tmp/fk/fk-laplap-256x256x8.png" ] &&
    head -c 8 "$tmp/fk/fk-laplap-256x256x8.png" | grep -q PNG; then
    echo "ok: fk figure from a sweep CSV"
else
    echo "FAIL: fk figure:"; cat "$tmp/out" "$tmp/err"; fail=1
fi

# Run directly, the tools find a Python with their packages (tools/pick-python) even when the
# python3 first on PATH has none of them, or say which packages to install.
mkdir "$tmp/bare"
printf '#!/bin/sh\necho "a python3 without packages" >&2; exit 1\n' >"$tmp/bare/python3"
chmod +x "$tmp/bare/python3"
for tool in plot plot-iterated plot-field; do
    PATH="$tmp/bare:$PATH" "$root/tools/$tool" --help >"$tmp/out" 2>"$tmp/err"
    if grep -q "usage: tools/$tool" "$tmp/out" "$tmp/err"; then
        echo "ok: $tool found a Python with its packages past a bare python3 on PATH"
    else
        echo "FAIL: $tool with a bare python3 first on PATH:"; cat "$tmp/out" "$tmp/err"; fail=1
    fi
done
if PATH="$tmp/bare:$PATH" "$root/tools/plot" "$tmp/results.json" --out "$tmp/figs2" >"$tmp/out" \
    2>"$tmp/err" && [ "$(wc -l <"$tmp/out")" -eq "$(wc -l <"$tmp/figs.list")" ]; then
    echo "ok: tools/plot run directly drew the figures"
else
    echo "FAIL: tools/plot run directly:"; cat "$tmp/err"; fail=1
fi
PILLAR_PYTHON="$tmp/bare/python3" "$root/tools/plot-field" a.nc b.png 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "apt-get install python3-xarray python3-netcdf4 python3-matplotlib" \
    "$tmp/err" && grep -q "$tmp/bare/python3" "$tmp/err"; then
    echo "ok: without the packages plot-field says which to install"
else
    echo "FAIL: plot-field without its packages (exit $rc):"; cat "$tmp/err"; fail=1
fi

[ $fail -eq 0 ] && echo "PASS" || echo "FAIL"
exit $fail
