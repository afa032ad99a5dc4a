/*===- fgemm.h - the C API of the fgemm runtime -------------------*- C -*-===*\
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                   *|
|*                                                                            *|
|* A small, versioned C interface over the runtime (lib/Runtime), so any     *|
|* language can call fgemm: status codes plus a per-thread message, no       *|
|* exceptions, opaque handles. libfgemm.so opens libcuda.so.1 at run time    *|
|* and has no MLIR in it. Data layouts are DeepGEMM's (docs/API.md).         *|
\*===----------------------------------------------------------------------===*/

#ifndef FGEMM_CAPI_FGEMM_H
#define FGEMM_CAPI_FGEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libfgemm.so exports these functions and nothing else. */
#if defined(FGEMM_CAPI_BUILD)
#define FGEMM_EXPORT __attribute__((visibility("default")))
#else
#define FGEMM_EXPORT
#endif

/* The version of this interface. It changes when a function's meaning or
 * signature does, or functions are added (2: the M-grouped GEMMs; 3: contexts
 * whose dense and M-grouped kernels are made on first use; 7: the scale
 * re-layout, fgemm_scales_to_mn_major; 8: fgemm_dense_config.k_split; 9:
 * fgemm_dense_config.launch_raster and .prefetch_scales; 10:
 * fgemm_context_specialize's background mode, enable = 2; 11:
 * fgemm_dense_config.stream_k); callers check fgemm_api_version() ==
 * FGEMM_API_VERSION. */
#define FGEMM_API_VERSION 11

typedef enum fgemm_status {
  FGEMM_SUCCESS = 0,
  /* An argument breaks a documented rule (shape, alignment, null handle).
   * Nothing was launched. */
  FGEMM_ERROR_INVALID_ARGUMENT = 1,
  /* Kernels missing or unusable, or the CUDA driver failed. */
  FGEMM_ERROR_RUNTIME = 2,
} fgemm_status;

/* Kernels of one kernel directory loaded on one device's primary context
 * (the context CUDA's runtime API and PyTorch use). Not safe to use from two
 * threads at once; one handle per device and thread is cheap enough. */
typedef struct fgemm_context fgemm_context;

/* FGEMM_API_VERSION of the library actually loaded. */
FGEMM_EXPORT int fgemm_api_version(void);

/* The message of the last call on this thread that did not return
 * FGEMM_SUCCESS: what was wrong and what is allowed. Valid until the next
 * fgemm call on this thread; never NULL. */
FGEMM_EXPORT const char *fgemm_last_error(void);

/* Loads every NAME.cubin + NAME.meta pair of `kernel_dir` (written by
 * `fgemmc --emit=cubin`, fgemm-precompile --pack or
 * scripts/compile-kernels.sh) on device `device`: the dense kernels, and the
 * M-grouped ones where the directory has them. The device must be sm_90
 * (Hopper). */
FGEMM_EXPORT fgemm_status fgemm_context_create(int device,
                                               const char *kernel_dir,
                                               fgemm_context **out);
/* One configuration of the dense kernel (the runtime's set; docs/API.md). */
typedef struct fgemm_dense_config {
  int32_t block_m, block_n;
  int32_t persistent;    /* 0: one CTA per tile; 1: one CTA per SM, looping */
  int32_t raster_group;  /* tile rows walked together (0: row-major) */
  int32_t cluster;       /* CTAs per cluster: 1, or 2 sharing a tile */
  int32_t multicast_b;   /* with cluster 2: 0 = pairs share A, 1 = B */
  int32_t fixed_n;       /* N compiled in (0: any; fgemm_context_specialize) */
  int32_t fixed_k;       /* K compiled in (0: any) */
  int32_t k_split;       /* CTAs per tile, each a share of K (1, 2 or 4) */
  int32_t launch_raster; /* 1: raster_group is a launch parameter (its
                            default), chosen per launch */
  int32_t prefetch_scales; /* 1 (persistent): each tile's order and first
                              scales computed during the tile before */
  int32_t stream_k;        /* 1 (persistent): the last round of tiles (of
                              cluster units) split along K over every CTA */
} fgemm_dense_config;

/* Makes the kernel of `config` and writes BASE (of BASE.cubin + BASE.meta)
 * into base[0, capacity); on failure returns an error code and writes the
 * message there instead. Called at most once per configuration and context,
 * the first time a call needs it (libfgemm_jit.so's compiles into the kernel
 * cache). */
typedef fgemm_status (*fgemm_kernel_provider)(const fgemm_dense_config *config,
                                              char *base, size_t capacity,
                                              void *user_data);

/* A context whose kernels are made on first use by `provider` (which, with
 * `user_data`, must outlive the context); the configuration choice picks
 * among the runtime's set. */
FGEMM_EXPORT fgemm_status
fgemm_context_create_on_demand(int device, fgemm_kernel_provider provider,
                               void *user_data, fgemm_context **out);

/* One kernel a context needs: the kernel description's variant ("dense",
 * "dense_1d1d", the variants of fgemm_gemm_fp8_nt_variant,
 * "grouped_contiguous", "grouped_contiguous_psum",
 * "grouped_contiguous_unpadded" or "grouped_masked") and its configuration
 * (that variant's set in the runtime; docs/API.md). */
typedef struct fgemm_kernel_request {
  const char *variant;
  fgemm_dense_config config;
} fgemm_kernel_request;

/* As fgemm_kernel_provider, for a kernel of any variant. */
typedef fgemm_status (*fgemm_variant_provider)(
    const fgemm_kernel_request *request, char *base, size_t capacity,
    void *user_data);

/* A context whose dense and M-grouped kernels are all made on first use by
 * `provider` (which, with `user_data`, must outlive the context): the
 * variants of fgemm_kernel_request, and (since version 6) "dense_bias",
 * "dense_per_tensor", "dense_e5m2_e4m3" and "dense_e4m3_e5m2". */
FGEMM_EXPORT fgemm_status
fgemm_context_create_with_provider(int device, fgemm_variant_provider provider,
                                   void *user_data, fgemm_context **out);

/* From now on, the dense and M-grouped kernels of an on-demand context are
 * made for each call's N and K (fixed_n / fixed_k in the provider's request,
 * once per configuration, N and K), as DeepGEMM's JIT does: 1-4% faster at
 * M <= 128 on the H100 (docs/PERF.md), at a compile per new (N, K). Needs a
 * provider that compiles; fgemm_jit_context_create turns it on. Call it
 * before the context's first GEMM. An error for a kernel-directory
 * context. `enable`: 0 off, 1 on, 2 on in the background: a call whose
 * specialized kernel is not made yet runs the configuration's generic
 * kernel while another thread asks the provider for the specialized one
 * (the provider must then be callable from any thread); later calls run it
 * once made. fgemm_context_destroy waits for those compiles. */
FGEMM_EXPORT fgemm_status fgemm_context_specialize(fgemm_context *context,
                                                   int enable);

/* NULL is allowed. Waits for nothing: finish the streams that use the
 * context's kernels first. */
FGEMM_EXPORT void fgemm_context_destroy(fgemm_context *context);

/* Caps the SMs that configuration choice and persistent grids plan for
 * (DeepGEMM's set_num_sms), dense and grouped; 0 = all of the device's. */
FGEMM_EXPORT fgemm_status fgemm_context_set_num_sms(fgemm_context *context,
                                                    int num_sms);
/* The SMs launches plan for (the cap, or the device's count). */
FGEMM_EXPORT int fgemm_context_num_sms(const fgemm_context *context);
/* How many dense kernels the context holds. */
FGEMM_EXPORT int fgemm_context_num_kernels(const fgemm_context *context);

/* D[m, n] (bf16) = sum over 128-wide K blocks kb of
 *   sfa[m, kb] * sfb[n / 128, kb] * sum_k a[m, k] * b[n, k]
 * with a [m, k] and b [n, k] e4m3, K-major; sfa FP32 [ceil(k/128)] columns of
 * ceil(m/4)*4 rows (M-major, DeepGEMM's TMA-aligned layout); sfb FP32
 * [ceil(n/128), ceil(k/128)] row-major; d [m, n] row-major. Device pointers
 * of the context's device, 16-byte aligned; `stream` is a CUstream
 * (cudaStream_t), NULL for the legacy default stream. Allowed: m >= 0,
 * n % 8 == 0, k % 16 == 0, k > 0; m == 0 or n == 0 launches nothing.
 * Asynchronous: returns once the kernel is queued. */
FGEMM_EXPORT fgemm_status fgemm_gemm_fp8_nt(fgemm_context *context,
                                            const void *a, const void *sfa,
                                            const void *b, const void *sfb,
                                            void *d, int64_t m, int64_t n,
                                            int64_t k, void *stream);

/* The FP32 GEMM with the 1D1D recipe (DeepGEMM's fp8_gemm_nt with an FP32
 * d and c): D[m, n] (f32) = C[m, n] + sum over K blocks kb of
 *   sfa[m, kb] * sfb[n, kb] * sum_k a[m, k] * b[n, k]
 * with sfb FP32 [ceil(k/128)] columns of ceil(n/4)*4 rows (N-major, laid out
 * like sfa). c [m, n] f32 may be d itself (accumulation in place) or NULL
 * (D = A B^T: d is zeroed on the stream first). The other arguments and
 * rules as fgemm_gemm_fp8_nt. The context needs the dense_1d1d kernels
 * (kernels/sm90_fp8_gemm_1d1d.mlir; a JIT context makes them).
 * Asynchronous. */
FGEMM_EXPORT fgemm_status fgemm_gemm_fp8_nt_fp32(fgemm_context *context,
                                                 const void *a, const void *sfa,
                                                 const void *b, const void *sfb,
                                                 const void *c, void *d,
                                                 int64_t m, int64_t n,
                                                 int64_t k, void *stream);

/* One of the other dense variants of a kernel directory (docs/ABI.md):
 *   "dense_bias":       D = A B^T + bias, bias bf16 [n] (4-byte aligned),
 *                       rounded to bf16 once; scales as fgemm_gemm_fp8_nt;
 *   "dense_per_tensor": D = sfa[0] * sfb[0] * A B^T, sfa and sfb one FP32
 *                       each (4-byte aligned);
 *   "dense_e5m2_e4m3" / "dense_e4m3_e5m2": A / B in e5m2, the rest as
 *                       fgemm_gemm_fp8_nt.
 * bias must be NULL for all but dense_bias; d is bf16 [m, n]; the other
 * arguments and rules as fgemm_gemm_fp8_nt. The context needs the variant's
 * kernels: in its directory (fgemm-precompile --set VARIANT), or made by its
 * provider (a JIT context makes them). Asynchronous. */
FGEMM_EXPORT fgemm_status fgemm_gemm_fp8_nt_variant(
    fgemm_context *context, const char *variant, const void *a, const void *sfa,
    const void *b, const void *sfb, const void *bias, void *d, int64_t m,
    int64_t n, int64_t k, void *stream);

/* How many M-grouped kernels (contiguous and masked) the context holds; 0
 * for a context made on demand (grouped kernels come only from a kernel
 * directory for now). */
FGEMM_EXPORT int
fgemm_context_num_grouped_kernels(const fgemm_context *context);

/* The M-grouped contiguous GEMM (mixture of experts, DeepGEMM's
 * m_grouped_fp8_gemm_nt_contiguous): for every row r of group
 * g = m_indices[r] (int32 on the GPU),
 *   D[r, :] = A[r, :] @ B[g]^T with the 1x128 / 128x128 scales,
 * a [m, k] e4m3, sfa as in fgemm_gemm_fp8_nt over m rows, b [num_groups, n, k]
 * e4m3, sfb FP32 [num_groups, ceil(n/128), ceil(k/128)], d [m, n] bf16.
 * Each group's rows start on a multiple of 128 (m % 128 == 0); rows with
 * m_indices -1 are padding and are written as zeros whatever A holds. A
 * m_indices outside the contract never makes the kernel leave its tensors
 * (fgemm_m_grouped_validate_m_indices says what is wrong). Asynchronous. */
FGEMM_EXPORT fgemm_status fgemm_m_grouped_gemm_fp8_nt_contiguous(
    fgemm_context *context, const void *a, const void *sfa, const void *b,
    const void *sfb, void *d, const int32_t *m_indices, int64_t m, int64_t n,
    int64_t k, int64_t num_groups, void *stream);

/* The contiguous GEMM in DeepGEMM's psum form (use_psum_layout=True):
 * group_ends [num_groups] int32 on the GPU holds each group's exclusive end
 * row; group g's rows are [align(group_ends[g-1], 128), group_ends[g]) (group
 * 0 from row 0), the gap rows before each group's start are left untouched,
 * and m (a's rows) need not be a multiple of 128. Other arguments as
 * fgemm_m_grouped_gemm_fp8_nt_contiguous. Asynchronous. */
FGEMM_EXPORT fgemm_status fgemm_m_grouped_gemm_fp8_nt_contiguous_psum(
    fgemm_context *context, const void *a, const void *sfa, const void *b,
    const void *sfb, void *d, const int32_t *group_ends, int64_t m, int64_t n,
    int64_t k, int64_t num_groups, void *stream);

/* The contiguous GEMM without padding (beyond DeepGEMM): group g's rows are
 * [group_ends[g-1], group_ends[g]) (group 0 from row 0), starting at any
 * row; a 128-row block holding several groups' rows is computed once per
 * group and each row is written by its own group only; rows past the last
 * end are left untouched. Other arguments as the psum form. Asynchronous. */
FGEMM_EXPORT fgemm_status fgemm_m_grouped_gemm_fp8_nt_contiguous_unpadded(
    fgemm_context *context, const void *a, const void *sfa, const void *b,
    const void *sfb, void *d, const int32_t *group_ends, int64_t m, int64_t n,
    int64_t k, int64_t num_groups, void *stream);

/* The M-grouped masked GEMM (DeepGEMM's m_grouped_fp8_gemm_nt_masked): for
 * each group g and row r < masked_m[g] (int32 on the GPU, clamped to
 * [0, max_m] there), D[g, r, :] = A[g, r, :] @ B[g]^T; rows at or past
 * masked_m[g] are left untouched. a [num_groups, max_m, k] e4m3, sfa FP32
 * [num_groups, ceil(k/128), ceil(max_m/4)*4] (each group's MN-major
 * TMA-aligned scales), b and sfb as for the contiguous layout, d
 * [num_groups, max_m, n] bf16. expected_m (> 0), the expected rows per
 * group, only picks the configuration. Asynchronous: nothing is read back
 * to the host, so it can be captured in a CUDA graph. */
FGEMM_EXPORT fgemm_status fgemm_m_grouped_gemm_fp8_nt_masked(
    fgemm_context *context, const void *a, const void *sfa, const void *b,
    const void *sfb, void *d, const int32_t *masked_m, int64_t num_groups,
    int64_t max_m, int64_t n, int64_t k, int64_t expected_m, void *stream);

/* Debug check of m_indices (copied to the host: it synchronizes) against
 * the contiguous layout's contract: values in [-1, num_groups), one group
 * per 128-row block, -1 only at a block's end. FGEMM_ERROR_INVALID_ARGUMENT
 * with the first offending row otherwise. */
FGEMM_EXPORT fgemm_status fgemm_m_grouped_validate_m_indices(
    fgemm_context *context, const int32_t *m_indices, int64_t m,
    int64_t num_groups);

/* Debug check of group_ends (copied to the host: it synchronizes): each end
 * at or after its group's start (the previous end rounded up to `alignment`:
 * 128 for the psum form, 1 unpadded), the last at most m. */
FGEMM_EXPORT fgemm_status fgemm_m_grouped_validate_group_ends(
    fgemm_context *context, const int32_t *group_ends, int64_t num_groups,
    int64_t m, int64_t alignment);

/* Re-lays out FP32 scales for the kernels, on the GPU: dst[g][c][r] =
 * src[g * stride_group + r * stride_row + c * stride_col] for r < rows, and
 * 0 for the padding rows up to ceil(rows/4)*4. dst [groups][cols][ceil(rows/
 * 4)*4] is then the MN-major, TMA-aligned layout sfa takes (and the 1D1D
 * recipe's sfb): for a row-major [m, ceil(k/128)] sfa, groups 1, rows m,
 * cols ceil(k/128), strides (0, cols, 1). One launch on `stream` of a kernel
 * of fgemm's own (the library embeds it). src 4-byte and dst 16-byte
 * aligned device pointers of the context's device, not overlapping; strides
 * >= 0; cols and groups at most 65535. An empty copy launches nothing.
 * FGEMM_ERROR_RUNTIME if the library was built without nvcc, so without
 * the kernel. Asynchronous. */
FGEMM_EXPORT fgemm_status fgemm_scales_to_mn_major(
    fgemm_context *context, const float *src, int64_t groups, int64_t rows,
    int64_t cols, int64_t stride_group, int64_t stride_row, int64_t stride_col,
    float *dst, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* FGEMM_CAPI_FGEMM_H */
