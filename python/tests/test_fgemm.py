# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""fgemm's Python API: what runs without a GPU (library loading, layout
arithmetic) and, on an sm_90 GPU with compiled kernels ($FGEMM_KERNEL_DIR),
every dense entry point against an FP32 reference by DeepGEMM's metric, the
current stream, CUDA graph capture and replay, and argument errors.
Runs under pytest or `python3 -m unittest`."""

import ctypes
import os
import shutil
import tempfile
import unittest

import fgemm
from fgemm import _lib

try:
    import torch
except ImportError:  # CI has no torch: the GPU cases skip
    torch = None


def gpu_reason():
    if torch is None:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA device"
    if torch.cuda.get_device_capability() != (9, 0):
        return "not an sm_90 device"
    if not os.path.isdir(_lib.kernel_dir()) and _lib.jit_library() is None:
        return (f"no compiled kernels at {_lib.kernel_dir()} (set FGEMM_KERNEL_DIR) "
                "and no libfgemm_jit.so to compile them")
    return None


class Library(unittest.TestCase):
    def test_loads_and_matches_the_binding(self):
        lib = _lib.library()
        self.assertEqual(lib.fgemm_api_version(), _lib.API_VERSION)

    def test_errors_carry_the_message(self):
        lib = _lib.library()
        handle = ctypes.c_void_p()
        status = lib.fgemm_context_create(0, b"", ctypes.byref(handle))
        with self.assertRaisesRegex(ValueError, "kernel_dir is NULL or empty"):
            _lib.check(status)

    def test_layout_arithmetic(self):
        self.assertEqual(fgemm.get_tma_aligned_size(1, 4), 4)
        self.assertEqual(fgemm.get_tma_aligned_size(65, 4), 68)
        self.assertEqual(fgemm.get_tma_aligned_size(17, 1), 32)
        self.assertEqual(fgemm.get_m_alignment_for_contiguous_layout(), 128)
        with self.assertRaisesRegex(ValueError, "must divide 16"):
            fgemm.get_tma_aligned_size(8, 3)

    def test_grouped_arguments_checked_before_tensors(self):
        with self.assertRaisesRegex(ValueError, "expected_m = 0 must be > 0"):
            fgemm.m_grouped_fp8_gemm_nt_masked(None, None, None, None, 0)
        with self.assertRaisesRegex(NotImplementedError, "use_psum_layout=True for the masked"):
            fgemm.m_grouped_fp8_gemm_nt_masked(None, None, None, None, 1, use_psum_layout=True)
        with self.assertRaisesRegex(ValueError, "expected_m_for_psum_layout must be a positive int"):
            fgemm.m_grouped_fp8_gemm_nt_contiguous(None, None, None, None, use_psum_layout=True,
                                                   expected_m_for_psum_layout=0)
        with self.assertRaisesRegex(NotImplementedError, "ensure_zero_padding"):
            fgemm.m_grouped_fp8_gemm_nt_contiguous(None, None, None, None, use_psum_layout=True,
                                                   ensure_zero_padding=True)


@unittest.skipUnless(os.environ.get("FGEMM_TEST_MOCK_CUDA"),
                     "needs the mock libcuda (ctest python.jit-mock)")
class JitOnMockDriver(unittest.TestCase):
    """Kernels compiled on first use through libfgemm_jit.so, on the mock
    libcuda that loads real cubins and counts launches (no GPU needed)."""

    def test_first_call_compiles_into_the_cache(self):
        cache = tempfile.mkdtemp(prefix="fgemm-jit-mock-")
        os.environ["FGEMM_CACHE_DIR"] = cache  # read when the context is made
        self.assertIsNotNone(_lib.jit_library(), "libfgemm_jit.so not found")
        os.environ["FGEMM_KERNEL_DIR"] = os.path.join(cache, "no-such-dir")
        ctx = _lib.Context(0)  # no kernel directory: the JIT
        lib = _lib.library()
        _lib.check(lib.fgemm_gemm_fp8_nt(ctx.handle, 0x10000, 0x20000, 0x30000, 0x40000,
                                         0x50000, 4096, 7168, 7168, None))
        entries = [e for e in os.listdir(cache) if not e.startswith(".")
                   and os.path.isdir(os.path.join(cache, e))]
        self.assertEqual(len(entries), 1)
        with self.assertRaisesRegex(ValueError, "N = 100 is not a multiple of 8"):
            _lib.check(lib.fgemm_gemm_fp8_nt(ctx.handle, 0x10000, 0x20000, 0x30000,
                                             0x40000, 0x50000, 128, 100, 128, None))
        shutil.rmtree(cache)


def make_inputs(m, n, k, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16, generator=g)
    y = torch.randn((n, k), device="cuda", dtype=torch.bfloat16, generator=g)
    a, sfa = fgemm.per_token_cast_to_fp8(x)
    b, sfb = fgemm.per_block_cast_to_fp8(y)
    ref = x.float() @ y.float().t()
    return (a, sfa), (b, sfb), ref


def poisoned(m, n):
    return torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)


DENSE = [(m, n, k) for m in (64, 128, 4096) for n, k in
         ((2112, 7168), (24576, 1536), (32768, 512), (7168, 16384), (4096, 7168), (7168, 2048))]
EDGES = [(1, 64, 128), (7, 576, 384), (65, 2112, 256), (129, 192, 7168), (1000, 128, 128), (300, 8, 16)]


@unittest.skipIf(gpu_reason() is not None, gpu_reason() or "")
class Gpu(unittest.TestCase):
    def check(self, d, ref, limit=1e-3):
        self.assertFalse(torch.isnan(d).any().item(), "D has NaN: an element was not written")
        diff = fgemm.calc_diff(d, ref)
        self.assertLess(diff, limit)
        return diff

    def test_dense_shapes(self):
        for m, n, k in DENSE + EDGES:
            with self.subTest(m=m, n=n, k=k):
                a, b, ref = make_inputs(m, n, k, seed=m + n + k)
                d = poisoned(m, n)
                fgemm.fp8_gemm_nt(a, b, d)
                # Outputs of a few dozen elements: the metric is dominated by
                # quantization noise (docs/PERF.md), as in fgemm-bench.
                self.check(d, ref, 1e-3 if m * n >= 4096 else 2e-3)

    def test_old_name_and_aligned_scales_agree(self):
        a, b, ref = make_inputs(256, 4096, 7168)
        d1, d2 = poisoned(256, 4096), poisoned(256, 4096)
        fgemm.gemm_fp8_fp8_bf16_nt(a, b, d1)
        aligned = fgemm.get_mn_major_tma_aligned_tensor(a[1])
        self.assertTrue(torch.equal(aligned, a[1]))
        fgemm.fp8_gemm_nt((a[0], aligned), b, d2)
        self.assertTrue(torch.equal(d1, d2))
        self.check(d1, ref)

    def test_scale_relayout_kernel(self):
        # fgemm's own re-layout kernel against the input, on row-major,
        # batched, strided (a column slice), broadcast (stride 0), odd-row
        # and transposed scales; the padding rows come out zero (the block
        # the output reuses is poisoned first). Then the torch fallback.
        torch.manual_seed(5)
        cases = [torch.rand(4097, 56, device="cuda"), torch.rand(3, 65, 16, device="cuda"),
                 torch.rand(64, 40, device="cuda")[:, 3:19], torch.rand(1, 4, device="cuda").expand(130, 4),
                 torch.rand(1, 1, device="cuda"), torch.rand(2, 7, 3, device="cuda").transpose(1, 2)]
        for fallback in (False, True):
            fgemm._api._relayout_unavailable = fallback
            try:
                for x in cases:
                    with self.subTest(fallback=fallback, shape=tuple(x.shape), stride=x.stride()):
                        g, m, k = x.shape if x.dim() == 3 else (1, *x.shape)
                        aligned = fgemm.get_tma_aligned_size(m, 4)
                        torch.full((g * k * aligned,), float("nan"), device="cuda")  # freed: poisons
                        z = fgemm.get_mn_major_tma_aligned_tensor(x)
                        self.assertTrue(fgemm._layout.is_mn_major_tma_aligned(z))
                        self.assertTrue(torch.equal(z, x))
                        if not fallback:
                            full = z.as_strided((g, k, aligned), (k * aligned, aligned, 1))
                            self.assertTrue(torch.equal(full[:, :, m:], torch.zeros_like(full[:, :, m:])))
            finally:
                fgemm._api._relayout_unavailable = False
        # On a side stream, in order with the work queued there.
        s = torch.cuda.Stream()
        x = torch.rand(4096, 56, device="cuda")
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            x.mul_(2)
            z = fgemm.get_mn_major_tma_aligned_tensor(x)
        s.synchronize()
        self.assertTrue(torch.equal(z, x))

    def test_current_stream_and_graph_replay(self):
        m, n, k = 512, 2112, 7168
        a, b, ref = make_inputs(m, n, k)
        sfa = fgemm.get_mn_major_tma_aligned_tensor(a[1])
        d = poisoned(m, n)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fgemm.fp8_gemm_nt((a[0], sfa), b, d)  # warm-up (loads the kernels)
            d.fill_(float("nan"))
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=side):
                fgemm.fp8_gemm_nt((a[0], sfa), b, d)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        self.assertTrue(torch.isnan(d).all().item(), "capture must not run the kernel")
        graph.replay()
        torch.cuda.synchronize()
        self.check(d, ref)
        # New inputs in the captured buffers, replayed.
        a2, b2, ref2 = make_inputs(m, n, k, seed=7)
        a[0].copy_(a2[0]); sfa.copy_(a2[1]); b[0].copy_(b2[0]); b[1].copy_(b2[1])
        d.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        self.check(d, ref2)

    def test_repeated_calls_skip_checks_only_when_identical(self):
        from fgemm import _api

        a, b, ref = make_inputs(192, 2112, 512)
        d = poisoned(192, 2112)
        fgemm.fp8_gemm_nt(a, b, d)
        first = d.clone()
        self.assertIn(_api._signature(a[0], a[1], b[0], b[1], d), _api._validated)
        d.fill_(float("nan"))
        fgemm.fp8_gemm_nt(a, b, d)  # the checked signature: launch only
        self.assertTrue(torch.equal(d, first))
        self.check(d, ref)
        # Another layout of D is checked again, and refused.
        with self.assertRaisesRegex(ValueError, "D must be contiguous"):
            fgemm.fp8_gemm_nt(a, b, d.t().contiguous().t())
        with self.assertRaisesRegex(ValueError, "c is given but D is bf16"):
            fgemm.fp8_gemm_nt(a, b, d, c=d)

    def test_num_sms(self):
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        self.assertEqual(fgemm.get_num_sms(), sms)
        a, b, ref = make_inputs(4096, 24576, 1536)
        try:
            fgemm.set_num_sms(sms // 2)
            self.assertEqual(fgemm.get_num_sms(), sms // 2)
            d = poisoned(4096, 24576)
            fgemm.fp8_gemm_nt(a, b, d)
            self.check(d, ref)
            with self.assertRaisesRegex(ValueError, "num_sms must be in"):
                fgemm.set_num_sms(sms + 1)
        finally:
            fgemm.set_num_sms(sms)

    def test_fp32_recipe_accumulates(self):
        # DeepGEMM's FP32 fp8_gemm_nt: 1x128 scales on A and B, D = C + A B^T;
        # C apart from D, in place, and absent.
        for m, n, k in [(1, 64, 128), (65, 2112, 256), (300, 8, 16), (128, 7168, 2048),
                        (4096, 4096, 7168), (129, 192, 7168)]:
            with self.subTest(m=m, n=n, k=k):
                g = torch.Generator(device="cuda").manual_seed(m + n + k)
                x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16, generator=g)
                y = torch.randn((n, k), device="cuda", dtype=torch.bfloat16, generator=g)
                c = torch.randn((m, n), device="cuda", dtype=torch.float32, generator=g)
                a = fgemm.per_token_cast_to_fp8(x)
                b = fgemm.per_token_cast_to_fp8(y)
                ref = x.float() @ y.float().t()
                limit = 1e-3 if m * n >= 4096 else 2e-3
                d = torch.full((m, n), float("nan"), device="cuda")
                fgemm.fp8_gemm_nt(a, b, d, c=c)
                self.check(d - c, ref, limit)
                inplace = c.clone()
                fgemm.fp8_gemm_nt(a, b, inplace, c=inplace, recipe=(1, 1, 128))
                self.assertTrue(torch.equal(inplace, d))
                alone = torch.full((m, n), float("nan"), device="cuda")
                fgemm.fp8_gemm_nt(a, b, alone)
                self.check(alone, ref, limit)
                # The same tensors again: checked once, then launched only.
                d.fill_(float("nan"))
                fgemm.fp8_gemm_nt(a, b, d, c=c)
                self.check(d - c, ref, limit)
        d = torch.empty((64, 64), device="cuda")
        a = fgemm.per_token_cast_to_fp8(torch.randn((64, 128), device="cuda"))
        with self.assertRaisesRegex(ValueError, "recipe \\(1, 128, 128\\) with an FP32 D"):
            fgemm.fp8_gemm_nt(a, a, d, recipe=(1, 128, 128))
        with self.assertRaisesRegex(ValueError, "C must be torch.float32"):
            fgemm.fp8_gemm_nt(a, a, d, c=d.bfloat16())

    def test_other_dense_variants(self):
        # fgemm's kernels beyond DeepGEMM's: a bf16 bias, per-tensor scales,
        # an e5m2 operand (fp8_gemm_nt picks them by its arguments).
        def quantize(x, dtype, per_tensor=False):
            fmax = torch.finfo(dtype).max
            if per_tensor:
                scale = x.float().abs().amax().clamp(min=1e-4) / fmax
                return (x.float() / scale).to(dtype), scale.reshape(())
            m, k = x.shape
            blocks = x.float().reshape(m, -1, 128) if k % 128 == 0 else None
            assert blocks is not None
            scale = blocks.abs().amax(dim=2).clamp(min=1e-4) / fmax
            q = (blocks / scale.unsqueeze(2)).reshape(m, k).to(dtype)
            return q, scale

        for m, n, k in [(1, 64, 128), (65, 2112, 256), (129, 192, 7168), (128, 7168, 2048),
                        (4096, 4096, 7168)]:
            with self.subTest(m=m, n=n, k=k):
                g = torch.Generator(device="cuda").manual_seed(m + n + k)
                x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16, generator=g)
                y = torch.randn((n, k), device="cuda", dtype=torch.bfloat16, generator=g)
                ref = x.float() @ y.float().t()
                limit = 1e-3 if m * n >= 4096 else 2e-3
                a = fgemm.per_token_cast_to_fp8(x)
                b = fgemm.per_block_cast_to_fp8(y)
                bias = torch.randn((n,), device="cuda", dtype=torch.bfloat16, generator=g)
                d = poisoned(m, n)
                fgemm.fp8_gemm_nt(a, b, d, bias=bias)
                self.check(d, ref + bias.float(), limit)
                plain = poisoned(m, n)
                fgemm.fp8_gemm_nt(a, b, plain)
                self.assertLess(fgemm.calc_diff(d.float() - bias.float(), plain.float()), 1e-4)
                # Per-tensor scales: 0-dimensional SFA and SFB.
                at = quantize(x, torch.float8_e4m3fn, per_tensor=True)
                bt = quantize(y, torch.float8_e4m3fn, per_tensor=True)
                d = poisoned(m, n)
                fgemm.fp8_gemm_nt(at, bt, d)
                self.check(d, ref, limit)
                # e5m2 in A, then in B (1D2D scales; e5m2 keeps 2 mantissa
                # bits, so its quantization alone gives calc_diff ~1.7e-3).
                a5 = quantize(x, torch.float8_e5m2)
                d = poisoned(m, n)
                fgemm.fp8_gemm_nt(a5, b, d)
                self.check(d, ref, 4e-3)
                yb = y.float().reshape(-1, 128, k // 128, 128) if n % 128 == 0 else None
                if yb is not None:
                    scale = yb.abs().amax(dim=(1, 3)).clamp(min=1e-4) / torch.finfo(torch.float8_e5m2).max
                    b5 = (yb / scale[:, None, :, None]).reshape(n, k).to(torch.float8_e5m2)
                    d = poisoned(m, n)
                    fgemm.fp8_gemm_nt(a, (b5, scale.contiguous()), d)
                    self.check(d, ref, 4e-3)
        a = fgemm.per_token_cast_to_fp8(torch.randn((64, 128), device="cuda"))
        b = fgemm.per_block_cast_to_fp8(torch.randn((64, 128), device="cuda"))
        d = poisoned(64, 64)
        with self.assertRaisesRegex(ValueError, r"bias must be \[N\] = \(64,\)"):
            fgemm.fp8_gemm_nt(a, b, d, bias=torch.zeros(32, device="cuda", dtype=torch.bfloat16))
        with self.assertRaisesRegex(ValueError, "bias is given with the FP32 1D1D recipe"):
            fgemm.fp8_gemm_nt(a, b, d.float(), bias=torch.zeros(64, device="cuda", dtype=torch.bfloat16))
        with self.assertRaisesRegex(TypeError, "both float8_e5m2"):
            e5 = (a[0].to(torch.float8_e5m2), a[1])
            fgemm.fp8_gemm_nt(e5, (e5[0], b[1]), d)

    def test_argument_errors(self):
        a, b, _ = make_inputs(128, 256, 512)
        d = poisoned(128, 256)
        cases = [
            (((a[0].float(), a[1]), b, d), "A must be torch.float8_e4m3fn"),
            ((a, b, d[:, :128]), r"D must be \[M, N\]"),
            ((a, (b[0][:, :256], b[1]), d), "K differs"),
            (((a[0].cpu(), a[1]), b, d), "A is on cpu"),
            ((a, b, d.t().contiguous().t()), "D must be contiguous"),
            ((a, (b[0], b[1][:1]), d), r"SFB must be \[ceil\(N/128\), ceil\(K/128\)\]"),
            ((a, b, d.float()), r"SFB must be \[N, ceil\(K/128\)\] = \(256, 4\) with the 1D1D recipe"),
        ]
        for args, pattern in cases:
            with self.subTest(pattern=pattern):
                with self.assertRaisesRegex(ValueError, pattern):
                    fgemm.fp8_gemm_nt(*args)
        with self.assertRaisesRegex(ValueError, "c is given but D is bf16"):
            fgemm.fp8_gemm_nt(a, b, d, c=d.float())
        with self.assertRaisesRegex(ValueError, "not a multiple of 8"):
            x = torch.empty((128, 100), device="cuda", dtype=torch.bfloat16)
            bb = torch.empty((100, 512), device="cuda", dtype=torch.float8_e4m3fn)
            fgemm.fp8_gemm_nt(a, (bb, torch.empty((1, 4), device="cuda")), x)
        with self.assertRaises(TypeError):
            fgemm.fp8_gemm_nt(a[0], b, d)
        self.assertTrue(torch.isnan(d).all().item(), "a refused call must not write D")


if __name__ == "__main__":
    unittest.main()
