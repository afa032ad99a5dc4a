#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""fgemm against DeepGEMM (and cuBLASLt) on the DeepSeek-V3 dense shapes.

The helper of scripts/compare-deepgemm.sh, which runs the phases in order on
the GPU machine. Subcommands:

  shapes [--quick|--decode] print the shape list as fgemm-bench's --shapes wants it
                          (--decode: M = 1, 4, 8, 16, 32 x the six N, K)
  warm                    JIT-compile DeepGEMM's kernel of every shape (up to
                          --jobs worker processes), check D of DeepGEMM and of
                          cuBLASLt's blockwise FP8 GEMM against an FP32
                          reference, and find cuBLASLt's kernel names (torch
                          profiler); writes WORKDIR/warm.json
  worker                  one warm process (started by warm)
  profile --lib L         the process that ncu profiles: per shape, --reps
                          times a marker kernel (torch.cuda._sleep, spin_kernel)
                          then one GEMM call; L is deepgemm or cublas
  count CSV               how many kernels an ncu CSV holds
  ok-shapes               the shapes whose warm run of a library worked
  regex                   the ncu -k regex for cuBLASLt (from warm.json)
  report                  parse the ncu CSVs, write compare.json (one object
                          per shape), compare-summary.json (geometric means,
                          notes, environment) and compare.md; print the table

Every kernel is timed the same way: ncu --cache-control all --clock-control
none --metrics gpu__time_duration.sum (L2 flushed and invalidated before each
profiled launch); per shape the median (and minimum) of the profiled launches.
"""

import argparse
import csv
import io
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

NK = [(2112, 7168), (24576, 1536), (32768, 512), (7168, 16384), (4096, 7168), (7168, 2048)]
MS = [64, 128, 4096]
# Decoding-sized M (a few tokens per step): DeepGEMM runs 16- and 32-row tiles there.
DECODE_MS = [1, 4, 8, 16, 32]
QUICK = [(64, 2112, 7168), (128, 2112, 7168), (4096, 2112, 7168),
         (64, 7168, 16384), (128, 7168, 16384), (4096, 7168, 16384)]
MARKER = "spin_kernel"          # torch.cuda._sleep's kernel (ATen Sleep.cu)
DG_KERNEL = "sm90_fp8_gemm_1d2d"  # DeepGEMM: sm90_fp8_gemm_1d2d_impl<...>
FG_KERNEL = "sm90_fp8_gemm"       # fgemm: sm90_fp8_gemm_1d2d
CUBLAS_FALLBACK = ["nvjet", "gemm", "xmma", "cutlass", "splitK", "reduce"]


def all_shapes(ms=MS):
    return [(m, n, k) for (n, k) in NK for m in ms]


def fmt_shapes(shapes):
    return ";".join("%d,%d,%d" % s for s in shapes)


def parse_shapes(text):
    shapes = []
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        m, n, k = (int(x) for x in part.split(","))
        shapes.append((m, n, k))
    return shapes


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


# ---------------------------------------------------------------------------
# GPU side (torch, deep_gemm): inputs, calls, checks
# ---------------------------------------------------------------------------

def import_deep_gemm():
    """(module, None) or (None, error text)."""
    try:
        import deep_gemm  # noqa: F401
        return deep_gemm, None
    except Exception as e:  # ImportError, OSError of a .so, assertion in _C.init
        return None, "%s: %s" % (type(e).__name__, e)


def cast_fp8(x, per_token, dg):
    """DeepGEMM's per_token_cast_to_fp8 / per_block_cast_to_fp8 (1x128 and
    128x128 FP32 scales, amax / 448), from deep_gemm.utils when importable."""
    import torch
    if dg is not None:
        try:
            fn = dg.utils.per_token_cast_to_fp8 if per_token else dg.utils.per_block_cast_to_fp8
            return fn(x, use_ue8m0=False)
        except (AttributeError, TypeError):
            pass
    rows, cols = x.shape
    assert cols % 128 == 0
    if per_token:
        v = x.view(rows, cols // 128, 128)
        sf = v.abs().float().amax(dim=2).clamp(1e-4) / 448.0
        q = (v * (1.0 / sf.unsqueeze(2))).to(torch.float8_e4m3fn).view(rows, cols)
        return q.contiguous(), sf
    pr = (rows + 127) // 128 * 128
    xp = torch.zeros((pr, cols), dtype=x.dtype, device=x.device)
    xp[:rows] = x
    v = xp.view(pr // 128, 128, cols // 128, 128)
    sf = v.abs().float().amax(dim=(1, 3), keepdim=True).clamp(1e-4) / 448.0
    q = (v * (1.0 / sf)).to(torch.float8_e4m3fn).view(pr, cols)[:rows]
    return q.contiguous(), sf.view(pr // 128, cols // 128)


def calc_diff(x, y):
    x, y = x.double(), y.double()
    den = (x * x + y * y).sum()
    if float(den) == 0:
        return 0.0
    return float(1 - 2 * (x * y).sum() / den)


# COMPARE_RECIPE=1d1d (compare-deepgemm.sh --recipe 1d1d): the FP32 GEMM
# D = C + A B^T with 1x128 scales on A and B, accumulated in place (C is D,
# so DeepGEMM launches its GEMM kernel alone, without a copy of C into D).
RECIPE = os.environ.get("COMPARE_RECIPE", "1d2d")


class Problem:
    """Inputs of one shape: BF16 A (M x K) and B (N x K), quantized as DeepGEMM's
    tests do; D is BF16 M x N (1d1d: FP32, starting as C)."""

    def __init__(self, shape, dg, seed=0, reference=False):
        import torch
        m, n, k = shape
        f32 = RECIPE == "1d1d"
        torch.manual_seed(seed + m * 7 + n * 13 + k * 17)
        a = torch.randn((m, k), device="cuda", dtype=torch.bfloat16)
        b = torch.randn((n, k), device="cuda", dtype=torch.bfloat16)
        self.c = torch.randn((m, n), device="cuda", dtype=torch.float) if f32 else None
        self.ref = (a.float() @ b.float().t()) if reference else None
        if f32 and reference:
            self.ref += self.c
        self.a8, self.sfa = cast_fp8(a, True, dg)    # sfa: M x K/128
        self.b8, self.sfb = cast_fp8(b, f32, dg)     # sfb: N/128 x K/128 (1d1d: N x K/128)
        del a, b
        self.d = torch.empty((m, n), device="cuda", dtype=torch.float if f32 else torch.bfloat16)
        if f32:
            self.d.copy_(self.c)
        self.dg = dg
        self.dg_kwargs = {"disable_ue8m0_cast": True}
        if f32:
            self.dg_kwargs.update(c=self.d, recipe=(1, 1, 128))
        self.sfa_dg = self.sfa
        self.sfb_dg = self.sfb
        if dg is not None:
            # The TMA-aligned, MN-major SFA layout DeepGEMM's kernel reads; given
            # in that layout, fp8_gemm_nt launches the GEMM kernel alone.
            fn = getattr(dg, "get_mn_major_tma_aligned_tensor", None)
            if fn is None:
                fn = getattr(getattr(dg, "utils", None), "get_mn_major_tma_aligned_tensor", None)
            if fn is not None:
                self.sfa_dg = fn(self.sfa)
                if f32:
                    self.sfb_dg = fn(self.sfb)
        # cuBLASLt (torch._scaled_mm) blockwise layouts: scale_a M x K/128
        # outer-dim-major (stride 1, M); scale_b K/128 x N/128 with stride
        # (1, K/128), i.e. SFB^T; mat2 = B^T (K x N, column-major).
        self.sa_cublas = self.sfa.t().contiguous().t()
        self.sb_cublas = self.sfb.t()
        self.fast_accum = False

    def deepgemm(self):
        try:
            self.dg.fp8_gemm_nt((self.a8, self.sfa_dg), (self.b8, self.sfb_dg), self.d, **self.dg_kwargs)
        except TypeError:
            if RECIPE == "1d1d" or not self.dg_kwargs:
                raise
            self.dg_kwargs = {}
            self.dg.fp8_gemm_nt((self.a8, self.sfa_dg), (self.b8, self.sfb_dg), self.d)
        return self.d

    def reset_output(self):
        """D poisoned (every element must be written again), or back to C."""
        if self.c is not None:
            self.d.copy_(self.c)
        else:
            self.d.fill_(float("nan"))

    def cublas(self):
        import torch
        return torch._scaled_mm(self.a8, self.b8.t(), scale_a=self.sa_cublas, scale_b=self.sb_cublas,
                                out_dtype=torch.bfloat16, use_fast_accum=self.fast_accum)


def marker():
    import torch
    torch.cuda._sleep(100)


def kernel_base(name):
    """The name ncu's default --kernel-name-base (function) shows: no return
    type, namespaces, template arguments or parameters."""
    s = name.strip().replace("(anonymous namespace)", "anon")
    s = re.sub(r"^void\s+", "", s)
    cut = len(s)
    for ch in "<(":
        i = s.find(ch)
        if i >= 0:
            cut = min(cut, i)
    s = s[:cut].split("::")[-1]
    return re.sub(r"[^A-Za-z0-9_]", "", s)


def cuda_kernel_names(fn):
    """Names of the CUDA kernels fn launches, by the torch profiler."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = set()
    cuda_type = getattr(getattr(torch.autograd, "DeviceType", None), "CUDA", None)
    for e in prof.events():
        dt = getattr(e, "device_type", None)
        if cuda_type is not None and dt is not None and dt != cuda_type:
            continue
        if e.name.startswith(("Memcpy", "Memset", "cuda", "Activity")):
            continue
        names.add(e.name)
    return sorted(names)


def cmd_worker(args):
    import torch
    out = {"shapes": {}, "deepgemm_import": None, "torch": torch.__version__,
           "torch_cuda": torch.version.cuda, "device": torch.cuda.get_device_name(),
           "cuda_capability": list(torch.cuda.get_device_capability())}
    dg = None
    if not args.no_deepgemm:
        dg, err = import_deep_gemm()
        out["deepgemm_import"] = err or "ok"
        if dg is not None:
            out["deepgemm_file"] = getattr(dg, "__file__", None)
            out["deepgemm_version"] = getattr(dg, "__version__", None)
    for shape in parse_shapes(args.shapes):
        key = "%d,%d,%d" % shape
        rec = {}
        out["shapes"][key] = rec
        try:
            p = Problem(shape, dg, reference=True)
        except Exception as e:
            rec["error"] = "inputs: %s: %s" % (type(e).__name__, e)
            continue
        if dg is not None:
            print("@@dg-begin %s" % key, flush=True)
            t = time.time()
            try:
                d = p.deepgemm()  # the JIT compiles here
                torch.cuda.synchronize()
                rec["deepgemm_first_call_s"] = round(time.time() - t, 2)
                rec["deepgemm_diff_first"] = calc_diff(d, p.ref)
                p.reset_output()
                d = p.deepgemm()
                torch.cuda.synchronize()
                rec["deepgemm_diff"] = calc_diff(d, p.ref)
                rec["deepgemm_names"] = cuda_kernel_names(p.deepgemm)
            except Exception as e:
                rec["deepgemm_error"] = "%s: %s" % (type(e).__name__, str(e)[:500])
            sys.stdout.flush()
            print("@@dg-end %s" % key, flush=True)
        if not args.no_cublas:
            for fast in (False, True):
                p.fast_accum = fast
                try:
                    d = p.cublas()
                    torch.cuda.synchronize()
                    rec["cublas_diff"] = calc_diff(d, p.ref)
                    rec["cublas_fast_accum"] = fast
                    rec["cublas_names"] = cuda_kernel_names(p.cublas)
                    rec.pop("cublas_error", None)
                    break
                except Exception as e:
                    rec["cublas_error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
        del p
        torch.cuda.empty_cache()
        log("worker %s: %s" % (key, json.dumps(rec)))
        # After each shape: a crash in a later one (the JIT, say) keeps these.
        with open(args.out + ".tmp", "w") as f:
            json.dump(out, f, indent=1)
        os.replace(args.out + ".tmp", args.out)
    if not out["shapes"]:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)


def cmd_warm(args):
    shapes = parse_shapes(args.shapes)
    jobs = max(1, min(args.jobs, len(shapes)))
    # Round-robin: each worker gets some of the large and some of the small.
    parts = [shapes[i::jobs] for i in range(jobs)]
    env = dict(os.environ)
    env["DG_PRINT_CONFIGS"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    procs = []
    for i, part in enumerate(parts):
        cmd = [sys.executable, os.path.abspath(__file__), "worker", "--shapes", fmt_shapes(part),
               "--out", os.path.join(args.workdir, "warm_%d.json" % i)]
        if args.no_deepgemm:
            cmd.append("--no-deepgemm")
        if args.no_cublas:
            cmd.append("--no-cublas")
        logf = open(os.path.join(args.workdir, "warm_%d.log" % i), "w")
        procs.append((subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, env=env), logf, i))
    deadline = time.time() + args.timeout
    for p, logf, i in procs:
        try:
            p.wait(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            log("warm worker %d killed at the time limit" % i)
        logf.close()
        log("warm worker %d exit %s" % (i, p.returncode))
    merged = {"shapes": {}, "workers": []}
    for _, _, i in procs:
        path = os.path.join(args.workdir, "warm_%d.json" % i)
        text = open(os.path.join(args.workdir, "warm_%d.log" % i), errors="replace").read()
        configs = dg_configs_from_log(text)
        if procs[i][0].returncode != 0:
            log("warm worker %d failed; its log ends:\n    %s" % (i, "\n    ".join(text.strip().splitlines()[-6:])))
        try:
            data = json.load(open(path))
        except Exception as e:
            merged["workers"].append({"worker": i, "error": "no result (%s); log tail: %s" % (e, text[-1500:])})
            continue
        meta = {k: v for k, v in data.items() if k != "shapes"}
        meta["worker"] = i
        merged["workers"].append(meta)
        for key, rec in data["shapes"].items():
            if key in configs:
                rec["deepgemm_config_raw"] = configs[key]
                rec["deepgemm_config"] = short_dg_config(configs[key])
            merged["shapes"][key] = rec
    with open(os.path.join(args.workdir, "warm.json"), "w") as f:
        json.dump(merged, f, indent=1)
    ok_dg = sum(1 for r in merged["shapes"].values() if "deepgemm_diff" in r)
    ok_cb = sum(1 for r in merged["shapes"].values() if "cublas_diff" in r)
    imports = sorted({str(w.get("deepgemm_import")) for w in merged["workers"]})
    log("warm: %d shapes, DeepGEMM ran %d, cuBLASLt ran %d; deep_gemm import: %s"
        % (len(shapes), ok_dg, ok_cb, "; ".join(imports)))
    for key in sorted(merged["shapes"], key=lambda s: parse_shapes(s)[0]):
        r = merged["shapes"][key]
        log("  %-16s DG %s diff %s (first call %ss) | cuBLASLt %s diff %s"
            % (key, r.get("deepgemm_config", r.get("deepgemm_error", "-")),
               fmt_num(r.get("deepgemm_diff"), "%.2e"), r.get("deepgemm_first_call_s", "-"),
               ",".join(kernel_base(n) for n in r.get("cublas_names", [])) or r.get("cublas_error", "-")[:120],
               fmt_num(r.get("cublas_diff"), "%.2e")))
    # Exit 0 if any shape of the wanted libraries ran.
    return 0 if (ok_dg or ok_cb) else 1


def dg_configs_from_log(text):
    """The line DG_PRINT_CONFIGS=1 prints for each shape, between the worker's
    @@dg-begin and @@dg-end markers."""
    configs, cur, lines = {}, None, []
    # The line names its shape: "GemmDesc(gemm_type=0, kernel_type=1, m=.., n=.., k=.., ...): GemmConfig(...".
    for line in text.splitlines():
        m = re.search(r"GemmDesc\(.*?\bm=(\d+), n=(\d+), k=(\d+)", line)
        if m and "GemmConfig(" in line:
            configs.setdefault("%s,%s,%s" % m.groups(), line.strip())
    for line in text.splitlines():
        if line.startswith("@@dg-begin "):
            cur, lines = line.split()[1], []
        elif line.startswith("@@dg-end "):
            if cur:
                cfg = [l for l in lines if "GemmConfig(" in l or "Layout(" in l]
                if cfg:
                    configs.setdefault(cur, cfg[0].strip())
            cur = None
        elif cur is not None:
            lines.append(line)
    return configs


def short_dg_config(raw):
    def get(pattern):
        m = re.search(pattern, raw)
        return m.group(1) if m else "?"
    text = "%sx%s, %s stages" % (get(r"block_m=(\d+)"), get(r"block_n=(\d+)"), get(r"num_stages=(\d+)"))
    cm, cn = get(r"cluster_m=(\d+)"), get(r"cluster_n=(\d+)")
    if (cm, cn) != ("1", "1"):
        text += ", cluster %sx%s" % (cm, cn)
    if get(r"swap_ab=(\d+|true|false)") in ("1", "true"):
        text += ", swap_ab"
    sms = get(r"LaunchConfig\(num_sms=(\d+)")
    if sms != "?":
        text += ", %s SMs" % sms
    return text


def cmd_profile(args):
    import torch
    dg = None
    if args.lib == "deepgemm":
        dg, err = import_deep_gemm()
        if dg is None:
            print("deep_gemm import failed: %s" % err, flush=True)
            return 2
    # cuBLASLt: the same quantization, without deep_gemm (cast_fp8's fallback).
    fast = {}
    if args.warm and os.path.exists(args.warm):
        for key, rec in json.load(open(args.warm)).get("shapes", {}).items():
            fast[key] = bool(rec.get("cublas_fast_accum", False))
    for shape in parse_shapes(args.shapes):
        key = "%d,%d,%d" % shape
        status, p, call = "ok", None, None
        try:
            p = Problem(shape, dg)
            p.fast_accum = fast.get(key, False)
            call = p.deepgemm if args.lib == "deepgemm" else p.cublas
            torch.cuda.synchronize()
        except Exception as e:
            status = "inputs: %s: %s" % (type(e).__name__, str(e)[:200])
        # Per shape: (marker, call) x reps, then a closing marker, so that the
        # next shape's setup kernels never fall into a timed segment. After a
        # failed call only the markers run, which keeps the count right.
        for _ in range(args.reps):
            marker()
            if status == "ok":
                try:
                    call()
                except Exception as e:
                    status = "%s: %s" % (type(e).__name__, str(e)[:200])
        marker()
        torch.cuda.synchronize()
        print("@@plan %s %d %s" % (key, args.reps, status), flush=True)
        del p, call
        torch.cuda.empty_cache()
    return 0


# ---------------------------------------------------------------------------
# Host side: ncu output, fgemm-bench output, the report
# ---------------------------------------------------------------------------

UNITS = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
         "second": 1e9, "s": 1e9}


def parse_number(text):
    return float(text.replace(",", "").strip())


def parse_ncu(path):
    """Kernels of an ncu run, in launch order: dicts with id, name, grid, block
    and ns (gpu__time_duration.sum). Reads --csv output (the header row starts
    with "ID"), else ncu's default text layout."""
    if not path or not os.path.exists(path):
        return []
    text = open(path, errors="replace").read()
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    kernels = []
    if start is not None:
        rows = [l for l in lines[start:] if l.startswith('"')]
        for row in csv.DictReader(io.StringIO("\n".join(rows))):
            if row.get("ID") == "ID":
                continue  # a repeated header
            if row.get("Metric Name") != "gpu__time_duration.sum":
                continue
            try:
                ns = parse_number(row["Metric Value"]) * UNITS.get(row.get("Metric Unit", "nsecond").strip(), float("nan"))
                kid = int(parse_number(row["ID"]))
            except (ValueError, KeyError):
                continue
            kernels.append({"id": kid, "name": row.get("Kernel Name", ""), "grid": row.get("Grid Size", ""),
                            "block": row.get("Block Size", ""), "ns": ns})
        kernels.sort(key=lambda k: k["id"])
        return kernels
    # Text layout:  "  name (g, g, g)x(b, b, b), Context 1, Stream 13, ..." then
    # "    gpu__time_duration.sum     unit    value".
    head = re.compile(r"^  (\S.*?) \((\d+, \d+, \d+)\)x\((\d+, \d+, \d+)\), Context")
    metric = re.compile(r"^\s+gpu__time_duration\.sum\s+(\S+)\s+([\d.,]+)\s*$")
    cur = None
    for line in lines:
        m = head.match(line)
        if m:
            cur = {"id": len(kernels), "name": m.group(1), "grid": "(%s)" % m.group(2),
                   "block": "(%s)" % m.group(3)}
            continue
        m = metric.match(line)
        if m and cur is not None:
            cur["ns"] = parse_number(m.group(2)) * UNITS.get(m.group(1), float("nan"))
            kernels.append(cur)
            cur = None
    return kernels


def parse_ncu_any(*paths):
    for p in paths:
        k = parse_ncu(p)
        if k:
            return k
    return []


def stats(ns_list):
    us = [x / 1e3 for x in ns_list if x == x]
    if not us:
        return None
    return {"median_us": statistics.median(us), "min_us": min(us), "n": len(us),
            "samples_us": [round(x, 3) for x in us]}


def split_fgemm(kernels, shapes, per):
    """fgemm-bench launches the kernel per shape 1 (poisoned D) + 3 (warm-up)
    + --iters times, shapes in order: chunks of `per`."""
    out = {}
    ks = [k for k in kernels if FG_KERNEL in k["name"]]
    if not ks:
        return out, "no fgemm kernels in the ncu output"
    note = None
    if len(ks) != per * len(shapes):
        if len(ks) % len(shapes) == 0:
            note = "fgemm: %d launches for %d shapes, expected %d each; split evenly" % (len(ks), len(shapes), per)
            per = len(ks) // len(shapes)
        else:
            return out, "fgemm: %d launches do not split over %d shapes" % (len(ks), len(shapes))
    for i, s in enumerate(shapes):
        chunk = ks[i * per:(i + 1) * per]
        grids = {k["grid"] for k in chunk}
        st = stats([k["ns"] for k in chunk])
        if st:
            st["grid"] = ",".join(sorted(grids))
            out[s] = st
    return out, note


def split_marked(kernels, plan, reps):
    """Per shape, `reps` segments, each a marker kernel then the kernels of one
    GEMM call (summed), then a closing marker. `plan`: [(shape, status)] in
    launch order."""
    out, notes = {}, []
    segments, cur = [], None
    for k in kernels:
        if MARKER in k["name"]:
            cur = []
            segments.append(cur)
        elif cur is not None:
            cur.append(k)
    if not segments:
        return out, ["no marker kernels (%s) in the ncu output" % MARKER]
    # Each shape has reps + 1 segments: reps calls, then the closing marker's
    # (whatever the next shape's setup launched that the filter let through).
    stride = reps + 1
    want = stride * len(plan)
    if len(segments) != want:
        notes.append("%d marker kernels in the ncu output, expected %d" % (len(segments), want))
    for i, (shape, status) in enumerate(plan):
        seg = segments[i * stride:i * stride + reps]
        if len(seg) < reps:
            # The run stopped early (time limit): a few calls still make a median.
            seg = [x for x in seg if x]
            notes.append("%s: only %d of %d calls profiled%s" % (fmt_shapes([shape]), len(seg), reps,
                                                                  "" if len(seg) >= 3 else ": dropped"))
            if len(seg) < 3:
                continue
        if status != "ok":
            notes.append("%s: %s" % (fmt_shapes([shape]), status))
            continue
        if any(not s for s in seg):
            notes.append("%s: a call launched no profiled kernel" % fmt_shapes([shape]))
            continue
        counts = [len(s) for s in seg]
        if len(set(counts)) > 1:
            # A cut-off last call, or a library that varies its kernels: keep
            # the calls with the usual number of kernels.
            usual = max(set(counts), key=counts.count)
            notes.append("%s: kernels per call %s; kept the calls with %d" % (fmt_shapes([shape]), counts, usual))
            seg = [x for x in seg if len(x) == usual]
        per_call = [sum(k["ns"] for k in s) for s in seg]
        st = stats(per_call)
        if st:
            names = sorted({kernel_base(k["name"]) or k["name"] for s in seg for k in s})
            st["kernels"] = names
            st["kernels_per_call"] = sorted({len(s) for s in seg})
            st["grid"] = ",".join(sorted({k["grid"] for s in seg for k in s}))
            out[shape] = st
    return out, notes


def read_plan(path, shapes):
    plan = []
    if path and os.path.exists(path):
        for line in open(path, errors="replace"):
            if line.startswith("@@plan "):
                parts = line.split(None, 3)
                plan.append((parse_shapes(parts[1])[0], parts[3].strip() if len(parts) > 3 else "ok"))
    return plan


def parse_fgemm_rows(*paths):
    """fgemm-bench rows: shape -> (kernel description, time_us or None)."""
    row = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.+?)\s+(-|[\d.]+)\s+(-|[\d.]+)\s+(-|[\d.]+)"
                     r"\s+(-|\S+)\s+(-|\S+)\s+(PASS|FAIL|UNCHECKED)\s*$")
    out = {}
    for path in paths:
        if not path or not os.path.exists(path):
            continue
        for line in open(path, errors="replace"):
            m = row.match(line)
            if not m:
                continue
            shape = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
            t = None if m.group(5) == "-" else float(m.group(5))
            if shape not in out or out[shape][1] is None:
                out[shape] = (m.group(4).strip(), t)
    return out


def short_fgemm_config(desc):
    m = re.match(r"^\S+?\((.*)\)$", desc)
    return m.group(1) if m else desc


def fmt_num(v, f="%.1f"):
    return "-" if v is None else f % v


def geomean(vals):
    vals = [v for v in vals if v and v > 0]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def cmd_count(args):
    ks = parse_ncu_any(*args.csv)
    if args.name:
        ks = [k for k in ks if args.name in k["name"]]
    print(len(ks))
    return 0


def cmd_regex(args):
    names = set()
    if os.path.exists(args.warm):
        for rec in json.load(open(args.warm)).get("shapes", {}).values():
            for n in rec.get("cublas_names", []):
                b = kernel_base(n)
                if b and MARKER not in b:
                    names.add(b)
    if not names:
        names = set(CUBLAS_FALLBACK)
    print(".*(%s).*" % "|".join(sorted(names) + [MARKER]))
    return 0


def cmd_ok_shapes(args):
    """The shapes whose warm run of --lib worked (in the order of --shapes)."""
    field = "deepgemm_diff" if args.lib == "deepgemm" else "cublas_diff"
    warm = json.load(open(args.warm)).get("shapes", {}) if os.path.exists(args.warm) else {}
    ok = []
    for s in parse_shapes(args.shapes):
        v = warm.get("%d,%d,%d" % s, {}).get(field)
        if v is not None and v == v:  # ran, D not NaN (the report shows the diff)
            ok.append(s)
    print(fmt_shapes(ok))
    return 0


def cmd_report(args):
    shapes = parse_shapes(args.shapes)
    w = args.workdir
    notes = [l.rstrip("\n") for l in open(args.notes)] if args.notes and os.path.exists(args.notes) else []

    # fgemm: one ncu process over all shapes, or one per shape (fallback).
    per_shape_files = {s: os.path.join(w, "fgemm_ncu_%d.csv" % i) for i, s in enumerate(shapes)}
    fg = {}
    if any(os.path.exists(p) for p in per_shape_files.values()):
        for i, s in enumerate(shapes):
            ks = parse_ncu_any(per_shape_files[s], os.path.join(w, "fgemm_ncu_%d.stdout" % i))
            got, note = split_fgemm(ks, [s], args.fgemm_launches)
            fg.update(got)
            if note:
                notes.append(note)
    else:
        ks = parse_ncu_any(os.path.join(w, "fgemm_ncu.csv"), os.path.join(w, "fgemm_ncu.stdout"))
        fg, note = split_fgemm(ks, shapes, args.fgemm_launches)
        if note:
            notes.append(note)
    rows_fg = parse_fgemm_rows(os.path.join(w, "fgemm_events.txt"), os.path.join(w, "fgemm_ncu.stdout"),
                               *[os.path.join(w, "fgemm_ncu_%d.stdout" % i) for i in range(len(shapes))])

    results = {}
    for lib in ("deepgemm", "cublas"):
        plan = read_plan(os.path.join(w, "%s_ncu.stdout" % lib), shapes)
        ks = parse_ncu_any(os.path.join(w, "%s_ncu.csv" % lib), os.path.join(w, "%s_ncu.stdout" % lib))
        if not plan:
            results[lib] = {}
            out_path = os.path.join(w, "%s_ncu.stdout" % lib)
            if os.path.exists(out_path):
                tail = open(out_path, errors="replace").read().strip().splitlines()[-3:]
                notes.append("%s: the profiled process finished no shape; its output ends: %s"
                             % (lib, " | ".join(t[:200] for t in tail)))
            continue
        got, lib_notes = split_marked(ks, plan, args.reps)
        results[lib] = got
        notes.extend("%s: %s" % (lib, n) for n in lib_notes)
    warm = {}
    wp = os.path.join(w, "warm.json")
    if os.path.exists(wp):
        warm = json.load(open(wp)).get("shapes", {})

    records = []
    for s in shapes:
        key = "%d,%d,%d" % s
        wr = warm.get(key, {})
        f, d, c = fg.get(s), results["deepgemm"].get(s), results["cublas"].get(s)
        desc, ev = rows_fg.get(s, (None, None))
        rec = {
            "m": s[0], "n": s[1], "k": s[2],
            "deepgemm_us": d and round(d["median_us"], 3),
            "fgemm_us": f and round(f["median_us"], 3),
            "ratio": (d["median_us"] / f["median_us"]) if (d and f) else None,
            "cublas_us": c and round(c["median_us"], 3),
            "ratio_cublas": (c["median_us"] / f["median_us"]) if (c and f) else None,
            "fgemm_config": desc and short_fgemm_config(desc),
            "fgemm_kernel": desc,
            "deepgemm_config": wr.get("deepgemm_config"),
            "deepgemm_min_us": d and round(d["min_us"], 3),
            "fgemm_min_us": f and round(f["min_us"], 3),
            "cublas_min_us": c and round(c["min_us"], 3),
            "deepgemm_samples_us": d and d["samples_us"],
            "fgemm_samples_us": f and f["samples_us"],
            "cublas_samples_us": c and c["samples_us"],
            "fgemm_grid": f and f.get("grid"),
            "deepgemm_grid": d and d.get("grid"),
            "cublas_kernels": c and c.get("kernels"),
            "cublas_kernels_per_call": c and c.get("kernels_per_call"),
            "fgemm_event_us": ev,
            "deepgemm_diff": wr.get("deepgemm_diff"),
            "cublas_diff": wr.get("cublas_diff"),
            "cublas_fast_accum": wr.get("cublas_fast_accum"),
            "deepgemm_config_raw": wr.get("deepgemm_config_raw"),
            "errors": {k: v for k, v in wr.items() if k.endswith("error")} or None,
        }
        if rec["ratio"] is not None:
            rec["ratio"] = round(rec["ratio"], 4)
        if rec["ratio_cublas"] is not None:
            rec["ratio_cublas"] = round(rec["ratio_cublas"], 4)
        records.append(rec)

    def gm(field, pred):
        return geomean([r[field] for r in records if pred(r) and r[field]])

    for r in records:
        if r["deepgemm_us"] is not None and r["fgemm_min_us"] and r["deepgemm_min_us"]:
            r["ratio_min"] = round(r["deepgemm_min_us"] / r["fgemm_min_us"], 4)
        else:
            r["ratio_min"] = None
        for lib in ("deepgemm", "cublas"):
            diff = r[lib + "_diff"]
            if diff is not None and not (diff < 1e-3):  # NaN too
                notes.append("%d,%d,%d: %s D differs from the FP32 reference: diff %s (expected < 1e-3)"
                             % (r["m"], r["n"], r["k"], lib, diff))
        if r["errors"]:
            notes.append("%d,%d,%d: %s" % (r["m"], r["n"], r["k"], json.dumps(r["errors"])[:300]))

    groups = [("all", lambda r: True), ("M<=128", lambda r: r["m"] <= 128), ("M=4096", lambda r: r["m"] == 4096)]
    env_path = os.path.join(w, "env.txt")
    summary = {
        "env": open(env_path, errors="replace").read().strip().splitlines() if os.path.exists(env_path) else None,
        "geomean_ratio": {g: gm("ratio", p) for g, p in groups},
        "geomean_ratio_min": {g: gm("ratio_min", p) for g, p in groups},
        "geomean_ratio_cublas": {g: gm("ratio_cublas", p) for g, p in groups},
        "count": {g: sum(1 for r in records if p(r) and r["ratio"]) for g, p in groups},
        "notes": notes,
        "method": "ncu --cache-control all --clock-control none --metrics gpu__time_duration.sum; "
                  "per shape the median of the profiled launches (fgemm: %d per shape, fgemm-bench "
                  "--no-check --iters %d; DeepGEMM / cuBLASLt: %d calls per shape); ratio = "
                  "DeepGEMM time / fgemm time (>1: fgemm faster)" % (args.fgemm_launches, args.fgemm_launches - 4, args.reps),
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "compare.json"), "w") as f:
        json.dump(records, f, indent=1)  # one object per shape
    with open(os.path.join(args.out, "compare-summary.json"), "w") as f:
        json.dump(summary, f, indent=1)

    have_cublas = any(r["cublas_us"] for r in records)
    head = ["M", "N", "K", "DeepGEMM us", "fgemm us", "ratio"]
    if have_cublas:
        head += ["cuBLASLt us", "cuBLAS/fgemm"]
    head += ["fgemm config", "DeepGEMM config"]
    table = [head]
    for r in records:
        row = [str(r["m"]), str(r["n"]), str(r["k"]), fmt_num(r["deepgemm_us"]), fmt_num(r["fgemm_us"]),
               fmt_num(r["ratio"], "%.3f")]
        if have_cublas:
            row += [fmt_num(r["cublas_us"]), fmt_num(r["ratio_cublas"], "%.3f")]
        row += [r["fgemm_config"] or "-", r["deepgemm_config"] or "-"]
        table.append(row)
    md = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    md += ["| " + " | ".join(row) + " |" for row in table[1:]]
    gtext = []
    for g, _ in groups:
        line = "geomean ratio (DeepGEMM / fgemm), %s: %s over %d shapes (of minima: %s)" % (
            g, fmt_num(summary["geomean_ratio"][g], "%.3f"), summary["count"][g],
            fmt_num(summary["geomean_ratio_min"][g], "%.3f"))
        if have_cublas:
            line += "; cuBLASLt / fgemm: %s" % fmt_num(summary["geomean_ratio_cublas"][g], "%.3f")
        gtext.append(line)
    with open(os.path.join(args.out, "compare.md"), "w") as f:
        f.write("# fgemm vs DeepGEMM, kernel-only (ncu)\n\n")
        f.write(summary["method"] + ".\n\n")
        if summary["env"]:
            f.write("```\n" + "\n".join(summary["env"]) + "\n```\n\n")
        f.write("\n".join(md) + "\n\n")
        f.write("\n".join("- " + g for g in gtext) + "\n")
        if notes:
            f.write("\nNotes:\n" + "\n".join("- " + n for n in notes) + "\n")

    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    print()
    print("== notes")
    for n in notes:
        print("  " + n)
    print("== fgemm vs DeepGEMM (us, ncu gpu__time_duration, median; ratio = DeepGEMM / fgemm, >1: fgemm faster)")
    for row in table:
        print("  ".join(c.rjust(wd) if i < len(head) - 2 else c.ljust(wd) for i, (c, wd) in enumerate(zip(row, widths))))
    for g in gtext:
        print(g)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("shapes")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--quick", action="store_true")
    which.add_argument("--decode", action="store_true")
    p = sub.add_parser("warm")
    p.add_argument("--shapes", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--jobs", type=int, default=6)
    p.add_argument("--timeout", type=float, default=150)
    p.add_argument("--no-deepgemm", action="store_true")
    p.add_argument("--no-cublas", action="store_true")
    p = sub.add_parser("worker")
    p.add_argument("--shapes", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--no-deepgemm", action="store_true")
    p.add_argument("--no-cublas", action="store_true")
    p = sub.add_parser("profile")
    p.add_argument("--lib", choices=["deepgemm", "cublas"], required=True)
    p.add_argument("--shapes", required=True)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--warm", default=None)
    p = sub.add_parser("count")
    p.add_argument("csv", nargs="+")
    p.add_argument("--name", default=None)
    p = sub.add_parser("ok-shapes")
    p.add_argument("--lib", choices=["deepgemm", "cublas"], required=True)
    p.add_argument("--shapes", required=True)
    p.add_argument("--warm", required=True)
    p = sub.add_parser("regex")
    p.add_argument("--warm", required=True)
    p = sub.add_parser("report")
    p.add_argument("--shapes", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--fgemm-launches", type=int, default=7)
    p.add_argument("--notes", default=None)
    args = ap.parse_args(argv)
    if args.cmd == "shapes":
        # COMPARE_SHAPES ("M,N,K;...") replaces the list, e.g. for a K sweep.
        shapes = QUICK if args.quick else all_shapes(DECODE_MS if args.decode else MS)
        print(os.environ.get("COMPARE_SHAPES") or fmt_shapes(shapes))
        return 0
    return {"warm": cmd_warm, "worker": cmd_worker, "profile": cmd_profile, "count": cmd_count,
            "regex": cmd_regex, "ok-shapes": cmd_ok_shapes, "report": cmd_report}[args.cmd](args) or 0


if __name__ == "__main__":
    sys.exit(main())
