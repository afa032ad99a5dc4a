# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One masked grouped call of fgemm and one of DeepGEMM on the same inputs,
inside the profiler range (for ncu --profile-from-start off), after warm-up
calls outside it: scripts/profile-masked-pair.sh runs it.

  profile_masked_pair.py N K ROWS [--groups G] [--capacity C] [--expected-m E]

Every group holds ROWS rows of a C-row capacity (default ROWS rounded up to
128); expected_m defaults to ROWS. Inputs come from a fixed seed.
"""
import argparse

import torch

import deep_gemm
import fgemm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("k", type=int)
    parser.add_argument("rows", type=int)
    parser.add_argument("--groups", type=int, default=1)
    parser.add_argument("--capacity", type=int)
    parser.add_argument("--expected-m", type=int)
    args = parser.parse_args()
    g, n, k, rows = args.groups, args.n, args.k, args.rows
    cap = args.capacity or (rows + 127) // 128 * 128
    torch.manual_seed(0)
    x = torch.randn((g * cap, k), device="cuda", dtype=torch.bfloat16)
    a, sfa = fgemm.per_token_cast_to_fp8(x)
    a = a.view(g, cap, k)
    sfa = fgemm.get_mn_major_tma_aligned_tensor(sfa.view(g, cap, -1))
    bs, sfbs = zip(*(fgemm.per_block_cast_to_fp8(
        torch.randn((n, k), device="cuda", dtype=torch.bfloat16))
        for _ in range(g)))
    b, sfb = torch.stack(bs).contiguous(), torch.stack(sfbs).contiguous()
    masked_m = torch.full((g,), rows, device="cuda", dtype=torch.int32)
    d = torch.empty((g, cap, n), device="cuda", dtype=torch.bfloat16)
    expected = args.expected_m or rows

    def ours():
        fgemm.m_grouped_fp8_gemm_nt_masked((a, sfa), (b, sfb), d, masked_m,
                                           expected)

    def theirs():
        deep_gemm.m_grouped_fp8_gemm_nt_masked((a, sfa), (b, sfb), d,
                                               masked_m, expected,
                                               disable_ue8m0_cast=True)

    for _ in range(3):
        ours()
        theirs()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    ours()
    theirs()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print("done: groups", g, "rows", rows, "capacity", cap, "n", n, "k", k)


if __name__ == "__main__":
    main()
