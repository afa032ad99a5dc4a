// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime's own scale re-layout kernel (ScaleLayout.h), compiled by nvcc
// to an sm_90 cubin at build time and embedded in the runtime library.

// dst[g][c][r] = src[g * strideGroup + r * strideRow + c * strideCol] for
// r < rows, and 0 for rows <= r < alignedRows: the MN-major, TMA-aligned
// layout the kernels read SFA in. One element per thread, consecutive
// threads on consecutive rows, so the stores coalesce; grid (ceil(aligned
// rows / 256), cols, groups).
extern "C" __global__ void __launch_bounds__(256)
    fgemm_scales_to_mn_major(const float *__restrict__ src,
                             float *__restrict__ dst, long long rows,
                             long long alignedRows, long long strideGroup,
                             long long strideRow, long long strideCol) {
  long long row = blockIdx.x * 256LL + threadIdx.x;
  if (row >= alignedRows)
    return;
  long long col = blockIdx.y, group = blockIdx.z;
  float value = 0.0f;
  if (row < rows)
    value =
        __ldg(src + group * strideGroup + row * strideRow + col * strideCol);
  dst[(group * gridDim.y + col) * alignedRows + row] = value;
}
