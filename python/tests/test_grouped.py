# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The M-grouped GEMMs on the GPU (issue 10's checks): per group calc_diff
against the unquantized FP32 product < 1e-3, every valid element against
the exact FP64 emulation of the quantized math, every valid element
written (D poisoned with NaN first), padding rows of the contiguous layout
exactly zero whatever A holds there, rows at or past masked_m untouched,
and CUDA-graph replays with new masked_m / m_indices."""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_fgemm import gpu_reason  # noqa: E402

try:
    import torch
except ImportError:  # the CPU-only CI machine
    torch = None

import fgemm  # noqa: E402

NAN_BITS = -1  # 0xffff as int16: a bf16 NaN the kernels never produce (theirs is 0x7fff)


def poisoned(*shape):
    """A bf16 tensor of 0xffff NaNs: an element still 0xffff was not written."""
    return torch.empty(shape, device="cuda", dtype=torch.int16).fill_(NAN_BITS).view(torch.bfloat16)


def quantize_groups(y):
    """[G, N, K] bf16 -> (e4m3 [G, N, K], FP32 [G, ceil(N/128), ceil(K/128)])."""
    parts = [fgemm.per_block_cast_to_fp8(y[g]) for g in range(y.shape[0])]
    return torch.stack([p[0] for p in parts]), torch.stack([p[1] for p in parts])


def dequantize_rows(q, sf):
    """e4m3 [R, K] with per-token scales [R, ceil(K/128)] -> FP64."""
    k = q.shape[1]
    return q.double() * sf.double().repeat_interleave(128, dim=1)[:, :k]


def dequantize_block(q, sf):
    """e4m3 [N, K] with 128x128 block scales -> FP64."""
    n, k = q.shape
    full = sf.double().repeat_interleave(128, dim=0).repeat_interleave(128, dim=1)
    return q.double() * full[:n, :k]


def emulate(aq, sfa, bq, sfb):
    """The exact quantized math in FP64 and sum |a b| per element (the
    contract's tolerance: 2^-7 |emu| + 2^-10 sum|a b| + 1e-6)."""
    a, b = dequantize_rows(aq, sfa), dequantize_block(bq, sfb)
    return a @ b.t(), a.abs() @ b.abs().t()


class GroupedChecks:
    def check_region(self, d, ref, emu, sum_abs, what):
        d = d.float()
        self.assertFalse(torch.isnan(d).any().item(), f"{what}: NaN in D (an element not written)")
        if d.numel():
            limit = 1e-3 if d.numel() >= 4096 else 2e-3
            self.assertLess(fgemm.calc_diff(d, ref), limit, what)
            excess = (d.double() - emu).abs() - (2 ** -7 * emu.abs() + 2 ** -10 * sum_abs + 1e-6)
            self.assertLessEqual(excess.max().item(), 0.0, f"{what}: beyond the emulation tolerance")


def make_b(groups, n, k, gen):
    y = torch.randn((groups, n, k), device="cuda", dtype=torch.bfloat16, generator=gen)
    return y, quantize_groups(y)


def masked_case(groups, max_m, n, k, masked, seed):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn((groups, max_m, k), device="cuda", dtype=torch.bfloat16, generator=gen)
    parts = [fgemm.per_token_cast_to_fp8(x[g]) for g in range(groups)]
    aq = torch.stack([p[0] for p in parts])
    sfa = torch.stack([p[1] for p in parts])
    # Rows past masked_m hold NaN: they must not reach a written row.
    for g in range(groups):
        aq.view(torch.uint8)[g, max(masked[g], 0):] = 0x7F  # e4m3 NaN
    y, (bq, sfb) = make_b(groups, n, k, gen)
    return x, (aq, sfa), y, (bq, sfb)


def contiguous_case(rows, n, k, seed):
    """rows[g]: group g's real rows (each padded to 128). Returns the inputs,
    m_indices and each group's (start, rows)."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    groups = len(rows)
    spans, indices, start = [], [], 0
    for g, r in enumerate(rows):
        padded = (r + 127) // 128 * 128
        spans.append((start, r))
        indices += [g] * r + [-1] * (padded - r)
        start += padded
    m = start
    x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16, generator=gen)
    aq, sfa = fgemm.per_token_cast_to_fp8(x)
    m_indices = torch.tensor(indices, device="cuda", dtype=torch.int32)
    # Padding rows of A hold NaN (e4m3 0x7f) and NaN scales: "whatever A holds".
    pad = m_indices < 0
    aq.view(torch.uint8)[pad] = 0x7F
    sfa[pad] = float("nan")
    y, (bq, sfb) = make_b(groups, n, k, gen)
    return x, (aq, sfa), y, (bq, sfb), m_indices, spans


@unittest.skipIf(torch is None or gpu_reason() is not None, gpu_reason() or "no torch")
class Masked(unittest.TestCase, GroupedChecks):
    def run_masked(self, groups, max_m, n, k, masked, expected=None, seed=0):
        x, (aq, sfa), y, (bq, sfb) = masked_case(groups, max_m, n, k, masked, seed)
        d = poisoned(groups, max_m, n)
        masked_m = torch.tensor(masked, device="cuda", dtype=torch.int32)
        fgemm.m_grouped_fp8_gemm_nt_masked((aq, sfa), (bq, sfb), d, masked_m,
                                           expected or max(1, sum(masked) // groups))
        torch.cuda.synchronize()
        for g in range(groups):
            r = min(max(masked[g], 0), max_m)
            what = f"G={groups} M={max_m} N={n} K={k} group {g} masked_m={masked[g]}"
            ref = x[g, :r].float() @ y[g].float().t()
            emu, sum_abs = emulate(aq[g, :r], sfa[g, :r], bq[g], sfb[g])
            self.check_region(d[g, :r], ref, emu, sum_abs, what)
            untouched = d[g, r:].view(torch.int16) == NAN_BITS
            self.assertTrue(untouched.all().item(), f"{what}: a row at or past masked_m was written")
        return d

    def test_benchmark_shapes(self):
        for groups, m, n, k in ((1, 1024, 4096, 7168), (1, 1024, 7168, 2048), (2, 512, 4096, 7168),
                                (2, 512, 7168, 2048), (4, 256, 4096, 7168), (4, 256, 7168, 2048)):
            with self.subTest(groups=groups, m=m, n=n, k=k):
                rng = random.Random(groups * m + n)
                masked = [min(m, int(m * rng.uniform(0.7, 1.3))) for _ in range(groups)]
                self.run_masked(groups, m, n, k, masked, expected=m, seed=n + k)

    def test_capacities_and_group_counts(self):
        # N = 576 and 2112 are not multiples of any block_n the runtime has.
        for max_m in (8, 16, 32, 64, 256, 1024):
            for groups in (1, 2, 4, 8, 32):
                if max_m * groups > 8192:
                    continue
                with self.subTest(max_m=max_m, groups=groups):
                    rng = random.Random(max_m * 100 + groups)
                    masked = [rng.randint(0, max_m) for _ in range(groups)]
                    masked[0] = 0
                    masked[-1] = max_m
                    n = 576 if groups % 2 else 2112
                    self.run_masked(groups, max_m, n, 384, masked, seed=max_m + groups)

    def test_masked_m_outside_the_contract_stays_in_bounds(self):
        # A negative count computes nothing, one past M computes M rows.
        self.run_masked(3, 64, 256, 256, [-5, 64 + 100, 17])

    def test_graph_replay_with_new_masked_m(self):
        groups, max_m, n, k = 4, 256, 2112, 1024
        x, (aq, sfa), y, (bq, sfb) = masked_case(groups, max_m, n, k, [max_m] * groups, 3)
        masked_m = torch.tensor([256, 0, 100, 7], device="cuda", dtype=torch.int32)
        d = torch.empty((groups, max_m, n), device="cuda", dtype=torch.bfloat16)
        sfa = fgemm.get_mn_major_tma_aligned_tensor(sfa)
        fgemm.m_grouped_fp8_gemm_nt_masked((aq, sfa), (bq, sfb), d, masked_m, 128)  # warm
        graph = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            with torch.cuda.graph(graph, stream=stream):
                fgemm.m_grouped_fp8_gemm_nt_masked((aq, sfa), (bq, sfb), d, masked_m, 128)
        for counts in ([256, 0, 100, 7], [1, 255, 0, 64], [0, 0, 0, 0], [128, 129, 130, 131]):
            d.view(torch.int16).fill_(NAN_BITS)
            masked_m.copy_(torch.tensor(counts, dtype=torch.int32))
            graph.replay()
            torch.cuda.synchronize()
            for g in range(groups):
                r = counts[g]
                expected = poisoned(max_m, n)
                eager_m = torch.tensor([r] * groups, device="cuda", dtype=torch.int32)
                eager = poisoned(groups, max_m, n)
                fgemm.m_grouped_fp8_gemm_nt_masked((aq, sfa), (bq, sfb), eager, eager_m, 128)
                expected[:r] = eager[g, :r]
                self.assertTrue(torch.equal(d[g].view(torch.int16), expected.view(torch.int16)),
                                f"replay with masked_m={counts}: group {g} differs from an eager call")


@unittest.skipIf(torch is None or gpu_reason() is not None, gpu_reason() or "no torch")
class Contiguous(unittest.TestCase, GroupedChecks):
    def run_contiguous(self, rows, n, k, seed=0, validate=True):
        x, (aq, sfa), y, (bq, sfb), m_indices, spans = contiguous_case(rows, n, k, seed)
        m = aq.shape[0]
        d = poisoned(m, n)
        fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, m_indices, validate=validate)
        torch.cuda.synchronize()
        for g, (start, r) in enumerate(spans):
            what = f"rows={rows} N={n} K={k} group {g} ({r} rows at {start})"
            if r:
                ref = x[start:start + r].float() @ y[g].float().t()
                emu, sum_abs = emulate(aq[start:start + r], sfa[start:start + r], bq[g], sfb[g])
                self.check_region(d[start:start + r], ref, emu, sum_abs, what)
        padding = d[m_indices < 0]
        self.assertTrue((padding.float() == 0).all().item(), "padding rows are not exactly zero")
        return d

    def test_benchmark_shapes(self):
        for groups, m, n, k in ((4, 8192, 4096, 7168), (4, 8192, 7168, 2048), (8, 4096, 4096, 7168),
                                (8, 4096, 7168, 2048)):
            with self.subTest(groups=groups, m=m, n=n, k=k):
                rng = random.Random(groups + n)
                rows = [int(m * rng.uniform(0.7, 1.3)) for _ in range(groups)]
                # The FP64 emulation of whole shapes is slow: check 2 groups' worth.
                self.run_contiguous(rows[:2], n, k, seed=n + k)

    def test_group_counts_empty_groups_and_padding_blocks(self):
        for groups in (1, 2, 4, 8, 32):
            with self.subTest(groups=groups):
                rng = random.Random(groups)
                rows = [int(192 * rng.uniform(0.7, 1.3)) for _ in range(groups)]
                rows[0] = 0                       # an empty group
                if groups > 1:
                    rows[1] = 128 * 2 + 1         # a block with one real row
                n = 576 if groups % 2 else 2112  # N not a multiple of block_n
                self.run_contiguous(rows, n, 384, seed=groups)

    def test_whole_padding_blocks(self):
        # Capacity padded beyond the groups' rows (a fixed-size buffer).
        x, (aq, sfa), y, (bq, sfb), m_indices, spans = contiguous_case([200, 70], 256, 512, 5)
        extra = 3 * 128
        aq = torch.cat([aq, torch.full((extra, 512), 0x7F, device="cuda", dtype=torch.uint8)
                        .view(torch.float8_e4m3fn)])
        sfa = torch.cat([sfa, torch.full((extra, 4), float("nan"), device="cuda")])
        m_indices = torch.cat([m_indices, torch.full((extra,), -1, device="cuda", dtype=torch.int32)])
        d = poisoned(aq.shape[0], 256)
        fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, m_indices)
        torch.cuda.synchronize()
        self.assertTrue((d[m_indices < 0].float() == 0).all().item())
        start, r = spans[1]
        self.assertFalse(torch.isnan(d[start:start + r]).any().item())

    def test_indices_outside_the_contract(self):
        x, (aq, sfa), y, (bq, sfb), m_indices, spans = contiguous_case([128, 128], 256, 256, 7)
        d = torch.empty((256, 256), device="cuda", dtype=torch.bfloat16)
        for bad, message in (([0] * 127 + [5], "is not a group"),
                             ([0] * 64 + [1] * 64, "every block holds one group"),
                             ([0] * 10 + [-1] * 10 + [0] * 108, "follows a padding row")):
            wrong = m_indices.clone()
            wrong[:128] = torch.tensor(bad, dtype=torch.int32)
            with self.assertRaisesRegex(ValueError, message):
                fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, wrong, validate=True)
            # Without validation the kernel runs and stays in bounds.
            fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, wrong)
            torch.cuda.synchronize()

    def test_graph_replay_with_new_m_indices(self):
        x, (aq, sfa), y, (bq, sfb), m_indices, spans = contiguous_case([256, 256], 2112, 1024, 9)
        sfa = fgemm.get_mn_major_tma_aligned_tensor(sfa)
        d = torch.empty((512, 2112), device="cuda", dtype=torch.bfloat16)
        fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, m_indices)
        graph = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            with torch.cuda.graph(graph, stream=stream):
                fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, m_indices)
        layouts = ([0] * 256 + [1] * 256, [1] * 256 + [0] * 256, [0] * 200 + [-1] * 56 + [1] * 256)
        for layout in layouts:
            new = torch.tensor(layout, device="cuda", dtype=torch.int32)
            m_indices.copy_(new)
            d.view(torch.int16).fill_(NAN_BITS)
            graph.replay()
            eager = poisoned(*d.shape)
            fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), eager, new)
            torch.cuda.synchronize()
            self.assertTrue(torch.equal(d.view(torch.int16), eager.view(torch.int16)),
                            "a replay with new m_indices differs from an eager call")


def psum_case(rows, n, k, seed):
    """DeepGEMM's psum form: group g's rows start at the previous end
    rounded up to 128 and end at ends[g]; M is the last end (not padded)."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    ends, spans, start = [], [], 0
    for r in rows:
        spans.append((start, r))
        ends.append(start + r)
        start = (start + r + 127) // 128 * 128
    m = max(ends[-1], 1)
    x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16, generator=gen)
    aq, sfa = fgemm.per_token_cast_to_fp8(x)
    owned = torch.zeros(m, dtype=torch.bool, device="cuda")
    for s0, r in spans:
        owned[s0:s0 + r] = True
    aq.view(torch.uint8)[~owned] = 0x7F  # gap rows: NaN, never read into D
    sfa[~owned] = float("nan")
    y, (bq, sfb) = make_b(len(rows), n, k, gen)
    return x, (aq, sfa), y, (bq, sfb), torch.tensor(ends, device="cuda", dtype=torch.int32), spans, owned


@unittest.skipIf(torch is None or gpu_reason() is not None, gpu_reason() or "no torch")
class ContiguousPsum(unittest.TestCase, GroupedChecks):
    def run_psum(self, rows, n, k, seed=0):
        x, (aq, sfa), y, (bq, sfb), ends, spans, owned = psum_case(rows, n, k, seed)
        m = aq.shape[0]
        d = poisoned(m, n)
        fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, ends, use_psum_layout=True,
                                               validate=True)
        torch.cuda.synchronize()
        for g, (start, r) in enumerate(spans):
            if r:
                ref = x[start:start + r].float() @ y[g].float().t()
                emu, sum_abs = emulate(aq[start:start + r], sfa[start:start + r], bq[g], sfb[g])
                self.check_region(d[start:start + r], ref, emu, sum_abs, f"rows={rows} group {g}")
        gaps = d[~owned].view(torch.int16)
        self.assertTrue((gaps == NAN_BITS).all().item(), "a gap row was written")

    def test_benchmark_shapes_and_group_counts(self):
        self.run_psum([int(8192 * f) for f in (0.8, 1.2)], 4096, 7168, seed=1)
        self.run_psum([int(4096 * f) for f in (1.1, 0.9)], 7168, 2048, seed=2)
        for groups in (1, 2, 4, 8, 32):
            with self.subTest(groups=groups):
                rng = random.Random(groups + 50)
                rows = [int(192 * rng.uniform(0.7, 1.3)) for _ in range(groups)]
                rows[0] = 0                  # an empty group first
                if groups > 2:
                    rows[2] = 1              # a one-row group
                self.run_psum(rows, 576 if groups % 2 else 2112, 384, seed=groups)

    def test_ends_outside_the_contract(self):
        x, (aq, sfa), y, (bq, sfb), ends, spans, owned = psum_case([100, 100], 256, 256, 3)
        d = poisoned(aq.shape[0], 256)
        for bad, message in (([100, 50], "is before the group's first row"),
                             ([100, 10 ** 6], "is past M")):
            wrong = torch.tensor(bad, device="cuda", dtype=torch.int32)
            with self.assertRaisesRegex(ValueError, message):
                fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, wrong,
                                                       use_psum_layout=True, validate=True)
            # Without validation the kernel runs and stays in bounds.
            fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, wrong, use_psum_layout=True)
            torch.cuda.synchronize()

    def test_graph_replay_with_new_ends(self):
        x, (aq, sfa), y, (bq, sfb), ends, spans, owned = psum_case([256, 200], 2112, 1024, 4)
        sfa = fgemm.get_mn_major_tma_aligned_tensor(sfa)
        d = torch.empty((aq.shape[0], 2112), device="cuda", dtype=torch.bfloat16)
        fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, ends, use_psum_layout=True)
        graph = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            with torch.cuda.graph(graph, stream=stream):
                fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, ends, use_psum_layout=True)
        for layout in ([256, 456], [100, 456], [0, 300], [456, 456]):
            new = torch.tensor(layout, device="cuda", dtype=torch.int32)
            ends.copy_(new)
            d.view(torch.int16).fill_(NAN_BITS)
            graph.replay()
            eager = poisoned(*d.shape)
            fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), eager, new, use_psum_layout=True)
            torch.cuda.synchronize()
            self.assertTrue(torch.equal(d.view(torch.int16), eager.view(torch.int16)),
                            f"a replay with ends {layout} differs from an eager call")


@unittest.skipIf(torch is None or gpu_reason() is not None, gpu_reason() or "no torch")
class ContiguousUnpadded(unittest.TestCase, GroupedChecks):
    def run_unpadded(self, rows, n, k, seed=0, extra=5):
        """Groups back to back, `extra` rows after the last (NaN in A, must
        stay untouched in D); each group also run padded (the psum form) on
        the same tokens: every row must come out bit for bit the same."""
        gen = torch.Generator(device="cuda").manual_seed(seed)
        ends = torch.tensor(rows, dtype=torch.int64).cumsum(0).to(torch.int32).cuda()
        total = int(sum(rows))
        m = total + extra
        x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16, generator=gen)
        aq, sfa = fgemm.per_token_cast_to_fp8(x)
        aq.view(torch.uint8)[total:] = 0x7F
        sfa[total:] = float("nan")
        y, (bq, sfb) = make_b(len(rows), n, k, gen)
        d = poisoned(m, n)
        fgemm.m_grouped_fp8_gemm_nt_contiguous_unpadded((aq, sfa), (bq, sfb), d, ends, validate=True)
        # The same tokens padded to 128 per group (the psum form).
        starts, pstart = [], 0
        for r in rows:
            starts.append(pstart)
            pstart = (pstart + r + 127) // 128 * 128
        pm = max(pstart, 1)
        pa = torch.zeros((pm, k), device="cuda", dtype=torch.uint8).view(torch.float8_e4m3fn)
        psfa = torch.ones((pm, sfa.shape[1]), device="cuda")
        pends, begin = [], 0
        for g, r in enumerate(rows):
            pa[starts[g]:starts[g] + r] = aq[begin:begin + r]
            psfa[starts[g]:starts[g] + r] = sfa[begin:begin + r]
            pends.append(starts[g] + r)
            begin += r
        pd = poisoned(pm, n)
        fgemm.m_grouped_fp8_gemm_nt_contiguous((pa, psfa), (bq, sfb), pd,
                                               torch.tensor(pends, device="cuda", dtype=torch.int32),
                                               use_psum_layout=True)
        torch.cuda.synchronize()
        begin = 0
        for g, r in enumerate(rows):
            what = f"rows={rows} group {g} ({r} rows at {begin})"
            if r:
                ref = x[begin:begin + r].float() @ y[g].float().t()
                emu, sum_abs = emulate(aq[begin:begin + r], sfa[begin:begin + r], bq[g], sfb[g])
                self.check_region(d[begin:begin + r], ref, emu, sum_abs, what)
                self.assertTrue(torch.equal(d[begin:begin + r].view(torch.int16),
                                            pd[starts[g]:starts[g] + r].view(torch.int16)),
                                f"{what}: differs from the padded layout")
            begin += r
        self.assertTrue((d[total:].view(torch.int16) == NAN_BITS).all().item(),
                        "a row past the last group was written")

    def test_groups_inside_and_across_blocks(self):
        # Small groups several to a block, empty ones, one-row ones, and
        # groups spanning many blocks.
        self.run_unpadded([5, 0, 1, 37, 200, 0, 3, 300, 128, 1], 576, 384, seed=1)
        self.run_unpadded([128, 128, 64, 64, 1, 127], 2112, 256, seed=2)
        for groups in (1, 2, 4, 8, 32):
            with self.subTest(groups=groups):
                rng = random.Random(groups + 70)
                rows = [int(150 * rng.uniform(0.0, 1.3)) for _ in range(groups)]
                self.run_unpadded(rows, 576 if groups % 2 else 2112, 384, seed=groups)

    def test_benchmark_tokens(self):
        rng = random.Random(9)
        self.run_unpadded([int(4096 * rng.uniform(0.7, 1.3)) for _ in range(2)], 4096, 7168, seed=3)

    def test_ends_outside_the_contract(self):
        aq = torch.zeros((256, 256), device="cuda", dtype=torch.uint8).view(torch.float8_e4m3fn)
        sfa = torch.ones((256, 2), device="cuda")
        bq = torch.zeros((2, 256, 256), device="cuda", dtype=torch.uint8).view(torch.float8_e4m3fn)
        sfb = torch.ones((2, 2, 2), device="cuda")
        d = poisoned(256, 256)
        for bad, message in (([100, 50], "is before the group's first row"), ([100, 10 ** 6], "is past M")):
            wrong = torch.tensor(bad, device="cuda", dtype=torch.int32)
            with self.assertRaisesRegex(ValueError, message):
                fgemm.m_grouped_fp8_gemm_nt_contiguous_unpadded((aq, sfa), (bq, sfb), d, wrong, validate=True)
            fgemm.m_grouped_fp8_gemm_nt_contiguous_unpadded((aq, sfa), (bq, sfb), d, wrong)
            torch.cuda.synchronize()


@unittest.skipIf(torch is None or gpu_reason() is not None, gpu_reason() or "no torch")
class GroupedArguments(unittest.TestCase):
    def test_errors_name_the_argument_and_rule(self):
        x, (aq, sfa), y, (bq, sfb), m_indices, spans = contiguous_case([100], 256, 256, 1)
        d = torch.empty((128, 256), device="cuda", dtype=torch.bfloat16)
        with self.assertRaisesRegex(ValueError, "m_indices must be torch.int32"):
            fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d, m_indices.long())
        with self.assertRaisesRegex(ValueError, r"not a multiple of 128"):
            fgemm.m_grouped_fp8_gemm_nt_contiguous((aq[:100], sfa[:100]), (bq, sfb), d[:100], m_indices[:100])
        with self.assertRaisesRegex(ValueError, r"SFB must be \[G, ceil\(N/128\), ceil\(K/128\)\]"):
            fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb[:, :1]), d, m_indices)
        with self.assertRaisesRegex(ValueError, "K differs"):
            fgemm.m_grouped_fp8_gemm_nt_contiguous((aq[:, :128], sfa[:, :1]), (bq, sfb), d, m_indices)
        with self.assertRaisesRegex(ValueError, "must be contiguous"):
            fgemm.m_grouped_fp8_gemm_nt_contiguous((aq, sfa), (bq, sfb), d.t().contiguous().t(), m_indices)
        masked = torch.zeros((1,), device="cuda", dtype=torch.int32)
        a3 = aq.view(1, 128, 256)
        s3 = sfa.view(1, 128, 2)
        with self.assertRaisesRegex(ValueError, r"D must be \[G, M, N\]"):
            fgemm.m_grouped_fp8_gemm_nt_masked((a3, s3), (bq, sfb), d, masked, 64)
        with self.assertRaisesRegex(ValueError, "expected_m = -1 must be > 0"):
            fgemm.m_grouped_fp8_gemm_nt_masked((a3, s3), (bq, sfb), d.view(1, 128, 256), masked, -1)


if __name__ == "__main__":
    unittest.main()
