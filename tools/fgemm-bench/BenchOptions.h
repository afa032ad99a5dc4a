//===- BenchOptions.h - fgemm-bench command line and shapes -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Command-line parsing and the benchmark's shape sets, kept apart from the
// GPU code so the unit tests can check them.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_BENCH_BENCHOPTIONS_H
#define FGEMM_BENCH_BENCHOPTIONS_H

#include "Runtime/Gemm.h"
#include "Runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fgemm::bench {

struct Shape {
  int64_t m = 0, n = 0, k = 0;
  bool operator==(const Shape &other) const {
    return m == other.m && n == other.n && k == other.k;
  }
};

/// One M-grouped shape: G groups of about M rows each (the rows per group
/// are drawn from 0.7-1.3 M), N, K.
struct GroupedShape {
  int64_t groups = 0, m = 0, n = 0, k = 0;
  bool operator==(const GroupedShape &other) const {
    return groups == other.groups && m == other.m && n == other.n &&
           k == other.k;
  }
};

/// --grouped: which M-grouped layout the run is for (None: dense).
enum class GroupedMode {
  None,
  Contiguous,
  ContiguousPsum,
  ContiguousUnpadded,
  Masked
};

struct Options {
  std::string kernels;               ///< --kernels DIR
  std::string shapeSpec = "dense";   ///< --shapes as given
  std::vector<Shape> shapes;         ///< the expanded list
  int iters = 30;                    ///< --iters (timed runs per shape)
  uint64_t seed = 0;                 ///< --seed
  int device = 0;                    ///< --device
  int sms = 0;                       ///< --sms (0 = all SMs)
  uint32_t rasterGroup = 0;          ///< --raster-group (0 = the choice)
  bool listDevices = false;          ///< --list-devices
  std::vector<std::string> describe; ///< --describe FILE.meta (repeatable)
  /// --choose: the runtime's model's choice per dense shape, from the
  /// kernels' descriptions alone (no GPU; --sms 0 plans for 132 SMs).
  bool choose = false;
  /// --explain (with --choose): every candidate the model ranked, best
  /// first, with its estimate and what ranked it.
  bool explain = false;
  bool check = true; ///< --no-check clears
  bool time = true;  ///< --no-time clears; sweep defaults off
  /// --warm-l2: no L2 flush between timed runs (the operands stay in L2;
  /// with ncu --cache-control none this times a kernel fed from L2).
  bool warmL2 = false;
  bool checksum = false; ///< --checksum: print a hash of D per shape
  /// --host-latency: host time of DenseGemm::run per call, cold and warm.
  bool hostLatency = false;
  /// --recipe: which dense kernels (1d2d: bf16 D = A B^T; 1d1d: FP32
  /// D = C + A B^T; bias: bf16 D = A B^T + bias; per-tensor).
  DenseRecipe recipe = DenseRecipe::k1D2D;
  bool cInPlace = false; ///< --c-in-place: C is D (1d1d)
  /// --autotune FILE: time every kernel that accepts each dense shape and
  /// record the fastest that passed in FILE (Runtime/Tuning.h).
  std::string autotune;
  /// --timeline FILE: the stamps of one more launch per shape, as CSV.
  std::string timeline;
  bool help = false; ///< --help
  /// --grouped contiguous|psum|unpadded|masked: the M-grouped kernels, on
  /// groupedShapes (--shapes 'grouped' or G,M,N,K;...).
  GroupedMode grouped = GroupedMode::None;
  std::vector<GroupedShape> groupedShapes;
  /// --capacity: the masked layout's rows per group (0: align(1.3 M, 128)).
  int64_t capacity = 0;
  /// --group-rows: each group's rows, in place of the drawn ones (empty:
  /// drawn); every grouped shape then has as many groups.
  std::vector<int64_t> groupRows;
};

/// The usage text printed by --help and after flag errors.
std::string usage();

/// Parses argv (argv[0] excluded). Errors name the offending argument.
Expected<Options> parseOptions(const std::vector<std::string> &args);

/// How a run times its shapes, for the header line: "timed (median of N)",
/// with ", L2 warm" under --warm-l2, or "not timed".
std::string describeTiming(const Options &options);

/// Expands --shapes: "dense", "sweep", "random:COUNT" (randomShapes of
/// `seed`) or "M,N,K;M,N,K;..." (non-negative).
Expected<std::vector<Shape>> parseShapes(const std::string &spec,
                                         uint64_t seed = 0);

/// Expands --shapes for --grouped: "grouped" (the layout's shapes of
/// DESIGN.md §5), "random:COUNT" (randomGroupedShapes of `seed`) or
/// "G,M,N,K;..." (G >= 1, M >= 1).
Expected<std::vector<GroupedShape>> parseGroupedShapes(const std::string &spec,
                                                       GroupedMode mode,
                                                       uint64_t seed = 0);

/// `count` shapes any caller may pass, for checking: M log-uniform in
/// [1, 8192], N = 8 x log-uniform [1, 2048], K = 16 x log-uniform
/// [1, 1024] (the alignments the API requires); a seed gives the same
/// shapes wherever the C library's exp and log agree.
std::vector<Shape> randomShapes(int64_t count, uint64_t seed);

/// Likewise for the M-grouped layouts: G uniform in [1, 16], M (rows per
/// group, drawn around it per group) log-uniform in [1, 2048], N = 8 x
/// [1, 1024], K = 16 x [1, 512].
std::vector<GroupedShape> randomGroupedShapes(int64_t count, uint64_t seed);

/// DESIGN.md §5: M in {64, 128, 4096} for each (N, K) of DeepSeek-V3,
/// grouped by (N, K) so B is generated once per pair.
std::vector<Shape> denseShapes();

/// Edge cases: M in {1, 7, 63, 65, 127, 129, 1000} x N in {64, 128, 192,
/// 576, 2112} x K in {128, 256, 384, 7168}, grouped by (N, K).
std::vector<Shape> sweepShapes();

} // namespace fgemm::bench

#endif // FGEMM_BENCH_BENCHOPTIONS_H
