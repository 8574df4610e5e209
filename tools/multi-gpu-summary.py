#!/usr/bin/env python3
"""multi-gpu-summary.py — the tables (markdown, on stdout) and scaling.png of tools/multi-gpu.sh's
runs: for each stencil, weak scaling (P GPUs, P x the cells) and strong scaling (the largest
sphere on 1 .. P GPUs), each run's time per step, the exchange alone and the share of it the
passes hid, parallel efficiency, and the model's predictions (on paper, and with the run's own
rates) with the efficiency they imply.

usage: tools/multi-gpu-summary.py OUTDIR N LEVELS STEPS "1 2 [4]" [SINGLEDIR]
Reads OUTDIR/STENCIL-weak-P.txt and STENCIL-strong-P.txt (pillar run's output on rank 0), and
SINGLEDIR/single-STENCIL.txt when given: the one-GPU sphere in core on one GPU, whose rate
(inner cells x levels / median time) each run's interior rate is compared with."""
import math
import os
import re
import sys


def parse(path):
    """The figures of one distributed run's output, or None when the file is missing."""
    if not os.path.exists(path):
        return None
    text = open(path).read()
    r = {"ok": False}

    def num(pattern, key, group=1):
        m = re.search(pattern, text, re.M)
        if m:
            r[key] = float(m.group(group))

    num(r"^  time      ([0-9.]+) ms per step", "step")
    num(r"^  exchange  alone ([0-9.]+) ms", "alone")
    num(r"hid ([0-9]+)% of it", "hidden")
    num(r"^  model     ([0-9.]+) ms per step on paper", "paper")
    num(r"on paper \([^)]*\), ([0-9.]+) ms with this run's rates", "model")
    num(r"^  halo      ([0-9.]+) MB per exchange", "halo")
    num(r"with this run's rates \(interior ([0-9.]+) G points/s", "irate")
    num(r"^  interior  alone ([0-9.]+) G points/s", "arate")
    m = re.search(r"^  halo .*; through (.*)$", text, re.M)
    r["path"] = m.group(1) if m else ""
    m = re.search(r"step 1's interior ([0-9.]+) ms \(while messages fly\), waiting ([0-9.]+) ms, "
                  r"unpack ([0-9.]+) ms, the rest ([0-9.]+) ms", text)
    if m:
        r["interior"], r["wait"], r["unpack"], r["rest"] = map(float, m.groups())
    m = re.search(r"step 1's interior a pass [0-9.]+ ms.*?the first quarter of the passes ([0-9.]+), "
                  r"the last ([0-9.]+)", text, re.S)
    if m:
        r["q1"], r["q4"] = map(float, m.groups())
    m = re.search(r"\((\d+) interior, computed while messages fly\)", text)
    if m:
        r["icells"] = int(m.group(1))
    # each rank's interior rate while the messages flew, and its GPU (several ranks, GPU)
    m = re.search(r"^  ranks     .*G points/s: (.*)$", text, re.M)
    r["ranks"] = ({int(q): float(v) for q, v in re.findall(r"rank (\d+) ([0-9.]+) \(alone", m.group(1))}
                  if m else {})
    m = re.search(r"^  devices   (.*)$", text, re.M)
    r["gpus"] = ({int(q): int(g) for q, g in re.findall(r"rank (\d+): GPU (\d+)", m.group(1))}
                 if m else {})
    m = re.search(r"^  state     checksum ([0-9a-f]+)", text, re.M)
    r["sum"] = m.group(1) if m else ""
    m = re.search(r"(\d+) cells \((\d+) halo\) x (\d+) levels", text)
    if m:
        r["cells"] = int(m.group(1)) - int(m.group(2))
        r.setdefault("icells", r["cells"])  # one rank: every inner cell is its interior
    r["verify"] = ("PASS (CPU)" if "verify    PASS" in text else
                   "FAIL (CPU)" if "verify    FAIL" in text else "checksum")
    r["ok"] = "step" in r and r["verify"] != "FAIL (CPU)"
    return r


def single_rate(path):
    """G points/s of an in-core run (pillar run's output): inner cells x levels / median."""
    if not os.path.exists(path):
        return None
    text = open(path).read()
    t = re.search(r"^  time      median ([0-9.]+) ms", text, re.M)
    c = re.search(r"(\d+) inner\) x (\d+) levels", text)
    if not t or not c:
        return None
    return int(c.group(1)) * int(c.group(2)) / (float(t.group(1)) * 1e-3) / 1e9


def steps_rate(path):
    """G points/s of an in-core run over many steps (pillar run --steps's output): inner cells x
    levels / its kernels' time a step (GPU), else its time a step (CPU); None where missing."""
    if not os.path.exists(path):
        return None
    text = open(path).read()
    t = (re.search(r"^  kernels   ([0-9.]+) ms per step", text, re.M) or
         re.search(r"^  time      ([0-9.]+) ms per step", text, re.M))
    c = re.search(r"(\d+) cells \((\d+) halo\) x (\d+) levels", text)
    if not t or not c or float(t.group(1)) <= 0:
        return None
    return (int(c.group(1)) - int(c.group(2))) * int(c.group(3)) / (float(t.group(1)) * 1e-3) / 1e9


def quarters(r, base):
    """The interior's rate in the first and the last quarter of r's passes against base's (the
    one-rank run), each scaled by its interior cells: the card's drift over a run cancels."""
    if not all(k in x for x in (r, base) for k in ("q1", "q4", "icells")):
        return None
    return tuple(100 * (r["icells"] / r[q]) / (base["icells"] / base[q]) for q in ("q1", "q4"))


def card_rates(singles, st):
    """{GPU index: steps_rate of the one-GPU sphere on that card} from
    SINGLEDIR/steps-STENCIL-gpuI.txt (multi-gpu.sh runs them on every card at once)."""
    out = {}
    for f in os.listdir(singles) if singles else []:
        m = re.match(r"steps-%s-gpu(\d+)\.txt$" % st, f)
        rate = steps_rate(os.path.join(singles, f)) if m else None
        if rate:
            out[int(m.group(1))] = rate
    return out


def own_card(r, cards):
    """The least over r's ranks of its interior rate against its own card's rate over the steps,
    and that rank: (percent, rank), or None where the run or the cards do not say."""
    worst = None
    for q, rate in r.get("ranks", {}).items():
        g = r.get("gpus", {}).get(q)
        if g is None or g not in cards:
            return None
        x = (100 * rate / cards[g], q)
        worst = x if worst is None or x < worst else worst
    return worst


def fmt(x, f="%.3f"):
    return "-" if x is None else f % x


def main():
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    singles = sys.argv[6] if len(sys.argv) == 7 else None
    out, n, levels, steps = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    ranks = [int(p) for p in sys.argv[5].split()]
    last = ranks[-1]
    stencils = sorted({f.split("-")[0] for f in os.listdir(out)
                       if re.match(r"\w+-(weak|strong)-\d+\.txt$", f)})
    paths = sorted({r["path"] for f in os.listdir(out) if f.endswith(".txt")
                    for r in [parse(os.path.join(out, f))] if r and r.get("path")})
    print("# Distributed runs on %d GPUs of one host, halos through %s\n"
          % (last, " / ".join(paths) if paths else os.path.basename(os.path.normpath(out))))
    print("Cubed spheres of 6 x (%d sqrt P)^2 cells x %s levels, double, %s steps, one exchange a "
          "step (F = 1), one MPI rank per GPU. Time per step: the slowest rank's passes. "
          "*exchange alone*: pack, the messages (staged: with the host copies) and unpack with "
          "nothing computed (median of 11 after the run); *hidden*: the share of it the passes "
          "did not pay for; *interior / single*: the slowest rank's step-1 interior rate (while "
          "the messages fly: the median pass, and in brackets alone on the idle device after the run) against "
          "the one-GPU sphere run in core on one GPU; *interior / one rank*: the same rate against "
          "the one-rank run's in its passes (median pass; in brackets the first and the last "
          "quarter of the passes, each against the one rank's same quarter); *interior / own card*: "
          "each rank's interior against its own GPU's rate over the steps in core, the least over "
          "the ranks and which rank (the cards differ, and the slowest one sets the step). Model: docs/distributed.md, on paper (the "
          "H100's rates) and with the run's own measured rates.\n" % (n, levels, steps))
    curves = {}
    for st in stencils:
        single = single_rate(os.path.join(singles, "single-%s.txt" % st)) if singles else None
        sustained = steps_rate(os.path.join(singles, "steps-%s.txt" % st)) if singles else None
        if single:
            cards = [single_rate(os.path.join(singles, f)) for f in sorted(os.listdir(singles))
                     if re.match(r"single-%s-gpu\d+\.txt$" % st, f)]
            cards = [c for c in cards if c]
            spread = (" (every card at once: %s)" % ", ".join("%.1f" % c for c in cards)
                      if len(cards) > 1 else "")
            over = ("; over %s steps in core (kernels, GPU 0): %.1f G points/s" % (steps, sustained)
                    if sustained else "")
            print("%s in core on one GPU (the one-GPU sphere): %.1f G points/s%s%s\n"
                  % (st, single, spread, over))
        cards = card_rates(singles, st)
        weak = {p: parse(os.path.join(out, "%s-weak-%d.txt" % (st, p))) for p in ranks}
        strong = {p: parse(os.path.join(out, "%s-strong-%d.txt" % (st, p))) for p in ranks}
        strong[last] = weak[last]
        for kind, runs in (("weak", weak), ("strong", strong)):
            base = runs.get(1)
            print("## %s, %s scaling\n" % (st, kind))
            print("| GPUs | cells per GPU | ms per step | speedup | efficiency | halo MB | interior ms | "
                  "interior / single (alone) | interior / single over the steps | interior / one rank (first, last quarter) | interior / own card over the steps | exchange alone ms | hidden | model ms (paper / run's rates) | "
                  "model efficiency | state |")
            print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
            xs, eff, meff = [], [], []
            for p in ranks:
                r = runs.get(p)
                if not r or not r["ok"] or not base or not base["ok"]:
                    print("| %d | run failed or missing |||||||||||||||" % p)
                    continue
                ideal = base["step"] if kind == "weak" else base["step"] / p
                e = ideal / r["step"]
                speed = base["step"] / r["step"] * (p if kind == "weak" else 1)
                me = None
                if r.get("model") and base.get("model"):
                    mi = base["model"] if kind == "weak" else base["model"] / p
                    me = mi / r["model"]
                same = ""
                if p > 1:
                    one = strong.get(1)
                    twin = one if (kind == "strong" or p == last) and one else None
                    same = (" = 1 rank" if twin and twin["sum"] == r["sum"] else
                            " differs" if twin else "")
                ir = r.get("irate")
                rel = None if not ir or not single else 100 * ir / single
                ar = r.get("arate")
                ral = None if not ar or not single else 100 * ar / single
                rsu = None if not ir or not sustained else 100 * ir / sustained
                bir = base.get("irate")
                q = quarters(r, base)
                vs_one = fmt(None if not ir or not bir else 100 * ir / bir, "%.1f%%") + (
                    " (%.1f%%, %.1f%%)" % q if q else "")
                oc = own_card(r, cards)
                vs_card = "%.1f%% (rank %d)" % oc if oc else "-"
                print("| %d | %d | %.3f | %.2fx | %.1f%% | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s%s |" % (
                    p, r.get("cells", 0) // p, r["step"], speed, 100 * e, fmt(r.get("halo")),
                    fmt(r.get("interior")), fmt(rel, "%.0f%%") + " (" + fmt(ral, "%.0f%%") + ")",
                    fmt(rsu, "%.0f%%"), vs_one, vs_card,
                    fmt(r.get("alone")),
                    fmt(r.get("hidden"), "%.0f%%"), fmt(r.get("paper")),
                    fmt(r.get("model")), fmt(None if me is None else 100 * me, "%.1f%%"),
                    r["verify"], same))
                xs.append(p)
                eff.append(100 * e)
                meff.append(None if me is None else 100 * me)
            print()
            curves[(st, kind)] = (xs, eff, meff)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, kind in zip(axes, ("weak", "strong")):
        for st in stencils:
            xs, eff, meff = curves.get((st, kind), ([], [], []))
            if not xs:
                continue
            line, = ax.plot(xs, eff, "o-", label="%s measured" % st)
            mx = [x for x, m in zip(xs, meff) if m is not None]
            ax.plot(mx, [m for m in meff if m is not None], "x--", color=line.get_color(),
                    label="%s model (run's rates)" % st)
        ax.axhline(90, color="grey", lw=0.8, ls=":")  # the targets: 90%, 1.8x of 2
        ax.set_xscale("log", base=2)
        ax.set_xticks(ranks)
        ax.set_xticklabels([str(p) for p in ranks])
        ax.set_ylim(0, 110)
        ax.set_xlabel("GPUs (one MPI rank each)")
        ax.set_ylabel("parallel efficiency %")
        ax.set_title("%s scaling, cubed sphere 6x%d^2 cells a GPU x %s levels" % (kind, n, levels)
                     if kind == "weak" else "strong scaling, 6x%d^2 cells x %s levels" %
                     (round(n * math.sqrt(last)), levels), fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scaling.png"), dpi=110)  # one per halo path (its folder)


if __name__ == "__main__":
    main()
