# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Two GPUs of one host, one thread each, calling fgemm at the same time:
each device gets its own context (modules, descriptors), every result is
checked against the FP32 product of its own inputs: dense fp8_gemm_nt and
the masked M-grouped GEMM (rows at or past masked_m checked untouched).
Skips with fewer than two sm_90 GPUs."""

import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_fgemm import gpu_reason  # noqa: E402
from test_grouped import quantize_groups  # noqa: E402

try:
    import torch
except ImportError:  # CI has no torch: the GPU cases skip
    torch = None

import fgemm  # noqa: E402


def calc_diff(x, y):
    x, y = x.double(), y.double()
    return float(1 - 2 * (x * y).sum() / (x * x + y * y).sum())


def two_gpu_reason():
    reason = gpu_reason()
    if reason:
        return reason
    if torch.cuda.device_count() < 2:
        return "fewer than two CUDA devices"
    if torch.cuda.get_device_capability(1) != (9, 0):
        return "device 1 is not sm_90"
    return None


@unittest.skipIf(torch is None or two_gpu_reason() is not None,
                 two_gpu_reason() or "no torch")
class TwoGpus(unittest.TestCase):
    def run_on(self, device, shapes, results):
        torch.cuda.set_device(device)
        generator = torch.Generator(device=f"cuda:{device}").manual_seed(device)
        stream = torch.cuda.Stream(device=device)
        with torch.cuda.stream(stream):
            for _ in range(3):
                for m, n, k in shapes:
                    x = torch.randn((m, k), device=f"cuda:{device}",
                                    dtype=torch.bfloat16, generator=generator)
                    y = torch.randn((n, k), device=f"cuda:{device}",
                                    dtype=torch.bfloat16, generator=generator)
                    a, sfa = fgemm.per_token_cast_to_fp8(x)
                    b = fgemm.per_block_cast_to_fp8(y)
                    sfa = fgemm.get_mn_major_tma_aligned_tensor(sfa)
                    d = torch.full((m, n), float("nan"), device=f"cuda:{device}",
                                   dtype=torch.bfloat16)
                    fgemm.fp8_gemm_nt((a, sfa), b, d)
                    stream.synchronize()
                    results.append((device, (m, n, k), calc_diff(d, x.float() @ y.float().t()),
                                    int(torch.isnan(d).sum())))
                self.run_masked_on(device, generator, stream, results)

    def run_masked_on(self, device, generator, stream, results):
        """Masked M-grouped GEMM, two groups of 256 rows: 200 and 77 valid."""
        cuda = f"cuda:{device}"
        groups, max_m, n, k, masked = 2, 256, 4096, 2048, [200, 77]
        x = torch.randn((groups, max_m, k), device=cuda, dtype=torch.bfloat16, generator=generator)
        y = torch.randn((groups, n, k), device=cuda, dtype=torch.bfloat16, generator=generator)
        a_parts = [fgemm.per_token_cast_to_fp8(x[g]) for g in range(groups)]
        a = torch.stack([part[0] for part in a_parts])
        sfa = torch.stack([part[1] for part in a_parts])  # row-major: the API re-lays it out
        b = quantize_groups(y)
        d = torch.full((groups, max_m, n), float("nan"), device=cuda, dtype=torch.bfloat16)
        masked_m = torch.tensor(masked, device=cuda, dtype=torch.int32)
        fgemm.m_grouped_fp8_gemm_nt_masked((a, sfa), b, d, masked_m, 128)
        stream.synchronize()
        for g, rows in enumerate(masked):
            valid = d[g, :rows]
            ref = x[g, :rows].float() @ y[g].float().t()
            results.append((device, ("masked", g), calc_diff(valid, ref),
                            int(torch.isnan(valid).sum())
                            + int((~torch.isnan(d[g, rows:])).sum())))

    def test_two_threads_two_devices(self):
        shapes = [(128, 4096, 7168), (4096, 2112, 7168), (300, 1000, 640)]
        results, errors = [], []

        def worker(device):
            try:
                self.run_on(device, shapes, results)
            except Exception as error:  # reported below, with the device
                errors.append((device, repr(error)))

        threads = [threading.Thread(target=worker, args=(device,)) for device in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(results), 2 * 3 * (len(shapes) + 2))
        for device, shape, diff, nans in results:
            with self.subTest(device=device, shape=shape):
                self.assertEqual(nans, 0, "NaN in a written row, or a row past masked_m written")
                self.assertLess(diff, 1e-3)


if __name__ == "__main__":
    unittest.main()
