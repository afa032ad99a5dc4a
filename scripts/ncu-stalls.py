#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Two kernels' ncu warp-stall samples side by side, per unit of tensor work:
for reading where fgemm's kernel spends its time against DeepGEMM's (or
another build's), here, from what the GPU machine wrote.

  scripts/ncu-stalls.py [--top N] [--loop] A.source.csv.gz B.source.csv.gz

Each file is ncu's source page of one or more profiled launches of one
kernel, per SASS instruction:
  ncu --set full --import-source no --warp-sampling-interval 0 \
      --launch-count N -o R ...                   (on the GPU machine)
  ncu --import R.ncu-rep --page source --csv --print-source sass | gzip -c > R.source.csv.gz
The launches of a file are summed instruction by instruction (by offset from
the launch's first instruction, so a module loaded again elsewhere still
lines up); interval 0 samples every 32 cycles, the most ncu offers.

Samples and executed instructions are divided by the launch's tensor work,
read off its wgmmas (QGMMA.64x192x32 executed n times is n x 64 x 192 x 32
multiply-adds; the unit is 2^30 of them, so kernels of different tiles
compare), and printed by stall reason and by
opcode, largest difference first, then each kernel's top sites. --loop keeps
the instructions executed as often as the most executed wgmma (the K loop's
body), so that one tile's prologue and epilogue do not blur the loop.
--self-test checks the parser on a built-in sample (ctest runs it).
"""

import argparse
import collections
import csv
import gzip
import io
import re
import sys

SHAPE = re.compile(r"[QH]GMMA\.(\d+)x(\d+)x(\d+)")
OPCODE = re.compile(r"\s*(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")
UNIT = float(1 << 30)


def read(stream):
    """(rows, stall columns) of ncu's source CSV: per launch a kernel name
    line, the header, one row per instruction. Rows of several launches are
    summed by offset; Address becomes that offset."""
    header, base, merged = None, None, {}
    for r in csv.reader(stream):
        if not r:
            continue
        if r[0] == "Kernel Name":
            header = None
            continue
        if r[0] == "Address":
            header, base = r, None
            continue
        if header is None or len(r) != len(header):
            continue
        row = dict(zip(header, r))
        address = int(row["Address"], 16)
        base = address if base is None else base
        offset = f"0x{address - base:x}"
        if offset not in merged:
            merged[offset] = dict(row, Address=offset)
            continue
        into = merged[offset]
        for k, v in row.items():
            if k not in ("Address", "Source") and v.replace(",", "").strip().isdigit():
                into[k] = str(number(into[k]) + number(v))
    if header is None and not merged:
        raise ValueError("not ncu's source page (no 'Source' column)")
    stalls = [h for h in (header or next(iter(merged.values())))
              if h.startswith("stall_") and "Not Issued" not in h]
    return list(merged.values()), stalls


def number(text):
    text = (text or "").replace(",", "").strip()
    return int(text) if text.isdigit() else 0


def work(rows):
    """Multiply-adds of the wgmmas among `rows`, in units of 2^30."""
    total = 0
    for row in rows:
        m = SHAPE.search(row["Source"])
        if m:
            a, b, c = (int(x) for x in m.groups())
            total += number(row["Instructions Executed"]) * a * b * c
    return total / UNIT


def summary(rows, stalls, loop):
    if loop:
        counts = [number(r["Instructions Executed"]) for r in rows
                  if SHAPE.search(r["Source"])]
        most = max(counts, default=0)
        rows = [r for r in rows if number(r["Instructions Executed"]) == most]
    reasons, samples, executed = (collections.Counter() for _ in range(3))
    for row in rows:
        m = OPCODE.match(row["Source"])
        op = m.group(1) if m else "?"
        for s in stalls:
            reasons[s[len("stall_"):]] += number(row[s])
        samples[op] += number(row["# Samples"])
        executed[op] += number(row["Instructions Executed"])
    return rows, reasons, samples, executed


def compare(paths, top, loop, out):
    kernels = []
    for path in paths:
        with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
            rows, stalls = read(f)
        body, reasons, samples, executed = summary(rows, stalls, loop)
        units = work(body)
        if units == 0:
            raise ValueError(f"{path}: no wgmma executed")
        kernels.append((path, rows, units, body, reasons, samples, executed))
    (pa, _, ua, _, ra, sa, ea), (pb, _, ub, _, rb, sb, eb) = kernels
    print(f"A = {pa}\nB = {pb}", file=out)
    print(f"tensor work (2^30 multiply-adds): A {ua:.0f}, B {ub:.0f}"
          + (" (the K loops' bodies only)" if loop else ""), file=out)
    print(f"samples per unit: A {sum(sa.values()) / ua:.2f}, B {sum(sb.values()) / ub:.2f}; "
          f"instructions per unit: A {sum(ea.values()) / ua:.0f}, "
          f"B {sum(eb.values()) / ub:.0f}", file=out)
    print("\nstall reason        A / unit   B / unit   A - B", file=out)
    for k in sorted(set(ra) | set(rb), key=lambda k: -abs(ra[k] / ua - rb[k] / ub)):
        a, b = ra[k] / ua, rb[k] / ub
        if a or b:
            print(f"  {k:<16} {a:9.3f}  {b:9.3f}  {a - b:+8.3f}", file=out)
    print("\nopcode          samples A / B / unit      instructions A / B / unit", file=out)
    keys = sorted(set(sa) | set(sb) | set(ea) | set(eb),
                  key=lambda k: -abs(sa[k] / ua - sb[k] / ub))
    for k in keys[:top]:
        print(f"  {k:<12} {sa[k] / ua:9.3f} {sb[k] / ub:9.3f}      "
              f"{ea[k] / ua:9.0f} {eb[k] / ub:9.0f}", file=out)
    for name, (_, _, units, body, *_rest) in zip("AB", kernels):
        print(f"\n{name}: top sites (samples per unit, executions, instruction)", file=out)
        sites = sorted(body, key=lambda r: -number(r["# Samples"]))[:top]
        for r in sites:
            print(f"  {number(r['# Samples']) / units:8.3f} {number(r['Instructions Executed']):>10} "
                  f"{r['Source'].strip()[:70]}", file=out)


SAMPLE = """"Kernel Name","k"
"Address","Source","# Samples","Instructions Executed","stall_barrier","stall_wait","stall_barrier (Not Issued)"
"0x10","QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR16], RZ, !UPT","4","64","0","4","0"
"0x20","WARPGROUP.DEPBAR.LE gsb0, 0x0","10","64","10","0","10"
"0x30","@!P1 BRA 0x100","2","16","0","2","0"
"""
# A second launch of the same kernel, loaded at another address.
SAMPLE_2 = SAMPLE + """"Kernel Name","k"
"Address","Source","# Samples","Instructions Executed","stall_barrier","stall_wait","stall_barrier (Not Issued)"
"0x1010","QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR16], RZ, !UPT","1","64","0","1","0"
"0x1020","WARPGROUP.DEPBAR.LE gsb0, 0x0","5","64","5","0","5"
"0x1030","@!P1 BRA 0x100","0","16","0","0","0"
"""


def self_test():
    rows, stalls = read(io.StringIO(SAMPLE))
    assert stalls == ["stall_barrier", "stall_wait"], stalls
    assert work(rows) == 64 * 64 * 128 * 32 / UNIT
    _, reasons, samples, executed = summary(rows, stalls, loop=False)
    assert reasons == {"barrier": 10, "wait": 6}, reasons
    assert samples["BRA"] == 2 and executed["WARPGROUP"] == 64
    body, *_ = summary(rows, stalls, loop=True)
    assert [r["Address"] for r in body] == ["0x0", "0x10"]
    rows, stalls = read(io.StringIO(SAMPLE_2))
    assert len(rows) == 3 and work(rows) == 2 * 64 * 64 * 128 * 32 / UNIT
    _, reasons, samples, _ = summary(rows, stalls, loop=False)
    assert reasons == {"barrier": 15, "wait": 7}, reasons
    assert samples["WARPGROUP"] == 15 and samples["BRA"] == 2
    print("ncu-stalls: self-test passed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--top", type=int, default=16)
    parser.add_argument("--loop", action="store_true")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return 0
    if len(args.files) != 2:
        parser.error("give two source CSVs (A and B)")
    try:
        compare(args.files, args.top, args.loop, sys.stdout)
    except BrokenPipeError:
        return 0
    except (OSError, ValueError) as e:
        print(f"ncu-stalls: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
