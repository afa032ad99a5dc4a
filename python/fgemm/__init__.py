# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""fgemm: fine-grained-scaled FP8 GEMMs for Hopper with DeepGEMM's Python API.

    import fgemm as deep_gemm   # the same entry points and conventions

Kernels come from $FGEMM_KERNEL_DIR (or the package's kernels/), the library
from $FGEMM_LIBRARY (or the package's _lib/, or a checkout's build/lib/)."""

from ._api import (
    fp8_gemm_nt,
    gemm_fp8_fp8_bf16_nt,
    get_num_sms,
    m_grouped_fp8_gemm_nt_contiguous,
    m_grouped_fp8_gemm_nt_contiguous_unpadded,
    m_grouped_fp8_gemm_nt_masked,
    m_grouped_gemm_fp8_fp8_bf16_nt_contiguous,
    m_grouped_gemm_fp8_fp8_bf16_nt_masked,
    set_num_sms,
)
from ._layout import (
    ceil_div,
    get_col_major_tma_aligned_tensor,
    get_m_alignment_for_contiguous_layout,
    get_mn_major_tma_aligned_tensor,
    get_tma_aligned_size,
)
from ._lib import FgemmError
from ._quant import calc_diff, per_block_cast_to_fp8, per_token_cast_to_fp8

__all__ = [name for name in dir() if not name.startswith("_")]
