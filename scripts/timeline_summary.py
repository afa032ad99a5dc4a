#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Summarizes fgemm-bench --timeline CSV files (docs/TIMELINE.md).

For each shape and role (the producer, math warpgroup 0, 1): the CTAs
grouped by how many tiles they ran, and per group the mean microseconds of
each phase: entry (from the launch's first stamp), then per tile the gap
from the previous stamp to the tile's start, its order (start to ready: the
tile's indices, group and rows, and its first scale staging), its wait
(ready to the first wgmmas issued: the first full barrier), the rest (K
loop, promotion, the epilogue's store issued), and finally the time from
the last tile's end to the exit. The producer's ready is its K loop's
start; its rest is the loads' issue. Then the tail: the math warpgroup 0
exits of the CTAs that ran the most tiles (median and last), and the CTAs
whose first tile ended more than 1 us after the median first tile's end
(a few slow CTAs hold a kernel's end while the means look alike).

Then the spread across CTAs (math warpgroup 0): per tile index the mean
duration and its standard deviation, and the standard deviation of the
tiles' start times (how far the CTAs drift apart; docs/PERF.md, forty-second
session). Last, what a dynamic hand-out of the last round would give: the
units (a cluster of --cluster CTAs runs one) beyond the fewest any unit
holder ran go, instead of to the holders the static schedule gave them, to
the holders that finish their common rounds first, each taking its own mean
tile time; the launch's end against the measured one (an estimate: the
holders' speeds stay their own).

usage: timeline_summary.py [--cluster C] FILE.csv [FILE.csv ...]
"""

import collections
import csv
import statistics
import sys

ENTRY, EXIT, TILE0, SLOTS_PER_TILE = 0, 1, 2, 4
ROLE_NAMES = {0: "producer", 1: "math wg0", 2: "math wg1"}


def load(path):
    """{shape: {(cta, role): {slot: ns}}}"""
    shapes = collections.defaultdict(lambda: collections.defaultdict(dict))
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (int(row["cta"]), int(row["role"]))
            shapes[row["shape"]][key][int(row["slot"])] = int(row["ns"])
    return shapes


def phases(stamps):
    """The phase durations (us) of one role of one CTA, or None."""
    if ENTRY not in stamps or EXIT not in stamps:
        return None
    names, values = ["entry"], [stamps[ENTRY]]
    last = stamps[ENTRY]
    tile = 0
    while TILE0 + SLOTS_PER_TILE * tile in stamps:
        start, ready, first, end = (stamps.get(TILE0 + SLOTS_PER_TILE * tile + i)
                                    for i in range(SLOTS_PER_TILE))
        if end is None:
            break
        names.append(f"t{tile} gap")
        values.append(start - last)
        marks = [("order", ready), ("wait", first), ("rest", end)]
        at = start
        for name, mark in marks:
            if mark is not None:
                names.append(f"t{tile} {name}")
                values.append(mark - at)
                at = mark
        last = end
        tile += 1
    names.append("to exit")
    values.append(stamps[EXIT] - last)
    return tile, names, [v / 1000.0 for v in values]


def summarize(path, cluster):
    for shape, ctas in load(path).items():
        span = max(s[EXIT] for s in ctas.values() if EXIT in s) / 1000.0
        print(f"{path}: {shape}: last exit at {span:.2f} us "
              f"({len({c for c, _ in ctas})} CTAs)")
        for role in sorted({r for _, r in ctas}):
            groups = collections.defaultdict(list)
            for (cta, r), stamps in ctas.items():
                if r != role:
                    continue
                got = phases(stamps)
                if got:
                    groups[(got[0], tuple(got[1]))].append(got)
            for tiles, names in sorted(groups):
                runs = groups[(tiles, names)]
                means = [statistics.mean(run[2][i] for run in runs)
                         for i in range(len(names))]
                total = statistics.mean(sum(run[2][1:]) for run in runs)
                cells = "  ".join(f"{n} {v:.2f}" for n, v in
                                  zip(names, means))
                print(f"  {ROLE_NAMES.get(role, role)}, {tiles} tile(s), "
                      f"{len(runs)} CTAs: {cells}  | entry to exit "
                      f"{total:.2f}")
        tail(ctas)
        spread(ctas, cluster)


def math_tiles(ctas):
    """{cta: [(start, end) ns of each tile]} of math warpgroup 0."""
    runs = {}
    for (cta, role), s in ctas.items():
        if role != 1:
            continue
        tiles = []
        while (TILE0 + SLOTS_PER_TILE * len(tiles) in s and
               TILE0 + SLOTS_PER_TILE * len(tiles) + 3 in s):
            base = TILE0 + SLOTS_PER_TILE * len(tiles)
            tiles.append((s[base], s[base + 3]))
        runs[cta] = tiles
    return runs


def spread(ctas, cluster):
    """Per tile index: the duration's mean and sd and the start times' sd
    across CTAs; then the dynamic hand-out estimate."""
    runs = math_tiles(ctas)
    if not runs:
        return
    cells = []
    for t in range(max(len(r) for r in runs.values())):
        got = [r[t] for r in runs.values() if len(r) > t]
        if len(got) < 2:
            break
        durations = [(e - b) / 1000.0 for b, e in got]
        starts = [b / 1000.0 for b, _ in got]
        cells.append(f"t{t} {statistics.mean(durations):.2f}"
                     f"+-{statistics.stdev(durations):.2f} "
                     f"(start sd {statistics.stdev(starts):.2f})")
    print("  spread (math wg0, us): " + "  ".join(cells))
    # Unit holders: the clusters; a unit ends when its last CTA's tile does.
    holders = collections.defaultdict(list)
    for cta, tiles in runs.items():
        holders[cta // cluster].append(tiles)
    ends = {}
    for h, members in holders.items():
        count = min(len(m) for m in members)
        ends[h] = [max(m[t][1] for m in members) for t in range(count)]
    ends = {h: e for h, e in ends.items() if e}
    if not ends:
        return
    fewest = min(len(e) for e in ends.values())
    extra = sum(len(e) - fewest for e in ends.values())
    measured = max(e[-1] for e in ends.values()) / 1000.0
    if extra == 0:
        print(f"  dynamic hand-out: every holder ran {fewest} unit(s); "
              f"nothing to hand out")
        return
    # A holder's own mean unit time, from its first start to its last end.
    first = {h: min(m[0][0] for m in holders[h]) for h in ends}
    pace = {h: (ends[h][-1] - first[h]) / len(ends[h]) for h in ends}
    finish = sorted((e[fewest - 1], h) for h, e in ends.items())
    estimate = max([e for e, _ in finish] +
                   [e + pace[h] for e, h in finish[:extra]]) / 1000.0
    print(f"  dynamic hand-out: the {extra} unit(s) beyond {fewest} per "
          f"holder to the first of {len(ends)} holders done with {fewest}: "
          f"end {measured:.2f} -> {estimate:.2f} us "
          f"({100 * (measured - estimate) / measured:.2f}% sooner)")


def tail(ctas):
    """The spread of math warpgroup 0's CTAs: their exits, and the CTAs
    whose first tile ended late."""
    first_end = TILE0 + SLOTS_PER_TILE - 1
    math = {cta: s for (cta, role), s in ctas.items()
            if role == 1 and EXIT in s}
    if not math:
        return
    runs = math_tiles(ctas)
    tiles = {cta: len(runs[cta]) for cta in math}
    most = max(tiles.values())
    exits = [math[c][EXIT] / 1000.0 for c in math if tiles[c] == most]
    print(f"  tail: exits of the {len(exits)} CTAs of {most} tile(s): "
          f"median {statistics.median(exits):.2f}, last {max(exits):.2f}")
    ends = {c: s[first_end] / 1000.0 for c, s in math.items()
            if first_end in s}
    if ends:
        median = statistics.median(ends.values())
        late = sorted(c for c, e in ends.items() if e > median + 1.0)
        print(f"  tail: first tile ends median {median:.2f}; "
              f"{len(late)} CTA(s) over 1 us later: {late[:32]}")


if __name__ == "__main__":
    args, cluster = sys.argv[1:], 1
    if args[:1] == ["--cluster"] and len(args) > 1 and args[1].isdigit():
        cluster, args = max(1, int(args[1])), args[2:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    for arg in args:
        summarize(arg, cluster)
