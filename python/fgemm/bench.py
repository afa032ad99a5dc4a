# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""fgemm's dense FP8 GEMM against DeepGEMM and torch._scaled_mm (cuBLASLt's
blockwise FP8 GEMM), on the same tensors, timed the same way.

    python -m fgemm.bench [--shapes dense|quick|M,N,K;...] [--reps N]
                          [--libs fgemm,fgemm_rowsfa,deepgemm,cublas] [--json F] [--md F]
                          [--png F] [--no-check]

Each library's kernels are timed with the torch profiler (CUPTI kernel
durations, DeepGEMM's bench_kineto method): per call a 256 MiB memset flushes
L2 first, and the per-call sum of the library's kernel durations (the memset
excluded) is reported as the median over --reps calls. A library that cannot
be imported or does not support the GPU is left out and said so. Before
timing, each library's D is checked against the FP32 product of the
unquantized inputs (calc_diff < 1e-3, DeepGEMM's metric) unless --no-check.

Prints a progress line per shape on stderr and a Markdown table on stdout;
--json writes one object per shape and library, --md the table, --png a plot
of TFLOPS and GB/s per shape (matplotlib, if installed). TFLOPS = 2MNK / t;
GB/s counts A, B, SFA, SFB and D once.

Grouped GEMMs: scripts/compare_grouped.py (same method).
"""

import argparse
import json
import math
import statistics
import sys

# DeepSeek-V3's dense GEMMs (DESIGN.md section 5): every (N, K) at M = 64,
# 128 and 4096.
NK = [(2112, 7168), (24576, 1536), (32768, 512), (7168, 16384), (4096, 7168), (7168, 2048)]
MS = [64, 128, 4096]
QUICK = [(64, 2112, 7168), (128, 4096, 7168), (4096, 7168, 16384)]
# fgemm_rowsfa: fgemm given SFA row-major, as quantization makes it: each call
# re-lays it out with fgemm's own kernel first, and both kernels are timed.
LIBRARIES = ("fgemm", "fgemm_rowsfa", "deepgemm", "cublas")
FLUSH_BYTES = 256 << 20
EXCLUDED_KERNELS = ("memset", "Memset", "fill", "Fill", "vectorized_elementwise")


def parse_shapes(text):
    """'dense', 'quick' or 'M,N,K;M,N,K' -> [(m, n, k)]; N % 8 == 0 and
    K % 16 == 0 as every library here needs."""
    if text == "dense":
        return [(m, n, k) for (n, k) in NK for m in MS]
    if text == "quick":
        return list(QUICK)
    shapes = []
    for item in filter(None, (s.strip() for s in text.split(";"))):
        parts = item.split(",")
        if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
            raise ValueError("shape '%s' is not M,N,K (three non-negative integers)" % item)
        m, n, k = (int(p) for p in parts)
        if m < 1 or n % 8 or k % 16 or n < 8 or k < 16:
            raise ValueError("shape %s: need M >= 1, N a multiple of 8, K a multiple of 16" % item)
        shapes.append((m, n, k))
    if not shapes:
        raise ValueError("no shapes in '%s'" % text)
    return shapes


def scale_blocks(x):
    return (x + 127) // 128


def traffic_bytes(m, n, k):
    """Bytes each GEMM moves at least once: e4m3 A and B, f32 SFA (per row and
    K block) and SFB (per 128x128 block), bf16 D."""
    return m * k + n * k + 4 * m * scale_blocks(k) + 4 * scale_blocks(n) * scale_blocks(k) + 2 * m * n


def rates(m, n, k, us):
    """(TFLOPS, GB/s) of one call of `us` microseconds."""
    if not us or us <= 0:
        return None, None
    return 2.0 * m * n * k / us / 1e6, traffic_bytes(m, n, k) / us / 1e3


def markdown(rows, libs):
    """The table: per shape each library's µs, TFLOPS and GB/s, then fgemm's
    speed relative to each other library (> 1: fgemm faster)."""
    others = [lib for lib in libs if lib != "fgemm"]
    head = ["M", "N", "K"]
    for lib in libs:
        head += ["%s µs" % lib, "%s TFLOPS" % lib, "%s GB/s" % lib]
    head += ["fgemm / %s" % lib for lib in others]
    lines = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    ratios = {lib: [] for lib in others}
    for row in rows:
        cells = [str(row["m"]), str(row["n"]), str(row["k"])]
        for lib in libs:
            r = row["libs"].get(lib, {})
            us = r.get("us")
            cells += ["%.1f" % us if us else "-",
                      "%.0f" % r["tflops"] if r.get("tflops") else "-",
                      "%.0f" % r["gbps"] if r.get("gbps") else "-"]
        mine = row["libs"].get("fgemm", {}).get("us")
        for lib in others:
            theirs = row["libs"].get(lib, {}).get("us")
            if mine and theirs:
                ratios[lib].append(theirs / mine)
                cells.append("%.3f" % (theirs / mine))
            else:
                cells.append("-")
        lines.append("| " + " | ".join(cells) + " |")
    for lib in others:
        if ratios[lib]:
            g = math.exp(sum(math.log(r) for r in ratios[lib]) / len(ratios[lib]))
            lines.append("")
            lines.append("geometric mean of fgemm's speed / %s's: %.3f over %d shapes"
                         % (lib, g, len(ratios[lib])))
    return "\n".join(lines)


def plot(rows, libs, path):
    """Two panels, TFLOPS and GB/s, one bar per library and shape."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("fgemm.bench: matplotlib is not installed: no plot written", file=sys.stderr)
        return False
    labels = ["%dx%dx%d" % (r["m"], r["n"], r["k"]) for r in rows]
    fig, axes = plt.subplots(2, 1, figsize=(max(8, 0.6 * len(rows) + 3), 8), sharex=True)
    width = 0.8 / max(len(libs), 1)
    for panel, (key, title) in zip(axes, (("tflops", "TFLOPS"), ("gbps", "GB/s"))):
        for j, lib in enumerate(libs):
            values = [r["libs"].get(lib, {}).get(key) or 0 for r in rows]
            panel.bar([i + (j - (len(libs) - 1) / 2) * width for i in range(len(rows))],
                      values, width, label=lib)
        panel.set_ylabel(title)
        panel.grid(axis="y", alpha=0.3)
    axes[0].legend()
    axes[0].set_title("FP8 GEMM, 1x128 (A) x 128x128 (B) scales, BF16 out (kernel time, L2 flushed)")
    axes[1].set_xticks(range(len(rows)))
    axes[1].set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


class Case:
    """One shape's inputs (quantized as DeepGEMM's tests do) and each
    library's call on them."""

    def __init__(self, torch, fgemm, shape, deep_gemm, check):
        m, n, k = shape
        self.torch, self.fgemm, self.dg = torch, fgemm, deep_gemm
        torch.manual_seed(m * 7 + n * 13 + k * 17)
        a = torch.randn((m, k), device="cuda", dtype=torch.bfloat16)
        b = torch.randn((n, k), device="cuda", dtype=torch.bfloat16)
        self.ref = a.float() @ b.float().t() if check else None
        self.a8, self.sfa = fgemm.per_token_cast_to_fp8(a)
        self.b8, self.sfb = fgemm.per_block_cast_to_fp8(b)
        del a, b
        self.d = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
        # Each library gets SFA in the layout its kernel reads, made here, so
        # that a call launches the GEMM alone: the TMA-aligned MN-major layout
        # for fgemm and DeepGEMM; for cuBLASLt M x K/128 with stride (1, M),
        # and scale_b = SFB^T (K/128 x N/128).
        self.sfa_mn = fgemm.get_mn_major_tma_aligned_tensor(self.sfa)
        self.sfa_cublas = self.sfa.t().contiguous().t()

    def fgemm_call(self):
        self.fgemm.fp8_gemm_nt((self.a8, self.sfa_mn), (self.b8, self.sfb), self.d)
        return self.d

    def fgemm_rowsfa_call(self):
        self.fgemm.fp8_gemm_nt((self.a8, self.sfa), (self.b8, self.sfb), self.d)
        return self.d

    def deepgemm_call(self):
        try:
            self.dg.fp8_gemm_nt((self.a8, self.sfa_mn), (self.b8, self.sfb), self.d,
                                disable_ue8m0_cast=True)
        except TypeError:  # versions without the keyword
            self.dg.fp8_gemm_nt((self.a8, self.sfa_mn), (self.b8, self.sfb), self.d)
        return self.d

    def cublas_call(self):
        torch = self.torch
        return torch._scaled_mm(self.a8, self.b8.t(), scale_a=self.sfa_cublas,
                                scale_b=self.sfb.t(), out_dtype=torch.bfloat16)


def kernel_time(torch, fn, reps, exclude=EXCLUDED_KERNELS):
    """(median over `reps` calls of the summed CUPTI durations (µs) of the
    kernels one call of fn launches, each call after an L2 flush; the kernels'
    names). The median is None when the calls launched different numbers of
    kernels. Also used by scripts/compare_grouped.py."""
    import warnings
    from torch.profiler import ProfilerActivity, profile
    warnings.filterwarnings("ignore", message="Profiler clears events")
    flush = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            flush.zero_()
            fn()
        torch.cuda.synchronize()
    kernels = [e for e in prof.events()
               if str(getattr(e, "device_type", "")).endswith("CUDA")
               and not any(x in e.name for x in exclude)]
    names = sorted({e.name for e in kernels})
    if not kernels or len(kernels) % reps:
        return None, names
    per_call = len(kernels) // reps
    kernels.sort(key=lambda e: e.time_range.start)
    return statistics.median(
        sum(e.time_range.elapsed_us() for e in kernels[i * per_call:(i + 1) * per_call])
        for i in range(reps)), names


def progress(i, total, text):
    bar = "#" * (20 * i // total) + "." * (20 - 20 * i // total)
    print("\r[%s] %d/%d %s\033[K" % (bar, i, total, text), end="", file=sys.stderr, flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m fgemm.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", default="dense", help="dense (18 shapes), quick, or 'M,N,K;...'")
    parser.add_argument("--reps", type=int, default=20, help="timed calls per shape and library")
    parser.add_argument("--libs", default=",".join(LIBRARIES), help="comma-separated subset of %s" % (LIBRARIES,))
    parser.add_argument("--json", help="write the results as JSON here")
    parser.add_argument("--md", help="write the Markdown table here")
    parser.add_argument("--png", help="write a TFLOPS / GB/s plot here (needs matplotlib)")
    parser.add_argument("--no-check", action="store_true", help="skip the accuracy check")
    args = parser.parse_args(argv)
    try:
        shapes = parse_shapes(args.shapes)
    except ValueError as e:
        parser.error(str(e))
    libs = [lib.strip() for lib in args.libs.split(",") if lib.strip()]
    unknown = [lib for lib in libs if lib not in LIBRARIES]
    if unknown or "fgemm" not in libs:
        parser.error("--libs: %s; allowed: %s, fgemm included" % (unknown or libs, ", ".join(LIBRARIES)))
    if args.reps < 1:
        parser.error("--reps must be >= 1")

    import torch
    import fgemm
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        print("fgemm.bench: needs an sm_90 (Hopper) GPU", file=sys.stderr)
        return 2
    deep_gemm = None
    notes = []
    if "deepgemm" in libs:
        try:
            import deep_gemm
        except ImportError as e:
            notes.append("deepgemm: not importable (%s): left out" % e)
            libs.remove("deepgemm")
    rows = []
    for i, shape in enumerate(shapes):
        progress(i, len(shapes), "%dx%dx%d" % shape)
        case = Case(torch, fgemm, shape, deep_gemm, not args.no_check)
        row = {"m": shape[0], "n": shape[1], "k": shape[2], "libs": {}}
        for lib in libs:
            call = getattr(case, lib + "_call")
            entry = {}
            try:
                out = call()
                torch.cuda.synchronize()
                if case.ref is not None:
                    entry["diff"] = fgemm.calc_diff(out.float(), case.ref)
                    entry["ok"] = entry["diff"] < 1e-3
                entry["us"], entry["kernels"] = kernel_time(torch, call, args.reps)
                entry["tflops"], entry["gbps"] = rates(*shape, entry["us"])
            except Exception as e:  # a library that cannot run this shape
                entry["error"] = "%s: %s" % (type(e).__name__, e)
                notes.append("%s %dx%dx%d: %s" % (lib, *shape, entry["error"]))
            row["libs"][lib] = entry
        rows.append(row)
        del case
        torch.cuda.empty_cache()
    progress(len(shapes), len(shapes), "done")
    print(file=sys.stderr)
    table = markdown(rows, libs)
    print("%s, torch %s\n" % (torch.cuda.get_device_name(), torch.__version__))
    print(table)
    for note in notes:
        print("note: " + note)
    failed = [(r["m"], r["n"], r["k"], lib) for r in rows for lib, e in r["libs"].items()
              if e.get("ok") is False]
    for m, n, k, lib in failed:
        print("FAILED accuracy: %s at %dx%dx%d (calc_diff >= 1e-3)" % (lib, m, n, k))
    if args.md:
        with open(args.md, "w") as f:
            f.write(table + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "reps": args.reps, "rows": rows, "notes": notes}, f, indent=1)
    if args.png:
        plot(rows, libs, args.png)
    return 1 if any(r["libs"]["fgemm"].get("ok") is False or "error" in r["libs"]["fgemm"]
                    for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
