//===- KernelMeta.h - The .meta description of a kernel ---------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// fgemmc writes NAME.meta next to NAME.cubin (docs/ABI.md, abi_version=3):
// one key=value per line, `#` starts a comment. Besides the launch keys
// (block sizes, threads, shared memory, cluster, schedule) it describes the
// kernel's logical arguments (`arg.I`), its CUDA parameter list (`param.I`:
// tensor maps over arguments, argument pointers, dimension values), its
// dimension symbols (`dims`) and its grid rule (`tiles`), so the runtime
// launches any variant without code specific to it (Launch.h).
//
// The parser is strict because a silently ignored or defaulted key means a
// launch with the wrong grid, block, shared memory or parameters: unknown,
// duplicate and missing keys are errors, as is any abi_version but the one
// this runtime reads, and the values are checked against the ABI's rules.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_KERNELMETA_H
#define FGEMM_RUNTIME_KERNELMETA_H

#include "Runtime/Status.h"

#include <cuda.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fgemm {

/// The description format fgemmc writes (`abi_version`). Bumped on any
/// change; the parser reads kOldestKernelAbiVersion up to this one (4 added
/// the `raster_group` parameter kind to version 3) and refuses the others.
constexpr uint32_t kKernelAbiVersion = 4;
constexpr uint32_t kOldestKernelAbiVersion = 3;

/// Element types of kernel arguments.
enum class ElementType { E4M3, E5M2, BF16, F32, I32 };

/// Bytes per element.
uint32_t elementBytes(ElementType type);
/// The description's spelling: "e4m3", "e5m2", "bf16", "f32", "i32".
const char *elementTypeName(ElementType type);

/// One logical kernel argument (`arg.I`), a global array in row-major order.
struct KernelArg {
  enum class Kind {
    Tensor, ///< `tensor ELEM D0[,D1[,D2]]`: last dimension contiguous
    Scales, ///< `scales ELEM D0,D1[,D2] block=B0xB1 [mn_major]` or
            ///< `scales ELEM D0,D1[,D2] per_tensor`
  };
  Kind kind = Kind::Tensor;
  ElementType element = ElementType::E4M3;
  /// Dimension symbols, outermost first (for scales: the dimensions of the
  /// operand they scale, not of the scale array).
  std::vector<std::string> dims;
  /// Scales only: one scale per block[0] x block[1] elements of the last two
  /// dimensions of the operand.
  uint32_t block[2] = {1, 1};
  /// Scales only: one scale for the whole operand (per group of a 3-D one);
  /// `block` is unused.
  bool perTensor = false;
  /// Scales only: stored transposed (the second-to-last dimension
  /// contiguous, padded to 4 entries), as the kernel's TMA reads them.
  bool mnMajor = false;
};

/// One CUDA kernel parameter (`param.I`), in the kernel's parameter order.
struct KernelParam {
  enum class Kind {
    TensorMap, ///< `tensor_map arg=J box=INNERxOUTER swizzle=S`: CUtensorMap
    Pointer,   ///< `pointer arg=J`: the argument's device pointer
    Dim,       ///< `dim NAME`: the symbol's value as uint32
    /// `workspace bytes_per_cta=N`: global scratch memory of N bytes per
    /// CTA, zero before the stream's first launch, private to the stream.
    Workspace,
    /// `raster_group default=G`: the tile order's raster group as uint32
    /// (KernelBindings::rasterGroup, or G when the launch leaves it 0).
    RasterGroup,
  };
  Kind kind = Kind::Pointer;
  uint32_t arg = 0;         ///< TensorMap, Pointer: the argument index
  uint32_t box[2] = {0, 0}; ///< TensorMap: box in elements, inner first
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE; ///< TensorMap
  std::string dim;                                         ///< Dim
  uint32_t bytesPerCta = 0;                                ///< Workspace
  uint32_t defaultRasterGroup = 0;                         ///< RasterGroup
};

/// One factor of the grid rule (`tiles`): ceil(dim / block) tiles.
struct TileFactor {
  std::string dim;
  uint32_t block = 0;
};

/// The description of one compiled kernel.
struct KernelMeta {
  uint32_t abiVersion = kKernelAbiVersion;
  std::string kernel;  ///< entry symbol in the cubin
  std::string variant; ///< free identifier: dense, grouped_masked, ...
  uint32_t blockM = 0;
  uint32_t blockN = 0;
  uint32_t blockK = 0;
  uint32_t stages = 0;
  uint32_t mathWarpgroups = 0;
  uint32_t threads = 0;
  uint32_t smemBytes = 0;
  uint32_t cluster = 0; ///< CTAs per cluster along grid x
  /// CTAs computing one output tile, each a share of its K blocks, as one
  /// cluster along grid x (`k_split`, optional: 1 when absent).
  uint32_t kSplit = 1;
  /// "plain" (grid = the tile counts), "persistent" (at most one CTA per
  /// SM, each looping over tiles p, p + P, ...; the runtime sizes the grid)
  /// or "stream_k" (one CTA per SM; the last partial wave split along K).
  std::string schedule;
  /// 0 = any; otherwise the kernel folded the dimension `n` (`k`) to this
  /// value and the runtime refuses others. The keys name the symbols "n" and
  /// "k", which a kernel with a nonzero value must have.
  uint32_t fixedN = 0;
  uint32_t fixedK = 0;
  /// How many of N and K the kernel takes at launch (0-2): the configuration
  /// choices prefer, among equals, a kernel specialized for the call.
  int genericDims() const { return (fixedN ? 0 : 1) + (fixedK ? 0 : 1); }
  /// Whether the kernel runs a call's N and K (one compiled for a fixed N
  /// or K runs only that).
  bool runsNK(int64_t n, int64_t k) const {
    return (!fixedN || fixedN == n) && (!fixedK || fixedK == k);
  }
  std::vector<std::string> dims; ///< dimension symbols (`dims`)
  std::vector<KernelArg> args;
  std::vector<KernelParam> params;
  std::vector<TileFactor> tiles; ///< grid x, y, z factors

  /// One CTA per SM: "persistent" or "stream_k" (persistent, the tail
  /// wave's tiles split along K between all CTAs).
  bool persistent() const {
    return schedule == "persistent" || schedule == "stream_k";
  }
  bool streamK() const { return schedule == "stream_k"; }
  /// Whether grid x, the index a cluster splits, runs over M (pairs of CTAs
  /// share the B tile) rather than N (docs/ABI.md).
  bool clusterAlongM() const { return !tiles.empty() && tiles[0].dim == "m"; }

  /// Index of `name` in `dims`, or -1.
  int dimIndex(std::string_view name) const;

  /// "bm128_bn128_s5" style summary for messages and tables.
  std::string configName() const;
};

/// The description's spelling of an argument ("scales f32 m,k block=1x128
/// mn_major"), for messages and for comparing against a contract.
std::string formatKernelArg(const KernelArg &arg);

/// Hopper's largest opt-in dynamic shared memory per block (227 KiB).
constexpr uint32_t kMaxSharedMemoryBytes = 227 * 1024;

/// Parses the text of a .meta file; `source` names it in messages
/// ("DIR/NAME.meta:LINE: ...").
Expected<KernelMeta> parseKernelMeta(std::string_view text,
                                     const std::string &source);

/// Reads and parses the .meta file at `path`.
Expected<KernelMeta> readKernelMeta(const std::string &path);

/// Checks the values against the ABI (also run by parseKernelMeta, which
/// adds FILE:LINE to the messages): launch keys, references between args,
/// params and dims, tensor-map rules and boxes, the grid rule.
Status validateKernelMeta(const KernelMeta &meta);

} // namespace fgemm

#endif // FGEMM_RUNTIME_KERNELMETA_H
