# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""fp8_gemm_nt through the JIT (scripts/gpu-jit.sh sets it up): per shape the
first call (compile on first use for a new configuration, N or K) and a
repeated one, host wall time, and the result against the FP32 product of the
unquantized inputs (calc_diff < 1e-3, no NaN left in a NaN-poisoned D); then
the N and K the cached kernels were specialized for. With FGEMM_JIT_BACKGROUND=1
(specialized kernels compiled on another thread while the generic ones run)
it then waits for the specialized kernels to reach the cache and checks every
shape again. Exit status 1 on any failed check."""
import os
import sys
import time

import torch

import fgemm


def calc_diff(x, y):
    x, y = x.double(), y.double()
    return float(1 - 2 * (x * y).sum() / (x * x + y * y).sum())


def specialized_in(cache):
    """The .meta files of kernels compiled for one N and K in the cache."""
    found = 0
    for directory, _, files in os.walk(cache):
        for entry in files:
            if entry.endswith(".meta"):
                with open(os.path.join(directory, entry)) as f:
                    found += "fixed_k=0" not in f.read()
    return found


def check_shapes(shapes):
    failed = 0
    for m, n, k in shapes:
        x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16)
        y = torch.randn((n, k), device="cuda", dtype=torch.bfloat16)
        a, sfa = fgemm.per_token_cast_to_fp8(x)
        b = fgemm.per_block_cast_to_fp8(y)
        sfa = fgemm.get_mn_major_tma_aligned_tensor(sfa)
        d = torch.full((m, n), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        times = []
        for _ in range(2):
            torch.cuda.synchronize()
            start = time.perf_counter()
            fgemm.fp8_gemm_nt((a, sfa), b, d)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
        diff = calc_diff(d, x.float() @ y.float().t())
        nans = int(torch.isnan(d).sum())
        ok = diff < 1e-3 and nans == 0
        failed += not ok
        print(f"{m}x{n}x{k}: first call {1e3 * times[0]:.1f} ms, second "
              f"{1e3 * times[1]:.2f} ms, calc_diff {diff:.2e}, NaN {nans}: "
              f"{'PASS' if ok else 'FAIL'}")
    return failed


def main(cache):
    torch.manual_seed(3)
    # The second 64x2112x7168 finds its kernel made; 96 rows pick another
    # configuration for the same N and K.
    shapes = [(64, 2112, 7168), (128, 4096, 7168), (4096, 7168, 2048),
              (300, 1000, 640), (64, 2112, 7168), (96, 2112, 7168)]
    failed = check_shapes(shapes)
    if os.environ.get("FGEMM_JIT_BACKGROUND") == "1":
        # One specialized kernel per (configuration, N, K) of the list.
        expected = 5
        start = time.perf_counter()
        while specialized_in(cache) < expected and time.perf_counter() - start < 60:
            time.sleep(0.05)
        print(f"background: {specialized_in(cache)} specialized kernels in the "
              f"cache after {time.perf_counter() - start:.2f} s more; again:")
        failed += check_shapes(shapes)
    for directory, _, files in sorted(os.walk(cache)):
        for entry in sorted(files):
            if not entry.endswith(".meta"):
                continue
            with open(os.path.join(directory, entry)) as f:
                fields = dict(line.split("=", 1) for line in f.read().split("\n")
                              if "=" in line and not line.startswith("#"))
            print(f"cached: {fields['variant']} {fields['block_m']}x"
                  f"{fields['block_n']} {fields['schedule']}, N "
                  f"{fields['fixed_n']}, K {fields['fixed_k']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
