# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The quantizers and the accuracy metric of DeepGEMM's tests (NUMERICS.md
sections 3.1 and 3.4, HEAD's formulas)."""

from ._layout import ceil_div

FP8_MAX = 448.0


def per_token_cast_to_fp8(x):
    """[M, K] -> (e4m3 [M, K], FP32 scales [M, ceil(K/128)]): one scale per row
    and 128-wide K block, amax / 448 with amax clamped to >= 1e-4."""
    import torch

    if x.dim() != 2:
        raise ValueError(f"x must be 2-D, got shape {tuple(x.shape)}")
    m, k = x.shape
    padded = torch.zeros((m, ceil_div(k, 128) * 128), dtype=x.dtype, device=x.device)
    padded[:, :k] = x
    view = padded.view(m, ceil_div(k, 128), 128).float()  # explicit: m may be 0
    amax = view.abs().amax(dim=2, keepdim=True).clamp(min=1e-4)
    sf = amax / FP8_MAX
    q = (view * (1.0 / sf)).to(torch.float8_e4m3fn).view(m, padded.size(1))[:, :k].contiguous()
    return q, sf.squeeze(2)


def per_block_cast_to_fp8(x):
    """[N, K] -> (e4m3 [N, K], FP32 scales [ceil(N/128), ceil(K/128)]): one
    scale per 128x128 block."""
    import torch

    if x.dim() != 2:
        raise ValueError(f"x must be 2-D, got shape {tuple(x.shape)}")
    n, k = x.shape
    padded = torch.zeros((ceil_div(n, 128) * 128, ceil_div(k, 128) * 128),
                         dtype=x.dtype, device=x.device)
    padded[:n, :k] = x
    view = padded.view(-1, 128, padded.size(1) // 128, 128).float()
    amax = view.abs().amax(dim=(1, 3), keepdim=True).clamp(min=1e-4)
    sf = amax / FP8_MAX
    q = (view * (1.0 / sf)).to(torch.float8_e4m3fn).view_as(padded)[:n, :k].contiguous()
    return q, sf.view(view.size(0), view.size(2))


def calc_diff(x, y):
    """1 - 2 sum(x y) / sum(x^2 + y^2) in FP64 (0 when both are all zero)."""
    x, y = x.double(), y.double()
    denominator = (x * x + y * y).sum()
    if denominator == 0:
        return 0.0
    return float(1 - 2 * (x * y).sum() / denominator)
