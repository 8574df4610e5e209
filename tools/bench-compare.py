#!/usr/bin/env python3
"""bench-compare.py BEFORE.csv AFTER.csv — two `pillar bench` CSV files side by side.

For every Table 6.2 row (stencil, precision, grid, layout, storage, compression, AoS) present in
both, the best median time of each file and their ratio (after / before); then the ratio over
every configuration measured in both (same row, strategy, tables, block shape, z-slice).
Standard library only."""
import csv
import statistics
import sys

ROW = ("stencil", "precision", "nx", "ny", "nz", "grid", "layout", "storage", "compressed", "aos")
TIMES = ("median_us", "min_us", "max_us", "gbs")


def load(path):
    rows = list(csv.DictReader(open(path, newline="")))
    best, every = {}, {}
    for r in rows:
        t = float(r["median_us"])
        key = tuple(r[c] for c in ROW)
        if key not in best or t < best[key]:
            best[key] = t
        every[tuple(r[c] for c in r if c not in TIMES)] = t
    return best, every


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    (bb, eb), (ba, ea) = load(sys.argv[1]), load(sys.argv[2])
    print("| row | before µs | after µs | after/before |")
    print("|---|---:|---:|---:|")
    ratios = []
    for k in sorted(bb):
        if k in ba:
            ratios.append(ba[k] / bb[k])
            comp = {"yes": "compressed", "no": "uncompressed"}.get(k[8], "")
            name = " ".join(x for x in (k[0], k[1], "x".join(k[2:5])) + k[5:8] + (comp,) if x)
            name += ", AoS" if k[9] == "yes" else ""
            print(f"| {name} | {bb[k]:.1f} | {ba[k]:.1f} | {ratios[-1]:.3f} |")
    only = [k for k in ba if k not in bb] + [k for k in bb if k not in ba]
    print(f"\nrows in both: {len(ratios)}; after/before median {statistics.median(ratios):.3f}, "
          f"range {min(ratios):.3f}-{max(ratios):.3f}; rows in one file only: {len(only)}")
    common = [k for k in eb if k in ea]
    rr = sorted(ea[k] / eb[k] for k in common)
    if rr:
        print(f"configurations in both: {len(rr)}; after/before median {statistics.median(rr):.3f}, "
              f"5th-95th percentile {rr[len(rr) // 20]:.3f}-{rr[len(rr) * 19 // 20]:.3f}")


if __name__ == "__main__":
    main()
