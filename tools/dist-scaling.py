#!/usr/bin/env python3
"""dist-scaling.py — strong and weak scaling curves of the distributed model (docs/distributed.md)
from `pillar run --plan-only`, as one PNG and the tables it was drawn from.

usage: tools/dist-scaling.py PILLAR OUTDIR
       tools/dist-scaling.py --from FILE OUTDIR

Runs the model for laplap and hdiff (ring constant measured on a 400x400 lattice, F = 1 and 4)
and graphlap (on generated periodic hexagons, F = 1), parses the tables pillar prints and writes
OUTDIR/model-*.txt and OUTDIR/scaling.png. With --from, draws instead the --plan-only outputs
saved in FILE (one or more, e.g. of `pillar run --plan-only --backend gpu`, whose model takes the
pieces measured on the GPU). Exits 77 when matplotlib is missing."""
import os
import re
import subprocess
import sys
import tempfile

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("skip: matplotlib is not installed")
    sys.exit(77)


def tables(text):
    """{'strong': [(P, step_ms, staged_ms, ib)], 'weak': [...]} from --plan-only's output."""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith("strong scaling"):
            cur = out.setdefault("strong", [])
        elif line.startswith("weak scaling"):
            cur = out.setdefault("weak", [])
        elif cur is not None and line.strip() and line.split()[0].isdigit():
            f = line.split()
            cur.append((int(f[0]), float(f[6].rstrip("ms")), float(f[7].rstrip("ms")), "IB" in f))
    return out


HEAD = re.compile(r"^(\w+) (double|float), (\d+) steps? between exchanges")


def saved(path):
    """[(label, tables)] of the --plan-only outputs in the file at path, one per model header."""
    blocks, cur = [], None
    with open(path) as f:
        for line in f.read().splitlines():
            m = HEAD.match(line)
            if m:
                cur = ["%s, F=%s" % (m.group(1), m.group(3)), []]
                blocks.append(cur)
            if cur:
                cur[1].append(line)
    curves = []
    for label, lines in blocks:
        text = "\n".join(lines)
        if "measured above" in text:
            label += " (pieces measured)"
        t = tables(text)
        if "strong" in t and "weak" in t:
            curves.append((label, t))
    return curves


def main():
    if len(sys.argv) != 3 and not (len(sys.argv) == 4 and sys.argv[1] == "--from"):
        print(__doc__)
        return 2
    outdir = sys.argv[-1]
    os.makedirs(outdir, exist_ok=True)
    if sys.argv[1] == "--from":
        curves = saved(sys.argv[2])
        if not curves:
            print("%s: no --plan-only output in it" % sys.argv[2])
            return 1
        return draw(curves, outdir, "pieces measured on the H100 (pack, unpack, host copies, "
                    "interior), NVLink 360 GB/s, InfiniBand 40 GB/s per GPU")
    pillar = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        hexes = os.path.join(tmp, "hex.h5")
        subprocess.run([pillar, "mesh", "generate", hexes, "--kind", "hexagons", "--size",
                        "200x200", "--levels", "4", "--periodic"], check=True,
                       stdout=subprocess.DEVNULL)
        runs = [("laplap", ["--stencil", "laplap", "--size", "400x400x4"], 1),
                ("laplap", ["--stencil", "laplap", "--size", "400x400x4"], 4),
                ("hdiff", ["--stencil", "hdiff", "--size", "400x400x4"], 1),
                ("graphlap", ["--stencil", "graphlap", "--mesh", hexes], 1)]
        curves = []
        for name, args, F in runs:
            cmd = [pillar, "run", "--plan-only", "--fuse", str(F)] + args
            text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            with open(os.path.join(outdir, "model-%s-F%d.txt" % (name, F)), "w") as f:
                f.write("$ pillar run --plan-only --fuse %d %s\n%s" % (
                    F, " ".join(a if a != hexes else "hex.h5" for a in args), text))
            curves.append(("%s, F=%d" % (name, F), tables(text)))
    return draw(curves, outdir, "H100 rates, NVLink 360 GB/s, InfiniBand 40 GB/s per GPU")


def draw(curves, outdir, rates):
    """scaling.png in outdir: strong scaling times and weak scaling efficiency of curves."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.8))
    for label, t in curves:
        p = [r[0] for r in t["strong"]]
        line, = a.loglog(p, [r[1] for r in t["strong"]], "o-", label=label + " (CUDA-aware)")
        a.loglog(p, [r[2] for r in t["strong"]], "x--", color=line.get_color(), alpha=0.6,
                 label=label + " (staged via host)")
        w = t["weak"]
        b.semilogx([r[0] for r in w], [100 * w[0][1] / r[1] for r in w], "o-",
                   color=line.get_color(), label=label)
        b.semilogx([r[0] for r in w], [100 * w[0][2] / r[2] for r in w], "x--",
                   color=line.get_color(), alpha=0.6)
    p0, t0 = curves[0][1]["strong"][0][0], curves[0][1]["strong"][0][1]
    p = [r[0] for r in curves[0][1]["strong"]]
    a.loglog(p, [t0 * p0 / x for x in p], "k:", label="ideal (laplap)")
    a.axvline(8.5, color="grey", lw=0.8)
    a.text(9, a.get_ylim()[0] * 1.5, "InfiniBand beyond 8 GPUs", fontsize=8, color="grey")
    a.set_xlabel("GPUs")
    a.set_ylabel("model: ms per step")
    a.set_title("strong: 20,971,520 cells x 90 levels, double")
    a.legend(fontsize=7)
    b.axvline(8.5, color="grey", lw=0.8)
    b.set_ylim(0, 105)
    b.set_xlabel("GPUs")
    b.set_ylabel("efficiency %")
    b.set_title("weak: 327,680 cells x 90 levels per GPU (dashed: staged)")
    b.legend(fontsize=7)
    fig.suptitle("pillar distributed model (docs/distributed.md): " + rates, fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "scaling.png"), dpi=110)
    print("wrote", os.path.join(outdir, "scaling.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
