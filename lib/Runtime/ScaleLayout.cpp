//===- ScaleLayout.cpp - The runtime's scale re-layout kernel -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/ScaleLayout.h"

#include <string>
#include <vector>

#if FGEMM_HAVE_SCALE_LAYOUT_CUBIN
namespace fgemm {
// ScaleLayout.cu's cubin, embedded at build time (cmake/EmbedFile.cmake).
extern const unsigned char kScaleLayoutCubin[];
extern const size_t kScaleLayoutCubinSize;
} // namespace fgemm
#endif

using namespace fgemm;

namespace {
constexpr int64_t kThreads = 256;
constexpr const char *kSymbol = "fgemm_scales_to_mn_major";
} // namespace

Status ScalesToMnMajor::validate() const {
  auto bad = [](const std::string &what) {
    return Status::error("scales to MN-major: " + what);
  };
  if (groups < 0 || rows < 0 || cols < 0)
    return bad("groups, rows and cols must be >= 0, got " +
               std::to_string(groups) + ", " + std::to_string(rows) + ", " +
               std::to_string(cols));
  if (strideGroup < 0 || strideRow < 0 || strideCol < 0)
    return bad("strides must be >= 0, got (" + std::to_string(strideGroup) +
               ", " + std::to_string(strideRow) + ", " +
               std::to_string(strideCol) + ")");
  if (groups == 0 || rows == 0 || cols == 0)
    return Status::success();
  // Bounds first, so that the arithmetic below cannot overflow.
  constexpr int64_t kMaxRows = int64_t(1) << 40;
  if (rows > kMaxRows)
    return bad("at most 2^40 rows, got " + std::to_string(rows));
  if (cols > 65535 || groups > 65535)
    return bad("at most 65535 scale columns and 65535 groups (grid y and "
               "z), got " +
               std::to_string(cols) + " and " + std::to_string(groups));
  // The last element read, in elements, must fit the address space.
  constexpr int64_t kMaxOffset = int64_t(1) << 60;
  if (strideGroup > kMaxOffset / groups || strideRow > kMaxOffset / rows ||
      strideCol > kMaxOffset / cols)
    return bad("the strides reach past 2^60 elements");
  if (!src || !dst)
    return bad(std::string(!src ? "src" : "dst") + " is NULL");
  if (src % 4 != 0)
    return bad("src is not 4-byte aligned (FP32 scales)");
  if (dst % 16 != 0)
    return bad("dst is not 16-byte aligned (the kernels read it by TMA)");
  if ((alignedRows() + kThreads - 1) / kThreads > 0x7fffffff)
    return bad("too many rows for the grid: " + std::to_string(rows));
  return Status::success();
}

Expected<ScaleLayoutKernel> ScaleLayoutKernel::load(const Driver &driver) {
#if FGEMM_HAVE_SCALE_LAYOUT_CUBIN
  std::vector<char> image(kScaleLayoutCubin,
                          kScaleLayoutCubin + kScaleLayoutCubinSize);
  Expected<Module> module =
      Module::loadData(driver, image, "the scale re-layout kernel");
  if (!module.ok())
    return module.takeStatus();
  Expected<CUfunction> function = module->function(kSymbol);
  if (!function.ok())
    return function.takeStatus();
  return ScaleLayoutKernel(driver, std::move(*module), *function);
#else
  (void)driver;
  return Status::error("this fgemm was built without nvcc, so without its "
                       "scale re-layout kernel (rebuild with nvcc found)");
#endif
}

Status ScaleLayoutKernel::run(const ScalesToMnMajor &copy,
                              CUstream stream) const {
  FGEMM_RETURN_IF_ERROR(copy.validate());
  if (copy.groups == 0 || copy.rows == 0 || copy.cols == 0)
    return Status::success();
  long long rows = copy.rows, alignedRows = copy.alignedRows(),
            strideGroup = copy.strideGroup, strideRow = copy.strideRow,
            strideCol = copy.strideCol;
  CUdeviceptr src = copy.src, dst = copy.dst;
  void *params[] = {&src,         &dst,       &rows,     &alignedRows,
                    &strideGroup, &strideRow, &strideCol};
  LaunchDims dims;
  dims.grid[0] = uint32_t((alignedRows + kThreads - 1) / kThreads);
  dims.grid[1] = uint32_t(copy.cols);
  dims.grid[2] = uint32_t(copy.groups);
  dims.block[0] = kThreads;
  return launchKernel(*driver, function, dims, stream, params);
}
