//===- SharedMemoryPlan.cpp - tile sizes and shared-memory layout -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One place computes how big a configured tile is and where the pipeline's
// slots live, so fgemm-specialize (resource check), fgemm-pipeline-tma (the
// plan) and the lowering agree byte for byte.
//
//===----------------------------------------------------------------------===//

#include "Transforms/SharedMemoryPlan.h"

#include "llvm/Support/MathExtras.h"
#include <numeric>

using namespace mlir;
using namespace mlir::fgemm;

bool mlir::fgemm::isTmaLoad(Operation *op) {
  if (isa<LoadOp>(op))
    return true;
  if (auto scales = dyn_cast<LoadScalesOp>(op))
    return scales.getSource().getType().getMnMajor();
  return false;
}

int64_t mlir::fgemm::getTileDimExtent(StringRef symbol, ConfigAttr config) {
  if (symbol == "bm")
    return config.getBlockM();
  if (symbol == "bn")
    return config.getBlockN();
  if (symbol == "bk")
    return config.getBlockK();
  return -1;
}

int64_t mlir::fgemm::getTileBytes(TileType type, ConfigAttr config) {
  int64_t elements = 1;
  for (StringAttr d : type.getDims())
    elements *= getTileDimExtent(d.getValue(), config);
  return elements * type.getElementType().getIntOrFloatBitWidth() / 8;
}

/// Alignment of a TMA destination in shared memory: 1024 bytes for 2-D tiles
/// read by WGMMA with the 128-byte swizzle (the swizzle pattern repeats every
/// 8 rows of 128 bytes and the descriptors carry no base offset); 128 bytes,
/// TMA's minimum, for everything else.
static int64_t getSlotAlignment(TileType type) {
  return type.getDims().size() == 2 ? 1024 : 128;
}

bool mlir::fgemm::decouplesMathWarpgroups(Operation *kernel,
                                          ConfigAttr config) {
  if (config.getCoupleMathWarpgroups() ||
      config.getSchedule() != Schedule::Persistent ||
      config.getMathWarpgroups() < 2 || config.getKSplit() != 1 ||
      config.getOverlapEpilogue())
    return false;
  return !kernel->walk([](ReadTileOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
}

int64_t mlir::fgemm::getScaleBlocksSpanned(int64_t rows) {
  return 128 % rows == 0 ? 1 : llvm::divideCeil(rows, 128) + 1;
}

int64_t mlir::fgemm::getScaleOffsetStep(int64_t rows) {
  return std::gcd<int64_t>(rows, 128);
}

int64_t mlir::fgemm::getStagedScaleWords(Operation *kernel, ConfigAttr config) {
  int64_t words = 0;
  kernel->walk([&](LoadScalesOp op) {
    if (isTmaLoad(op))
      return;
    ArrayRef<StringAttr> dims = op.getResult().getType().getDims();
    words += getScaleBlocksSpanned(
        getTileDimExtent(dims.front().getValue(), config));
  });
  return words;
}

int64_t mlir::fgemm::getEpilogueVectorBytes(ReadTileOp read,
                                            ConfigAttr config) {
  TileType tile = read.getResult().getType();
  if (tile.getDims().size() != 1)
    return 0;
  int64_t elements = getTileDimExtent(tile.getDims()[0].getValue(), config);
  int64_t bytes =
      elements *
      read.getSource().getType().getElementType().getIntOrFloatBitWidth() / 8;
  return llvm::alignTo(std::max<int64_t>(bytes, 0), 16);
}

int64_t mlir::fgemm::getEpilogueVectorBytes(Operation *kernel,
                                            ConfigAttr config) {
  int64_t bytes = 0;
  kernel->walk(
      [&](ReadTileOp read) { bytes += getEpilogueVectorBytes(read, config); });
  return bytes;
}

SharedMemoryPlan
mlir::fgemm::planSharedMemory(ArrayRef<TileType> slotTypes, TileType outputTile,
                              Type outputElement, int64_t scaleWords,
                              int64_t vectorBytes, bool decoupled,
                              ConfigAttr config) {
  SharedMemoryPlan plan;
  int64_t offset = 0;
  for (TileType type : slotTypes) {
    int64_t bytes = getTileBytes(type, config);
    int64_t align = getSlotAlignment(type);
    int64_t stride = llvm::alignTo(bytes, align);
    offset = llvm::alignTo(offset, align);
    plan.slotOffsets.push_back(offset);
    plan.slotStrides.push_back(stride);
    plan.slotBytes.push_back(bytes);
    offset += stride * config.getStages();
  }
  // The epilogue tile: the output element type, [bm, bn].
  offset = llvm::alignTo(offset, 1024);
  plan.outputOffset = offset;
  int64_t outElements = 1;
  for (StringAttr d : outputTile.getDims())
    outElements *= getTileDimExtent(d.getValue(), config);
  offset += outElements * outputElement.getIntOrFloatBitWidth() / 8;
  // mbarriers are 8 bytes: full[stages], then empty[stages], then with a
  // K-split cluster the shares' two (ready on rank 0, done on the others).
  offset = llvm::alignTo(offset, 8);
  plan.barrierOffset = offset;
  offset += 2 * 8 * config.getStages() + (config.getKSplit() > 1 ? 16 : 0);
  // Staged per-block scales: [copy][word][chunk block] f32. Decoupled math
  // warpgroups each stage and read their own copy, so that neither waits
  // for the other to have read the previous chunk; elsewhere all of them
  // share one.
  offset = llvm::alignTo(offset, 16);
  plan.scaleOffset = offset;
  plan.scaleBytes = scaleWords * kScaleChunkBlocks * 4 *
                    (decoupled ? config.getMathWarpgroups() : 1);
  offset += plan.scaleBytes;
  // Staged epilogue vectors.
  offset = llvm::alignTo(offset, 16);
  plan.vectorOffset = offset;
  plan.vectorBytes = vectorBytes;
  offset += vectorBytes;
  plan.totalBytes = offset;
  return plan;
}
