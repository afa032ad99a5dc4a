#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""fgemm against DeepGEMM on the M-grouped GEMMs (DESIGN.md section 5), in one
process on one GPU: per shape the same inputs go to both libraries, both
outputs are checked against the FP32 product of the unquantized inputs (per
group's valid rows), and both are timed the same way, kernel only: the torch
profiler's (CUPTI) durations of the GEMM kernels over --reps calls, each call
after a 256 MiB memset that flushes L2 (DeepGEMM's bench_kineto method); the
median is reported.

  scripts/compare_grouped.py [--reps N] [--out DIR] [--quick] [--configs DIR...]

--configs: directories of one grouped kernel each (gpu-prepare.sh's
cfg_contiguous_* / cfg_masked_*), each also timed on its layout's rows
(fgemm's runtime choice is the main column).

Shapes (G, M per group, N, K): contiguous rows per group drawn from 0.7-1.3x
M and padded to 128 (DeepGEMM's generator); masked counts drawn the same way,
clamped to the capacity, for two capacities: 4096 rows per group (DeepGEMM's
test) and the tight one, align(1.3 M, 128). expected_m = M for both
libraries. TFLOPS count valid rows only (2 x valid rows x N x K / t).
GROUPED_CONTIGUOUS / GROUPED_MASKED ("G,M,N,K;...", "" = none) replace the
lists, e.g. for a K sweep; GROUPED_MASKED=extended runs the issue's masked
shapes, then DeepGEMM's masked test shapes, then groups of an odd number of
row tiles (the 40-row table of docs/PERF.md with the contiguous rows; the
draws follow a row's position in the list). GROUPED_CONTIGUOUS=deepgemm and
GROUPED_MASKED=deepgemm run DeepGEMM's current test lists whole (with
GROUPED_CAPACITY=4096 for its masked capacity). GROUPED_CAPACITY=C runs the
masked shapes at that one capacity instead (with M >= C / 0.7 every group
holds exactly C rows). GROUPED_DRAWS=D measures every row at D draws of its
rows (draw 0 is the single-draw run's; the others add 1000 x draw to its
seed), one table row each, then per shape both libraries' mean time over
the draws and the geomean of those means: a choice that follows the drawn
row tiles wins some draws and loses others.
"""

import argparse
import json
import os
import random
import sys

CONTIGUOUS = [(4, 8192, 4096, 7168), (4, 8192, 7168, 2048), (8, 4096, 4096, 7168), (8, 4096, 7168, 2048)]
MASKED = [(1, 1024, 4096, 7168), (1, 1024, 7168, 2048), (2, 512, 4096, 7168), (2, 512, 7168, 2048),
          (4, 256, 4096, 7168), (4, 256, 7168, 2048)]
# DeepGEMM's masked test shapes (its tests' group counts, rows and N, K).
MASKED_DEEPGEMM = [(32, 192, 6144, 7168), (32, 192, 4096, 2048), (6, 1024, 6144, 7168),
                   (6, 1024, 4096, 2048), (32, 20, 6144, 7168), (32, 20, 7168, 3072),
                   (32, 20, 4096, 2048), (6, 20, 6144, 7168), (6, 20, 4096, 2048)]
# Groups of an odd number of 128-row tiles.
MASKED_ODD = [(32, 300, 4096, 2048), (16, 384, 7168, 2048), (8, 640, 4096, 7168)]
# DeepGEMM's current test lists whole (its enumerate_m_grouped_contiguous /
# _masked: every group count with every N, K; masked at capacity 4096).
DEEPGEMM_NK = [(6144, 7168), (7168, 3072), (4096, 4096), (4096, 2048)]
CONTIGUOUS_DEEPGEMM_TESTS = [(g, m, n, k) for g, m in ((4, 8192), (8, 4096)) for n, k in DEEPGEMM_NK]
MASKED_DEEPGEMM_TESTS = [(g, m, n, k) for g, m in ((32, 192), (6, 1024), (32, 20), (6, 20))
                         for n, k in DEEPGEMM_NK]
CONTIGUOUS_PRESETS = {"deepgemm": CONTIGUOUS_DEEPGEMM_TESTS}
MASKED_PRESETS = {"extended": MASKED + MASKED_DEEPGEMM + MASKED_ODD, "deepgemm": MASKED_DEEPGEMM_TESTS}


def shapes_from_env(name, default, presets):
    text = os.environ.get(name)
    if text is None:
        return default
    if text in presets:
        return presets[text]
    return [tuple(int(x) for x in part.split(",")) for part in text.split(";") if part.strip()]


CONTIGUOUS = shapes_from_env("GROUPED_CONTIGUOUS", CONTIGUOUS, CONTIGUOUS_PRESETS)
MASKED = shapes_from_env("GROUPED_MASKED", MASKED, MASKED_PRESETS)


def align(x, a):
    return (x + a - 1) // a * a


def calc_diff(x, y):
    x, y = x.double(), y.double()
    den = (x * x + y * y).sum()
    return 0.0 if float(den) == 0 else float(1 - 2 * (x * y).sum() / den)


def quantize(fgemm, torch, x_rows, y_groups):
    a, sfa = fgemm.per_token_cast_to_fp8(x_rows)
    parts = [fgemm.per_block_cast_to_fp8(y_groups[g]) for g in range(y_groups.shape[0])]
    return a, sfa, torch.stack([p[0] for p in parts]), torch.stack([p[1] for p in parts])


def kernel_times(torch, fn, reps):
    """Per call, the summed CUPTI durations (us) of the kernels fn launches
    after an L2 flush; the median over reps, and the kernels' names
    (fgemm.bench's method)."""
    from fgemm.bench import kernel_time
    return kernel_time(torch, fn, reps)


def with_kernels(fgemm, directory, call):
    """`call` run on a context loaded from `directory` alone."""
    def run(d):
        saved = fgemm._lib._contexts.get(0)
        ctx = CONFIG_CONTEXTS.get(directory)
        if ctx is None:
            ctx = CONFIG_CONTEXTS[directory] = fgemm._lib.Context(0, directory)
        fgemm._lib._contexts[0] = ctx
        try:
            return call(d)
        finally:
            fgemm._lib._contexts[0] = saved
    return run


CONFIG_CONTEXTS = {}
CONFIGS = []  # --configs


def add_configs(fgemm, calls, layout):
    for directory in CONFIGS:
        name = os.path.basename(directory.rstrip("/"))
        if layout in name:
            calls["cfg:" + name] = with_kernels(fgemm, directory, calls["fgemm"])


def run_contiguous(fgemm, dg, torch, shape, reps, seed):
    groups, m_per, n, k = shape
    rng = random.Random(seed)
    rows = [int(m_per * rng.uniform(0.7, 1.3)) for _ in range(groups)]
    spans, indices, start = [], [], 0
    for g, r in enumerate(rows):
        padded = align(r, 128)
        spans.append((start, r))
        indices += [g] * r + [-1] * (padded - r)
        start += padded
    m = start
    torch.manual_seed(seed)
    x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16)
    m_indices = torch.tensor(indices, device="cuda", dtype=torch.int32)
    x[m_indices < 0] = 0  # DeepGEMM's generator zeroes A's padding rows
    y = torch.randn((groups, n, k), device="cuda", dtype=torch.bfloat16)
    a, sfa, b, sfb = quantize(fgemm, torch, x, y)
    sfa = fgemm.get_mn_major_tma_aligned_tensor(sfa)
    ref = torch.empty((m, n), device="cuda", dtype=torch.float32)
    for g, (s, r) in enumerate(spans):
        ref[s:s + r] = x[s:s + r].float() @ y[g].float().t()
    valid = m_indices >= 0
    calls = {
        "fgemm": lambda d: fgemm.m_grouped_fp8_gemm_nt_contiguous((a, sfa), (b, sfb), d, m_indices),
    }
    add_configs(fgemm, calls, "contiguous")
    if dg is not None:
        calls["deepgemm"] = lambda d: dg.m_grouped_fp8_gemm_nt_contiguous(
            (a, sfa), (b, sfb), d, m_indices, disable_ue8m0_cast=True)
    row = {"layout": "contiguous", "shape": list(shape), "rows": rows, "m": m,
           "flops": 2.0 * sum(rows) * n * k}
    for name, call in calls.items():
        d = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
        try:
            call(d)
            torch.cuda.synchronize()
            row[name + "_diff"] = calc_diff(d[valid].float(), ref[valid])
            row[name + "_padding_zero"] = bool((d[~valid].float() == 0).all().item())
            t, names = kernel_times(torch, lambda: call(d), reps)
            row[name + "_us"], row[name + "_kernels"] = t, names
        except Exception as e:  # report and go on with the other library
            row[name + "_error"] = "%s: %s" % (type(e).__name__, e)
    return row


def run_masked(fgemm, dg, torch, shape, capacity, reps, seed):
    groups, m_per, n, k = shape
    rng = random.Random(seed)
    counts = [min(capacity, int(m_per * rng.uniform(0.7, 1.3))) for _ in range(groups)]
    torch.manual_seed(seed)
    x = torch.randn((groups * capacity, k), device="cuda", dtype=torch.bfloat16)
    y = torch.randn((groups, n, k), device="cuda", dtype=torch.bfloat16)
    a, sfa, b, sfb = quantize(fgemm, torch, x, y)
    a = a.view(groups, capacity, k)
    sfa = fgemm.get_mn_major_tma_aligned_tensor(sfa.view(groups, capacity, -1))
    x = x.view(groups, capacity, k)
    masked_m = torch.tensor(counts, device="cuda", dtype=torch.int32)
    calls = {
        "fgemm": lambda d: fgemm.m_grouped_fp8_gemm_nt_masked((a, sfa), (b, sfb), d, masked_m, m_per),
    }
    add_configs(fgemm, calls, "masked")
    if dg is not None:
        calls["deepgemm"] = lambda d: dg.m_grouped_fp8_gemm_nt_masked(
            (a, sfa), (b, sfb), d, masked_m, m_per, disable_ue8m0_cast=True)
    row = {"layout": "masked", "shape": list(shape), "capacity": capacity, "rows": counts,
           "flops": 2.0 * sum(counts) * n * k}
    for name, call in calls.items():
        d = torch.empty((groups, capacity, n), device="cuda", dtype=torch.bfloat16)
        try:
            call(d)
            torch.cuda.synchronize()
            diffs = [calc_diff(d[g, :r].float(), x[g, :r].float() @ y[g].float().t())
                     for g, r in enumerate(counts) if r]
            row[name + "_diff"] = max(diffs) if diffs else 0.0
            t, names = kernel_times(torch, lambda: call(d), reps)
            row[name + "_us"], row[name + "_kernels"] = t, names
        except Exception as e:
            row[name + "_error"] = "%s: %s" % (type(e).__name__, e)
    return row


def run_unpadded(fgemm, torch, shape, reps, seed):
    """fgemm's unpadded contiguous layout against the padded one (the psum
    form) on the same tokens: the rows of each group back to back, or each
    group padded to 128 rows."""
    groups, m_per, n, k = shape
    rng = random.Random(seed)
    rows = [int(m_per * rng.uniform(0.7, 1.3)) for _ in range(groups)]
    total = sum(rows)
    torch.manual_seed(seed)
    x = torch.randn((total, k), device="cuda", dtype=torch.bfloat16)
    y = torch.randn((groups, n, k), device="cuda", dtype=torch.bfloat16)
    a, sfa, b, sfb = quantize(fgemm, torch, x, y)
    ends = torch.tensor(rows, dtype=torch.int64).cumsum(0).to(torch.int32).cuda()
    starts, pstart, pends = [], 0, []
    for r in rows:
        starts.append(pstart)
        pends.append(pstart + r)
        pstart = align(pstart + r, 128)
    pa = torch.zeros((pstart, k), device="cuda", dtype=torch.uint8).view(torch.float8_e4m3fn)
    psfa = torch.ones((pstart, sfa.shape[1]), device="cuda")
    begin = 0
    for g, r in enumerate(rows):
        pa[starts[g]:starts[g] + r] = a[begin:begin + r]
        psfa[starts[g]:starts[g] + r] = sfa[begin:begin + r]
        begin += r
    sfa = fgemm.get_mn_major_tma_aligned_tensor(sfa)
    psfa = fgemm.get_mn_major_tma_aligned_tensor(psfa)
    pends = torch.tensor(pends, device="cuda", dtype=torch.int32)
    d = torch.empty((total, n), device="cuda", dtype=torch.bfloat16)
    pd = torch.empty((pstart, n), device="cuda", dtype=torch.bfloat16)
    unpadded = lambda: fgemm.m_grouped_fp8_gemm_nt_contiguous_unpadded((a, sfa), (b, sfb), d, ends)
    padded = lambda: fgemm.m_grouped_fp8_gemm_nt_contiguous((pa, psfa), (b, sfb), pd, pends,
                                                            use_psum_layout=True)
    row = {"layout": "unpadded", "shape": list(shape), "rows": rows, "padded_rows": pstart,
           "flops": 2.0 * total * n * k}
    row["unpadded_us"], row["unpadded_kernels"] = kernel_times(torch, unpadded, reps)
    row["padded_us"], row["padded_kernels"] = kernel_times(torch, padded, reps)
    same = all(torch.equal(d[sum(rows[:g]):sum(rows[:g + 1])].view(torch.int16),
                           pd[starts[g]:starts[g] + rows[g]].view(torch.int16)) for g in range(groups))
    row["bitwise_equal"] = same
    return row


def describe(row, draws=True):
    g, m, n, k = row["shape"]
    if row["layout"] == "masked":
        text = "masked %dx%d cap %d, %d, %d" % (g, m, row["capacity"], n, k)
    else:
        text = "contiguous %dx%d, %d, %d" % (g, m, n, k)
    if draws and "draw" in row:
        text += " draw %d (%s rows)" % (row["draw"], "+".join(str(r) for r in row["rows"]))
    return text


def mean_over_draws(rows):
    """Per shape (rows of one description but their draw), both libraries'
    mean time over the draws where both ran, in first-seen order: lines of
    a table and the geomean of mean DeepGEMM time / mean fgemm time."""
    shapes = {}
    for row in rows:
        if row.get("deepgemm_us") and row.get("fgemm_us"):
            entry = shapes.setdefault(describe(row, draws=False), [])
            entry.append((row["deepgemm_us"], row["fgemm_us"]))
    lines = ["| shape (G x M, N, K) | draws | DeepGEMM mean us | fgemm mean us | fgemm/DeepGEMM |",
             "| --- | ---: | ---: | ---: | ---: |"]
    geo, count = 1.0, 0
    for name, times in shapes.items():
        dg_mean = sum(t[0] for t in times) / len(times)
        fg_mean = sum(t[1] for t in times) / len(times)
        geo *= dg_mean / fg_mean
        count += 1
        lines.append("| %s | %d | %.1f | %.1f | %.3f |" % (name, len(times), dg_mean, fg_mean,
                                                           dg_mean / fg_mean))
    if count:
        lines += ["", "geomean over shapes of the mean times: %.3f over %d shapes" % (
            geo ** (1 / count), count)]
    return lines


def report(rows, out):
    lines = ["| shape (G x M, N, K) | DeepGEMM us | fgemm us | DeepGEMM TFLOPS | fgemm TFLOPS | fgemm/DeepGEMM | diff fgemm / DG |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    ratios = []
    for row in rows:
        dg_t, fg_t = row.get("deepgemm_us"), row.get("fgemm_us")
        tf = lambda t: "%.0f" % (row["flops"] / t * 1e-6) if t else "-"
        ratio = dg_t / fg_t if dg_t and fg_t else None
        if ratio:
            ratios.append(ratio)
        lines.append("| %s | %s | %s | %s | %s | %s | %s / %s |" % (
            describe(row), "%.1f" % dg_t if dg_t else "-", "%.1f" % fg_t if fg_t else "-",
            tf(dg_t), tf(fg_t), "%.3f" % ratio if ratio else "-",
            "%.1e" % row["fgemm_diff"] if "fgemm_diff" in row else row.get("fgemm_error", "-"),
            "%.1e" % row["deepgemm_diff"] if "deepgemm_diff" in row else row.get("deepgemm_error", "-")))
    if ratios:
        geo = 1.0
        for r in ratios:
            geo *= r
        lines.append("")
        lines.append("geomean fgemm speed / DeepGEMM: %.3f over %d shapes" % (geo ** (1 / len(ratios)), len(ratios)))
    if any(row.get("draw", 0) > 0 for row in rows):
        lines += ["", "Mean over the draws:", ""] + mean_over_draws(rows)
    configs = sorted({key[4:-3] for row in rows for key in row if key.startswith("cfg:") and key.endswith("_us")})
    if configs:
        lines += ["", "Each configuration alone (us; runtime's choice first):", "",
                  "| shape | fgemm | " + " | ".join(configs) + " |",
                  "| --- | ---: | " + " | ".join("---:" for _ in configs) + " |"]
        for row in rows:
            cells = []
            for c in configs:
                t = row.get("cfg:%s_us" % c)
                bad = row.get("cfg:%s_diff" % c, 0) > 1e-3
                cells.append(("%.1f" % t if t else "-") + (" (BAD)" if bad else ""))
            lines.append("| %s | %s | %s |" % (describe(row), "%.1f" % row["fgemm_us"] if row.get("fgemm_us") else "-",
                                                " | ".join(cells)))
    text = "\n".join(lines)
    print(text)
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "grouped.md"), "w") as f:
            f.write(text + "\n")
        with open(os.path.join(out, "grouped.json"), "w") as f:
            json.dump(rows, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--out", default=os.environ.get("OUT"))
    parser.add_argument("--quick", action="store_true", help="one shape per layout")
    parser.add_argument("--configs", nargs="*", default=[])
    parser.add_argument("--unpadded", action="store_true",
                        help="only fgemm's unpadded contiguous layout against its padded one "
                             "(the psum form) on the same tokens")
    parser.add_argument("--only", type=int, help="run row ONLY alone (a warm-up process: "
                        "DeepGEMM JIT-compiles its kernel), print nothing")
    args = parser.parse_args()
    import torch
    import fgemm
    if args.only is None:
        CONFIGS.extend(args.configs)
    if args.unpadded:
        lines = ["| shape (G x M per group, N, K) | rows | padded rows | unpadded us | padded us | "
                 "padded / unpadded time | same bits |", "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
        for i, shape in enumerate(CONTIGUOUS):
            row = run_unpadded(fgemm, torch, shape, args.reps, seed=300 + i)
            print(json.dumps(row), file=sys.stderr)
            u, p = row["unpadded_us"], row["padded_us"]
            lines.append("| %dx%d, %d, %d | %d | %d | %s | %s | %s | %s |" % (
                shape[0], shape[1], shape[2], shape[3], sum(row["rows"]), row["padded_rows"],
                "%.1f" % u if u else "-", "%.1f" % p if p else "-",
                "%.3f" % (p / u) if u and p else "-", row["bitwise_equal"]))
        text = "\n".join(lines)
        print(text)
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "unpadded.md"), "w") as f:
                f.write(text + "\n")
        return
    try:
        import deep_gemm as dg
    except Exception as e:  # no DeepGEMM build: fgemm's column only
        print("DeepGEMM not importable: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        dg = None
    print(torch.cuda.get_device_name(), "torch", torch.__version__, file=sys.stderr)
    # Draw 0 first, whole: the warm-up processes run its rows (DeepGEMM's
    # JIT compiles per shape, not per draw).
    draws = int(os.environ.get("GROUPED_DRAWS", "1"))

    def tagged(row, draw):
        if draws > 1:
            row["draw"] = draw
        return row

    jobs = []
    for draw in range(draws):
        extra = 1000 * draw
        for i, shape in enumerate(CONTIGUOUS[:1] if args.quick else CONTIGUOUS):
            jobs.append(lambda i=i, shape=shape, draw=draw, extra=extra: tagged(
                run_contiguous(fgemm, dg, torch, shape, args.reps, seed=100 + i + extra), draw))
        for i, shape in enumerate(MASKED[:1] if args.quick else MASKED):
            capacities = (4096, align(int(shape[1] * 1.3) + 1, 128))
            if os.environ.get("GROUPED_CAPACITY"):
                capacities = (int(os.environ["GROUPED_CAPACITY"]),)
            for capacity in capacities:
                jobs.append(lambda i=i, shape=shape, capacity=capacity, draw=draw, extra=extra: tagged(
                    run_masked(fgemm, dg, torch, shape, capacity, args.reps, seed=200 + i + extra), draw))
    if args.only is not None:
        args.reps = 1
        jobs[args.only]()
        return
    rows = []
    for job in jobs:
        rows.append(job())
        print(json.dumps(rows[-1]), file=sys.stderr)
    report(rows, args.out)


if __name__ == "__main__":
    main()
