#!/usr/bin/env python3
"""gpu-clocks.py — what the cards' clocks and power were while each measurement ran: a markdown
table on stdout, one row per measurement, from an nvidia-smi log and a list of when each
measurement began and ended (tools/multi-gpu.sh writes both).

usage: tools/gpu-clocks.py CLOCKS.csv PHASES.txt
  CLOCKS.csv  nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,
              temperature.gpu,clocks_event_reasons.active --format=csv,noheader -lms N
              (lines it cannot read are skipped: nvidia-smi's own messages, a cut last line)
  PHASES.txt  lines "begin NAME EPOCH" and "end NAME EPOCH" (EPOCH: date +%s.%N)
A row gives, over the samples inside the measurement: how many, and how many of them loaded (a
card not reporting "GPU idle" and drawing at least halfway from its idle power, the least it drew
in the whole log, to the most it drew in this measurement: a run's setup, reading its mesh, leaves
the cards idle at 120 W and at full clock); over the loaded samples the median SM clock of each
card (MHz), the lowest SM clock, the share capped by software power capping (reason 0x4), the
highest power (W) and temperature (C), and the event reasons (nvidia-smi's bit mask, OR-ed) other
than idle. On the H200 a card capped its clock to 1515-1710 MHz for the first 0.3 s of every load
after idle (stop 31): a measurement shorter than about a second sits in that dip. Exit 0; 2 on a
usage error."""
import datetime
import statistics
import sys


def samples(path):
    """(epoch seconds, gpu, sm MHz, power W, temperature C, reasons mask) per readable line."""
    out = []
    for line in open(path, errors="replace"):
        f = [x.strip() for x in line.split(",")]
        if len(f) < 7:
            continue
        try:
            t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            gpu, sm = int(f[1]), float(f[2].split()[0])
            power, temp = float(f[4].split()[0]), float(f[5])
            reasons = int(f[6], 16)
        except ValueError:
            continue
        out.append((t, gpu, sm, power, temp, reasons))
    return out


def phases(path):
    """[(name, begin, end)] in the order they began; a phase with no end is left out."""
    begun, out = {}, []
    for line in open(path):
        f = line.split()
        if len(f) != 3:
            continue
        what, name, t = f[0], f[1], float(f[2])
        if what == "begin":
            begun[name] = t
        elif what == "end" and name in begun:
            out.append((name, begun.pop(name), t))
    return sorted(out, key=lambda p: p[1])


IDLE = 0x1  # nvidia-smi's "GPU idle" reason: not a slowdown
POWER_CAP = 0x4  # software power capping: the clocks lowered to hold the power limit


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    s, ph = samples(sys.argv[1]), phases(sys.argv[2])
    if not s or not ph:
        print("(no clock samples or no measurement to place them in)")
        return 0
    gpus = sorted({x[1] for x in s})
    idle_w = {g: min(x[3] for x in s if x[1] == g) for g in gpus}
    print("## Clocks while measuring (nvidia-smi, every 100 ms; loaded samples only)\n")
    print("| measurement | seconds | samples | loaded | median SM MHz (%s) | lowest SM MHz | power "
          "capped | most W | most C | reasons |" % ", ".join("GPU %d" % g for g in gpus))
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---|")
    for name, t0, t1 in ph:
        inside = [x for x in s if t0 <= x[0] <= t1]
        top = {g: max([x[3] for x in inside if x[1] == g] or [0.0]) for g in gpus}
        busy = [x for x in inside if not x[5] & IDLE and
                x[3] >= idle_w[x[1]] + 0.5 * (top[x[1]] - idle_w[x[1]]) and top[x[1]] > idle_w[x[1]]]
        if not busy:
            print("| %s | %.1f | %d | 0 | - | - | - | - | - | - |" % (name, t1 - t0, len(inside)))
            continue
        med = []
        for g in gpus:
            sm = [x[2] for x in busy if x[1] == g]
            med.append("%.0f" % statistics.median(sm) if sm else "-")
        mask = 0
        for x in busy:
            mask |= x[5]
        capped = sum(1 for x in busy if x[5] & POWER_CAP)
        print("| %s | %.1f | %d | %d | %s | %.0f | %.0f%% | %.0f | %.0f | %s |" % (
            name, t1 - t0, len(inside), len(busy), ", ".join(med), min(x[2] for x in busy),
            100.0 * capped / len(busy), max(x[3] for x in busy), max(x[4] for x in busy),
            "0x%x" % mask if mask else "none"))
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
