# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""DeepGEMM's layout helpers: TMA-aligned, MN-major scale tensors."""


def ceil_div(x, y):
    return (x + y - 1) // y


def get_tma_aligned_size(x, element_size):
    """`x` rounded up so that x * element_size is a multiple of 16 bytes."""
    if element_size <= 0 or 16 % element_size != 0:
        raise ValueError(f"element_size must divide 16, got {element_size}")
    return ceil_div(x, 16 // element_size) * (16 // element_size)


def get_m_alignment_for_contiguous_layout():
    """Rows each group of the M-grouped contiguous layout is padded to."""
    return 128


def is_mn_major_tma_aligned(x):
    """Whether a [M, K'] (or [G, M, K']) FP32 scale tensor already has the
    layout the kernels read: M-major, M padded to a multiple of 4."""
    import torch

    if x.dtype != torch.float32 or x.dim() not in (2, 3):
        return False
    g = x.shape[0] if x.dim() == 3 else 1
    m, k = x.shape[-2], x.shape[-1]
    aligned_m = get_tma_aligned_size(m, 4)
    # Strides of size-1 dimensions count too: the kernels read whole padded
    # columns, so the storage must hold them.
    if x.stride(-2) != 1 or x.stride(-1) != aligned_m:
        return False
    if x.dim() == 3 and x.stride(0) != aligned_m * k:
        return False
    need = (x.storage_offset() + g * k * aligned_m) * x.element_size()
    return x.untyped_storage().nbytes() >= need


def get_mn_major_tma_aligned_tensor(x):
    """A copy of the FP32 scales `x` ([M, K'] or [G, M, K']) in the layout the
    kernels read (M-major, M padded to 4); `x` itself if it already is."""
    import torch

    if x.dtype != torch.float32:
        raise ValueError(f"scales must be torch.float32, got {x.dtype}")
    if x.dim() not in (2, 3):
        raise ValueError(f"scales must be 2-D or 3-D, got shape {tuple(x.shape)}")
    if is_mn_major_tma_aligned(x):
        return x
    # On the GPU, one launch of fgemm's own re-layout kernel (the padding rows
    # zeroed); torch ops where fgemm cannot run (a CPU tensor, no library).
    from . import _api

    out = _api.relaid_on_gpu(x)
    if out is not None:
        return out
    batched = x.dim() == 3
    y = x if batched else x.unsqueeze(0)
    g, m, k = y.shape
    aligned_m = get_tma_aligned_size(m, 4)
    out = torch.empty((g, k, aligned_m), dtype=x.dtype, device=x.device).transpose(1, 2)
    out[:, :m, :] = y
    out = out[:, :m, :]
    return out if batched else out.squeeze(0)


# DeepGEMM's older name for the same layout.
get_col_major_tma_aligned_tensor = get_mn_major_tma_aligned_tensor
