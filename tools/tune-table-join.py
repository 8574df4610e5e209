#!/usr/bin/env python3
"""tune-table-join.py — issue 32's table from one or more CSVs of tools/tune-table.sh.

Rows are joined by name: a later file fills the cells an earlier one left empty (the table is
measured in several device calls: the tune columns in one, bench's in others). Ratios are
against the best of the full `pillar bench` matrix where the row has it, otherwise against
the fastest configuration tune measured (the cell says which).

usage: tools/tune-table-join.py [--device NAME] [--runs N] [--bench-runs N] [--budget S]
                                CSV [CSV ...] > table.md
"""
import argparse
import csv
import sys

COLUMNS = ["row", "grid", "stencil", "untuned_ms", "tune_s", "tuned_ms", "best_tune_ms",
           "bench_ms", "bench_config", "bench_s", "plan", "untuned_verified", "tuned_verified",
           "status"]


def join(paths):
    rows, order = {}, []
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                name = r.get("row", "")
                if not name:
                    continue
                if name not in rows:
                    rows[name] = {c: "" for c in COLUMNS}
                    order.append(name)
                into = rows[name]
                for c in COLUMNS:
                    v = (r.get(c) or "").strip()
                    if c == "status":
                        if v and v != "ok" or not into[c]:
                            into[c] = v if into[c] in ("", "ok") else into[c] + "; " + v
                    elif v:
                        into[c] = v
    return [rows[n] for n in order]


def ratio(a, b):
    try:
        return "%.3f" % (float(a) / float(b))
    except (ValueError, ZeroDivisionError):
        return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="")
    ap.add_argument("--runs", default="20")
    ap.add_argument("--bench-runs", default="10")
    ap.add_argument("--budget", default="45")
    ap.add_argument("csv", nargs="+")
    a = ap.parse_args()
    rows = join(a.csv)
    out = sys.stdout
    out.write("Issue 32's table%s, double. `pillar run`: medians of %s runs; `pillar tune "
              "--budget %s`; bench: the full matrix, medians of %s runs a configuration. "
              "Ratios are against bench's best (else tune's, marked *).\n\n"
              % (" on " + a.device if a.device else "", a.runs, a.budget, a.bench_runs))
    out.write("| grid | stencil | untuned default (ms) | tuned default (ms) | best of bench (ms) "
              "| untuned / best | tuned / best | tune (s) | tune's best (ms) | bench's best "
              "configuration | tuned plan | verified | status |\n")
    out.write("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|\n")
    for r in rows:
        best, mark = (r["bench_ms"], "") if r["bench_ms"] else (r["best_tune_ms"], "*")
        ub, tb = ratio(r["untuned_ms"], best), ratio(r["tuned_ms"], best)
        out.write("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s/%s | %s |\n" % (
            r["grid"], r["stencil"], r["untuned_ms"], r["tuned_ms"], r["bench_ms"],
            ub + mark if ub else "", tb + mark if tb else "", r["tune_s"], r["best_tune_ms"],
            r["bench_config"], r["plan"], r["untuned_verified"] or "-",
            r["tuned_verified"] or "-", r["status"] or "ok"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
