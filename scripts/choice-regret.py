#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""How far the runtime's dense choice is from the fastest timed kernel.

Reads fgemm-bench --autotune logs (every candidate kernel timed per shape)
or timing grids of scripts/ab-kernels.sh (one variant per kernel, each a
directory holding that kernel alone: its summary's "NAME t (r) t (r) ..."
rows, after a line "# shapes: M,N,K;M,N,K;..." naming the columns),
asks `fgemm-bench --kernels DIR --choose` which kernel the runtime's model
picks for each of those shapes (no GPU: the model reads DIR's descriptions),
and prints per shape the chosen kernel's time over the fastest one's, then
the geometric mean and the worst. Run it against the directory that was
timed (or one with the same kernel names) after changing the model in
lib/Runtime/Gemm.cpp, to replay the change on the measured times.

  scripts/choice-regret.py --kernels DIR [--bench PATH] [--sms N]
                           [--threshold R] LOG...

Rows: shapes whose ratio is at least --threshold (default 1.02; 1 prints
all). A shape whose chosen kernel was not timed is listed and left out of
the summary. Exit status 1 if no shape could be compared.
"""
import argparse
import math
import re
import subprocess
import sys

ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\d+)\s+\S.*?\)\s+([0-9.]+)\s")
CANDIDATE = re.compile(r"^\s+candidate (\S+)\s*$")
GRID_SHAPES = re.compile(r"^#\s*shapes:\s*(\S+)\s*$")
GRID_ROW = re.compile(r"^\s+(\S+)((?:\s+[0-9.]+\s+\([0-9.]+\))+)\s*$")


def read_times(paths):
    """{(m, n, k): {kernel name: time in us}} from autotune logs (a row, then
    its 'candidate NAME' note; the model's own row is skipped)."""
    times = {}
    for path in paths:
        with open(path) as f:
            lines = f.read().splitlines()
        for row, note in zip(lines, lines[1:]):
            r, c = ROW.match(row), CANDIDATE.match(note)
            if r and c:
                shape = tuple(int(r.group(i)) for i in (1, 2, 3))
                times.setdefault(shape, {})[c.group(1)] = float(r.group(4))
        grid = []
        for line in lines:
            header, row = GRID_SHAPES.match(line), GRID_ROW.match(line)
            if header:
                grid = [tuple(int(v) for v in s.split(","))
                        for s in header.group(1).split(";")]
            elif row and grid:
                values = [float(v) for v in row.group(2).split()[0::2]]
                for shape, t in zip(grid, values):
                    times.setdefault(shape, {})[row.group(1)] = t
    return times


def model_choices(bench, kernels, sms, shapes):
    """{(m, n, k): kernel name} from fgemm-bench --choose."""
    spec = ";".join("%d,%d,%d" % s for s in shapes)
    cmd = [bench, "--kernels", kernels, "--choose", "--shapes", spec]
    if sms:
        cmd += ["--sms", str(sms)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    choices = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 4 and all(p.isdigit() for p in parts[:3]):
            if not parts[3].startswith(("error:", "-")):
                choices[tuple(int(p) for p in parts[:3])] = parts[3]
    if not choices and out.returncode:
        sys.exit("choice-regret: %s failed:\n%s" % (" ".join(cmd), out.stderr))
    return choices


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("logs", nargs="+")
    p.add_argument("--kernels", required=True)
    p.add_argument("--bench", default="build/bin/fgemm-bench")
    p.add_argument("--sms", type=int, default=0)
    p.add_argument("--threshold", type=float, default=1.02)
    args = p.parse_args(argv)

    times = read_times(args.logs)
    if not times:
        sys.exit("choice-regret: no timed candidates in %s" % ", ".join(args.logs))
    choices = model_choices(args.bench, args.kernels, args.sms, sorted(times))
    ratios = []
    for shape in sorted(times):
        candidates = times[shape]
        fastest = min(candidates, key=candidates.get)
        chosen = choices.get(shape)
        name = "%dx%dx%d" % shape
        if chosen not in candidates:
            print("%-18s chose %s: not timed" % (name, chosen or "nothing"))
            continue
        ratio = candidates[chosen] / candidates[fastest]
        ratios.append((ratio, name))
        if ratio >= args.threshold:
            print("%-18s chose %s %.1f us, fastest %s %.1f us: %.3f" %
                  (name, chosen, candidates[chosen], fastest,
                   candidates[fastest], ratio))
    if not ratios:
        print("choice-regret: no shape compared")
        return 1
    geomean = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
    worst = max(ratios)
    print("chosen / fastest over %d shapes: geomean %.4f, worst %.3f (%s)" %
          (len(ratios), geomean, worst[0], worst[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
