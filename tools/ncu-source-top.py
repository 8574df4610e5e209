#!/usr/bin/env python3
"""ncu-source-top.py — the source lines of one kernel ranked by what they cost the L1, from
Nsight Compute's per-line export (`ncu --import R --page source --csv --print-source cuda`), or
its instructions from the SASS export (`--print-source sass`: the kernels built from macros
keep their figures there only). For a SASS export it first sums the instructions by kind (a
memory access by space, operation and size, else the opcode): how many, executed, L1 tag
requests, L2 sectors (and those beyond the ideal) and the share of the stall samples.

Every numeric column whose name speaks of the L1/TEX unit, wavefronts, sectors, requests or
warp stall samples is summed per line; the lines are ranked by the L1 wavefronts (the first such
column found; else the sectors, else the stall samples). Prints markdown: the totals, then the
top lines with their share of each total and their source text.

usage: tools/ncu-source-top.py SOURCE.csv [TITLE] [TOP]"""
import csv
import io
import re
import sys

KEYS = re.compile(r"wavefront|sector|request|l1|stall|sampl", re.I)


def number(v):
    v = (v or "").strip().replace(",", "")
    try:
        return float(v)
    except ValueError:
        return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    title = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    text = open(sys.argv[1], errors="replace").read()
    # ncu may print lines before the table: start at the header (the first line with "Source")
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if '"Source"' in l or l.startswith("Source")
                  or ',"Source"' in l or '"#"' in l), 0)
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    if len(rows) < 2:
        print("# %s\n\nno per-line data in %s" % (title, sys.argv[1]))
        return 1
    head = rows[0]
    src = next((i for i, h in enumerate(head) if h.strip().lower() == "source"), None)
    line = next((i for i, h in enumerate(head) if h.strip().lower() in ("#", "line", "line number")), None)
    cols = [i for i, h in enumerate(head) if i not in (src, line) and KEYS.search(h)
            and any(number(r[i]) is not None for r in rows[1:] if i < len(r))]
    if not cols:
        print("# %s\n\nno L1, wavefront, sector or stall column among: %s" % (title, ", ".join(head)))
        return 1
    def pick(pattern):
        return next((i for i in cols if re.search(pattern, head[i], re.I)), None)
    key = pick(r"l1.*wavefront|wavefront") or pick(r"sector") or pick(r"stall|sampl") or cols[0]
    data = []
    for r in rows[1:]:
        vals = {i: number(r[i]) or 0.0 for i in cols if i < len(r)}
        if not any(vals.values()):
            continue
        data.append((r[line] if line is not None and line < len(r) else "?",
                     (r[src] if src is not None and src < len(r) else "").strip(), vals))
    totals = {i: sum(d[2].get(i, 0.0) for d in data) for i in cols}
    kinds(head, rows[1:], title)
    data.sort(key=lambda d: -d[2].get(key, 0.0))
    print("# %s: source lines by %s\n" % (title, head[key]))
    print("| metric | kernel total |\n|---|---:|")
    for i in cols:
        print("| %s | %.0f |" % (head[i], totals[i]))
    shown = [i for i in cols if totals[i] > 0][:6]
    print("\n| line | " + " | ".join("%s (share)" % head[i] for i in shown) + " | source |")
    print("|---|" + "---:|" * len(shown) + "---|")
    for ln, s, vals in data[:top]:
        cells = ["%.0f (%.0f%%)" % (vals.get(i, 0.0), 100 * vals.get(i, 0.0) / totals[i]) for i in shown]
        print("| %s | %s | `%s` |" % (ln, " | ".join(cells), s.replace("|", "\\|")[:100]))
    return 0


def kinds(head, rows, title):
    """A SASS export's instructions summed by kind (nothing for a per-line export)."""
    ix = {h.strip(): i for i, h in enumerate(head)}
    need = ("Source", "Address Space", "Access Operation", "Access Size", "Instructions Executed")
    if any(k not in ix for k in need):
        return
    cols = ["Instructions Executed", "L1 Tag Requests Global", "L2 Theoretical Sectors Global",
            "L2 Theoretical Sectors Global Excessive", "Warp Stall Sampling (All Samples)"]
    cols = [c for c in cols if c in ix]
    agg = {}
    for r in rows:
        if len(r) <= max(ix.values()):
            continue
        words = r[ix["Source"]].split()
        op = next((w for w in words if not w.startswith("@")), "?").split(".")[0]
        space = r[ix["Address Space"]].strip()
        kind = op if space in ("", "-") else "%s %s %s bits" % (
            space, r[ix["Access Operation"]].strip(), r[ix["Access Size"]].strip())
        a = agg.setdefault(kind, [0] + [0.0] * len(cols))
        a[0] += 1
        for j, c in enumerate(cols):
            a[j + 1] += number(r[ix[c]]) or 0.0
    stall = cols.index("Warp Stall Sampling (All Samples)") + 1 if cols[-1].startswith("Warp") else None
    total = sum(a[stall] for a in agg.values()) if stall else 0
    print("# %s: instructions by kind\n" % title)
    print("| kind | instructions | " + " | ".join(cols) + (" | stall share |" if stall else " |"))
    print("|---|" + "---:|" * (len(cols) + 1 + (1 if stall else 0)))
    for k, a in sorted(agg.items(), key=lambda kv: -kv[1][stall if stall else 1])[:16]:
        cells = ["%.0f" % v for v in a[1:]]
        share = " | %.1f%%" % (100 * a[stall] / total) if stall and total else ""
        print("| %s | %d | %s%s |" % (k, a[0], " | ".join(cells), share))
    print()


if __name__ == "__main__":
    sys.exit(main())
