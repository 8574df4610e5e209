#!/usr/bin/env python3
"""Draws graphlap.png from summary.txt (tools/graph-sweep.sh's table): time per application of
graphlap on 1M hexagons / 1M triangles x 64 levels, double, per configuration, against the
lattice twin and the memory floor. usage: python3 plot.py (in this folder)."""
import re
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows, mesh, floor = {}, None, {}
for line in open("summary.txt"):
    m = re.match(r"^(hex|tri) \(floor (\d+) MB\)", line)
    if m:
        mesh = m.group(1)
        floor[mesh] = int(m.group(2)) * 1e6 / 2999e9 * 1e6  # us at the copy ceiling
        rows[mesh] = []
        continue
    m = re.match(r"^    (.+?)\s{2,}([\d.]+)\s+[\d.]+x\s+ok", line)
    if m and mesh:
        rows[mesh].append((m.group(1), float(m.group(2))))
fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
for ax, mesh in zip(axes, ["hex", "tri"]):
    r = rows[mesh]
    names, us = [x[0] for x in r], [x[1] for x in r]
    colors = ["#4c78a8" if n.startswith("twin") else "#f58518" if "graph-twopass" in n else "#bab0ac"
              for n in names]
    ax.barh(range(len(r)), us, color=colors)
    ax.set_yticks(range(len(r)))
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(floor[mesh], color="k", ls=":", label="memory floor %.0f us" % floor[mesh])
    ax.set_xlabel("us per application (median of 20)")
    ax.set_title({"hex": "1,048,576 hexagons x 64", "tri": "1,048,352 triangles x 64"}[mesh])
    ax.legend(fontsize=8)
fig.suptitle("graphlap, double, H100: lattice twins (blue), graph-twopass (orange), old strategies (grey)")
fig.tight_layout()
fig.savefig("graphlap.png", dpi=100)
