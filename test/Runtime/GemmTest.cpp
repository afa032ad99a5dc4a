//===- GemmTest.cpp - Tests of argument checks and kernel choice -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "DenseDescription.h"

#include "Runtime/Gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>

using namespace fgemm;
using fgemm::test::DenseConfig;
using fgemm::test::denseDescription;

namespace {

std::string shapeError(int64_t m, int64_t n, int64_t k) {
  Status status = validateDenseGemmShape(m, n, k);
  return status.ok() ? std::string() : status.message();
}

KernelMeta kernel(uint32_t blockM, uint32_t blockN, uint32_t stages = 4,
                  uint32_t fixedN = 0, uint32_t fixedK = 0) {
  KernelMeta meta;
  meta.kernel = "bm" + std::to_string(blockM) + "_bn" + std::to_string(blockN);
  meta.variant = "dense";
  meta.blockM = blockM;
  meta.blockN = blockN;
  meta.blockK = 128;
  meta.stages = stages;
  meta.mathWarpgroups = blockM >= 128 ? 2 : 1;
  meta.threads = 128 * (1 + meta.mathWarpgroups);
  meta.smemBytes = 200000;
  meta.cluster = 1;
  meta.fixedN = fixedN;
  meta.fixedK = fixedK;
  return meta;
}

/// Six configurations of the shapes the runtime chooses among (the older
/// set its estimate was first fitted to; denseConfigurationSet is today's).
std::vector<KernelMeta> shippedKernels() {
  return {kernel(128, 128), kernel(128, 64), kernel(64, 128),
          kernel(64, 64),   kernel(64, 32),  kernel(64, 16)};
}

std::string choose(const std::vector<KernelMeta> &kernels, int64_t m, int64_t n,
                   int64_t k, int sms = 132) {
  Expected<size_t> index = selectDenseKernel(kernels, m, n, k, sms);
  return index.ok() ? kernels[*index].kernel
                    : "error: " + index.status().message();
}

} // namespace

TEST(GemmArgs, Sizes) {
  EXPECT_EQ(shapeError(128, 2112, 7168), "");
  EXPECT_EQ(shapeError(-1, 2112, 7168),
            "M = -1 is negative (M, N and K must be >= 0)");
  EXPECT_NE(shapeError(128, 2112, -16).find("K = -16 is negative"),
            std::string::npos);
  EXPECT_NE(shapeError(128, 100, 7168).find("N = 100 is not a multiple of 8"),
            std::string::npos);
  EXPECT_NE(shapeError(128, 100, 7168).find("allowed: N % 8 == 0"),
            std::string::npos);
  EXPECT_NE(shapeError(128, 2112, 100).find("K = 100 is not a multiple of 16"),
            std::string::npos);
  EXPECT_NE(shapeError(128, 2112, 100).find("allowed: K % 16 == 0"),
            std::string::npos);
  EXPECT_NE(shapeError(128, 2112, 0).find("K = 0"), std::string::npos);
  EXPECT_NE(shapeError(kMaxGemmDim + 1, 2112, 7168)
                .find("M = 2147483648 is too large"),
            std::string::npos);
  EXPECT_EQ(shapeError(kMaxGemmDim, 2112, 7168), "");
}

TEST(GemmArgs, EmptyOutput) {
  DenseGemmProblem problem;
  problem.m = 0;
  problem.n = 64;
  problem.k = 128;
  EXPECT_EQ(shapeError(problem.m, problem.n, problem.k), "");
  EXPECT_TRUE(isEmptyGemm(problem));
  problem.m = 64;
  problem.n = 0;
  EXPECT_TRUE(isEmptyGemm(problem));
  // Sizes are still checked.
  EXPECT_NE(shapeError(64, 0, 8).find("K = 8"), std::string::npos);
  problem.n = 8;
  EXPECT_FALSE(isEmptyGemm(problem));
}

TEST(GemmArgs, ScaleLayoutHelpers) {
  EXPECT_EQ(alignedSfaRows(1), 4);
  EXPECT_EQ(alignedSfaRows(4), 4);
  EXPECT_EQ(alignedSfaRows(65), 68);
  EXPECT_EQ(scaleBlocks(128), 1);
  EXPECT_EQ(scaleBlocks(144), 2);
  EXPECT_EQ(scaleBlocks(7168), 56);
}

TEST(GemmContract, DenseDescriptionsMatch) {
  DenseConfig config;
  for (uint32_t blockM : {64u, 128u, 256u})
    for (const char *schedule : {"plain", "persistent"}) {
      config.blockM = blockM;
      config.schedule = schedule;
      Expected<KernelMeta> meta =
          parseKernelMeta(denseDescription(config), "k.meta");
      ASSERT_TRUE(meta.ok()) << meta.status().message();
      EXPECT_TRUE(checkDenseKernel(*meta).ok())
          << checkDenseKernel(*meta).message();
    }
}

TEST(GemmContract, RefusesOtherArgumentLists) {
  Expected<KernelMeta> parsed =
      parseKernelMeta(denseDescription(DenseConfig()), "k.meta");
  ASSERT_TRUE(parsed.ok());
  KernelMeta meta = *parsed;
  meta.variant = "grouped_masked";
  EXPECT_EQ(checkDenseKernel(meta).message(),
            "variant='grouped_masked' is not a dense kernel");
  meta = *parsed;
  meta.args[2].mnMajor = false; // SFA's layout changed
  EXPECT_EQ(checkDenseKernel(meta).message(),
            "arg.2 (SFA) is 'scales f32 m,k block=1x128' but a dense "
            "kernel's is 'scales f32 m,k block=1x128 mn_major' (docs/ABI.md)");
  meta = *parsed;
  std::swap(meta.args[0], meta.args[1]);
  EXPECT_NE(checkDenseKernel(meta).message().find("arg.0 (A) is 'tensor e4m3 "
                                                  "n,k'"),
            std::string::npos);
  meta = *parsed;
  meta.args.pop_back();
  EXPECT_EQ(checkDenseKernel(meta).message(),
            "a dense kernel has 5 arguments (A, B, SFA, SFB, D), this one 4");
  meta = *parsed;
  meta.dims = {"k", "n", "m"}; // bound by name: any order
  EXPECT_TRUE(checkDenseKernel(meta).ok());
  meta.dims.push_back("g");
  EXPECT_EQ(checkDenseKernel(meta).message(),
            "a dense kernel's dims are m, n and k; this one's are k,n,m,g");
}

TEST(GemmContract, OperandTypesAreChecked) {
  Expected<KernelMeta> parsed =
      parseKernelMeta(denseDescription(DenseConfig()), "k.meta");
  ASSERT_TRUE(parsed.ok());
  // An e5m2 A: the dense_e5m2_e4m3 recipe's kernel, not the 1D2D one's.
  KernelMeta meta = *parsed;
  meta.variant = "dense_e5m2_e4m3";
  meta.args[0].element = ElementType::E5M2;
  EXPECT_TRUE(checkDenseKernel(meta, DenseRecipe::kE5M2xE4M3).ok())
      << checkDenseKernel(meta, DenseRecipe::kE5M2xE4M3).message();
  meta.args[0].element = ElementType::E4M3;
  EXPECT_EQ(checkDenseKernel(meta, DenseRecipe::kE5M2xE4M3).message(),
            "arg.0 (A) is 'tensor e4m3 m,k' but a dense_e5m2_e4m3 kernel's "
            "is 'tensor e5m2 m,k' (docs/ABI.md)");
  meta = *parsed;
  meta.args[1].element = ElementType::E5M2;
  meta.variant = "dense_e4m3_e5m2";
  EXPECT_TRUE(checkDenseKernel(meta, DenseRecipe::kE4M3xE5M2).ok());
  meta.variant = "dense";
  EXPECT_EQ(checkDenseKernel(meta).message(),
            "arg.1 (B) is 'tensor e5m2 n,k' but a dense kernel's is "
            "'tensor e4m3 n,k' (docs/ABI.md)");
}

TEST(GemmContract, Bindings) {
  DenseGemmProblem problem;
  problem.a = 1;
  problem.sfa = 2;
  problem.b = 3;
  problem.sfb = 4;
  problem.d = 5;
  problem.m = 6;
  problem.n = 7;
  problem.k = 8;
  KernelBindings bindings = denseBindings(problem);
  // The dense variant's argument order: A, B, SFA, SFB, D.
  EXPECT_EQ(bindings.args, (std::vector<CUdeviceptr>{1, 3, 2, 4, 5}));
  EXPECT_EQ(bindings.argNames,
            (std::vector<std::string>{"A", "B", "SFA", "SFB", "D"}));
  EXPECT_EQ(bindings.dims, (std::vector<std::pair<std::string, int64_t>>{
                               {"m", 6}, {"n", 7}, {"k", 8}}));
}

TEST(GemmConfig, BlockMFollowsM) {
  std::vector<KernelMeta> kernels = shippedKernels();
  EXPECT_EQ(choose(kernels, 64, 7168, 2048).substr(0, 4), "bm64");
  EXPECT_EQ(choose(kernels, 1, 7168, 2048).substr(0, 4), "bm64");
  EXPECT_EQ(choose(kernels, 65, 7168, 2048).substr(0, 5), "bm128");
  EXPECT_EQ(choose(kernels, 4096, 7168, 2048).substr(0, 5), "bm128");
}

TEST(GemmConfig, EstimatedTime) {
  std::vector<KernelMeta> kernels = shippedKernels();
  // 4096 x 7168: 128-wide tiles need 14 waves on 132 SMs, 64-wide ones 28.
  EXPECT_EQ(choose(kernels, 4096, 7168, 7168), "bm128_bn128");
  // M = 64, N = 2112: every width fits one wave; 16-wide tiles fill 132 SMs.
  EXPECT_EQ(choose(kernels, 64, 2112, 7168), "bm64_bn16");
  // M = 128, N = 2112: 64x32 tiles keep all 132 SMs busy in one wave (on the
  // H100: 19.0 us, against 24.6 for 128x64 and 36.8 for 128x128).
  EXPECT_EQ(choose(kernels, 128, 2112, 7168), "bm64_bn32");
  // N = 4096 on 64 SMs: one wave of 128x64 tiles beats fewer, wider ones
  // and more waves of narrower ones.
  EXPECT_EQ(choose(kernels, 128, 4096, 7168, 64), "bm128_bn64");
  // Two waves of narrow tiles lose to one of wide ones.
  EXPECT_EQ(choose({kernel(64, 64), kernel(64, 128)}, 64, 128, 128, 1),
            "bm64_bn128");
}

TEST(GemmConfig, TodaysSet) {
  std::vector<KernelMeta> kernels;
  for (const DenseConfiguration &config : denseConfigurationSet())
    if (config.kSplit == 1) // (K-split pairs: the test below)
      kernels.push_back(kernel(config.blockM, config.blockN));
  // At M = 80-128, N = 4096 one wave of 64x64 tiles (12 stages) ran
  // 13.4-14.0 us against 13.8-16.8 for 128x32 (H200, docs/PERF.md, fortieth
  // session; on the H100's older kernels 128x32 had won, 15.3 against 17.6);
  // at N = 2112, 64x32 (12.2 us) beat 128x32 (14.2); at N = 7168, 128x64
  // (9.8 us) beat 128x32 (12.1).
  EXPECT_EQ(choose(kernels, 128, 4096, 7168), "bm64_bn64");
  EXPECT_EQ(choose(kernels, 96, 4096, 7168), "bm64_bn64");
  // Three row tiles of 64 at M = 192, N = 2112: 99 tiles of 64x64 ran 12.9
  // us against 14.6 for 128x32 (H200, fortieth session), and 132 of 64x48
  // 0.956x the time of 64x64 (forty-fifth session).
  EXPECT_EQ(choose(kernels, 192, 2112, 7168), "bm64_bn48");
  EXPECT_EQ(choose(kernels, 128, 2112, 7168), "bm64_bn32");
  EXPECT_EQ(choose(kernels, 128, 7168, 2048), "bm128_bn64");
  // M <= 64 stays on 64-row tiles.
  EXPECT_EQ(choose(kernels, 64, 4096, 7168), "bm64_bn32");
}

TEST(GemmConfig, NarrowTilesFromKNarrowTileMinM) {
  std::vector<KernelMeta> kernels;
  for (const DenseConfiguration &config : denseConfigurationSet())
    kernels.push_back(configurationStub(config.stem(), "dense", config));
  // One wave of a third more CTAs than 64x64's (H200, docs/PERF.md,
  // forty-fifth session): 64 x 6144 x 7168 0.910x, 32 x 6144 x 7168 0.960x,
  // 48 x 5120 x 7168 0.979x the time of 64x64.
  EXPECT_EQ(choose(kernels, 64, 6144, 7168), "bm64_bn48_plain");
  EXPECT_EQ(choose(kernels, kNarrowTileMinM, 6144, 7168), "bm64_bn48_plain");
  EXPECT_EQ(choose(kernels, 48, 5120, 7168), "bm64_bn48_plain");
  // Below kNarrowTileMinM rows, where the launch only streams B: 1 x 5120 x
  // 7168 ran 1.09-1.11x the time of 64x64.
  EXPECT_EQ(choose(kernels, 1, 5120, 7168), "bm64_bn64_plain");
  EXPECT_EQ(choose(kernels, kNarrowTileMinM - 1, 6144, 7168),
            "bm64_bn64_plain");
  // Where 64x64 fills the SMs already (4 x 33 = 132 tiles) 64x48 would take
  // a second wave.
  EXPECT_EQ(choose(kernels, 256, 2112, 7168), "bm64_bn64_plain");
  // Only 64x48 loaded: it is still chosen at one row.
  std::vector<KernelMeta> onlyNarrow;
  for (const KernelMeta &meta : kernels)
    if (meta.blockM == 64 && meta.blockN == 48)
      onlyNarrow.push_back(meta);
  ASSERT_EQ(onlyNarrow.size(), 1u);
  EXPECT_EQ(choose(onlyNarrow, 1, 5120, 7168), "bm64_bn48_plain");
}

TEST(GemmConfig, ScaleRowHotSpotAtFewRows) {
  std::vector<KernelMeta> kernels, perTensor;
  for (const DenseConfiguration &config : denseConfigurationSet()) {
    kernels.push_back(configurationStub(config.stem(), "dense", config));
    perTensor.push_back(
        configurationStub(config.stem(), "dense_per_tensor", config));
  }
  // H200 (docs/PERF.md, forty-sixth session): at 1 x 4096 x 7168 the 128
  // tiles of 64x32 ran 15.4 us against 12.0 at M = 8, 64x64's 64 tiles
  // 12.7 against 12.8.
  for (int64_t m = 1; m <= kScaleRowHotSpotMaxM; ++m)
    EXPECT_EQ(choose(kernels, m, 4096, 7168), "bm64_bn64_plain") << m;
  EXPECT_EQ(choose(kernels, kScaleRowHotSpotMaxM + 1, 4096, 7168),
            "bm64_bn32_plain");
  // One scale per operand: nothing read per K block, nothing to avoid.
  EXPECT_EQ(choose(perTensor, 1, 4096, 7168), "bm64_bn32_plain");
  // The 64x32 K-split pairs' 66 tiles stay ahead at N = 2112 (10.5 us at
  // M = 1 against 11.1 for 64x32 and 14.1 for 64x16's 132 tiles).
  EXPECT_EQ(choose(kernels, 1, 2112, 7168), "bm64_bn32_plain_ksplit2");
  EXPECT_EQ(choose(kernels, 1, 7168, 16384), "bm64_bn64_plain");
  // The ranking says why: 64x32's estimate is its scale reads' floor,
  // 64x48 comes after the others below kNarrowTileMinM rows.
  std::vector<DenseCandidate> ranked =
      rankDenseKernels(kernels, 1, 4096, 7168, 132);
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(kernels[ranked.front().index].kernel, "bm64_bn64_plain");
  EXPECT_FALSE(ranked.front().scaleReadFloor);
  for (const DenseCandidate &candidate : ranked) {
    const KernelMeta &meta = kernels[candidate.index];
    if (meta.kernel == "bm64_bn32_plain") {
      EXPECT_TRUE(candidate.scaleReadFloor);
      EXPECT_EQ(candidate.tiles, 128);
      EXPECT_DOUBLE_EQ(candidate.estimate, 128 * kScaleRowReadCostPerTile);
    }
    if (meta.kernel == "bm64_bn48_plain") {
      ASSERT_NE(candidate.demotedBy, nullptr);
      EXPECT_NE(std::string(candidate.demotedBy).find("kNarrowTileMinM"),
                std::string::npos);
    }
  }
  // Every kernel that runs the shape is ranked, the demoted ones last.
  EXPECT_EQ(ranked.size(), kernels.size());
  EXPECT_NE(ranked.back().demotedBy, nullptr);
}

TEST(GemmConfig, PersistentPairsSharingB) {
  std::vector<KernelMeta> kernels;
  for (const DenseConfiguration &config : denseConfigurationSet())
    kernels.push_back(configurationStub(config.stem(), "dense", config));
  // H100 (docs/PERF.md, 2026-11-24): 128x192 persistent in pairs sharing B
  // ran 4096x2112x7168 in 101.8 us against 104.1 for the plain grid (and
  // 130 for 256x128); 3072 rows on the H200 (thirty-seventh session).
  EXPECT_EQ(choose(kernels, 3072, 2112, 7168),
            "bm128_bn192_persistent_cluster2b");
  // At K = 1536 they overlap the epilogue as the persistent grid does: two
  // rounds of them ran 256x24576x1536 in 0.855x the time of three rounds of
  // 128x128 tiles; at K = 512 they lose to the 128x256 persistent grid (H200,
  // docs/PERF.md, thirty-seventh session).
  EXPECT_EQ(choose(kernels, 256, 24576, 1536),
            "bm128_bn192_persistent_cluster2b");
  EXPECT_EQ(choose(kernels, 2048, 32768, 512), "bm128_bn256_persistent");
  // At M = 128 a pair would compute an M tile past the output.
  EXPECT_EQ(choose(kernels, 128, 24576, 1536), "bm128_bn192_plain");
  // 256-row tiles run in persistent pairs sharing A at M = 4096 and long K
  // (H100, docs/PERF.md, 2026-11-25: 672 against 690 us for the plain grid
  // at 4096x7168x16384).
  EXPECT_EQ(choose(kernels, 4096, 7168, 16384),
            "bm256_bn128_persistent_cluster2");
  EXPECT_EQ(choose(kernels, 4096, 4096, 7168),
            "bm256_bn128_persistent_cluster2");
  // At K <= 4096 128x256 persistent tiles (two column groups sharing A)
  // take them: 0.95x the pairs' time at 4096x32768x512, 0.986x at
  // 4096x24576x1536, 0.994x at 4096x7168x2048 (H100, docs/PERF.md,
  // thirty-third session).
  EXPECT_EQ(choose(kernels, 4096, 7168, 2048), "bm128_bn256_persistent");
  EXPECT_EQ(choose(kernels, 4096, 32768, 512), "bm128_bn256_persistent");
  // 192-row pairs (three math warpgroups) where 192 divides M: 0.965-0.979x
  // the 256x128 pairs' time at 3072 x 7168 x 16384, 6144 x 7168 x 16384
  // and 6144 x 4096 x 7168; not at N = 2112 there (1.21x the 128x192
  // pairs' at M = 6144) (H200, docs/PERF.md, thirty-fifth session). Where
  // their last row tile is partly empty they pay a cost and still win
  // where their waves do: 0.962-0.977x the time of the model's choice
  // before at 4096 x 2112 x 7168, 4096 x 24576 x 1536 and 2048 x 7168 x
  // 16384, 0.912x at 1024 x 2112 x 7168 (thirty-seventh session).
  EXPECT_EQ(choose(kernels, 4096, 2112, 7168),
            "bm192_bn128_persistent_cluster2");
  EXPECT_EQ(choose(kernels, 4096, 24576, 1536),
            "bm192_bn128_persistent_cluster2");
  EXPECT_EQ(choose(kernels, 2048, 7168, 16384),
            "bm192_bn128_persistent_cluster2");
  EXPECT_EQ(choose(kernels, 1024, 2112, 7168),
            "bm192_bn128_persistent_cluster2");
  EXPECT_EQ(choose(kernels, 3072, 7168, 16384),
            "bm192_bn128_persistent_cluster2");
  EXPECT_EQ(choose(kernels, 6144, 7168, 16384),
            "bm192_bn128_persistent_cluster2");
  EXPECT_EQ(choose(kernels, 6144, 4096, 7168),
            "bm192_bn128_persistent_cluster2");
  EXPECT_EQ(choose(kernels, 6144, 2112, 7168),
            "bm128_bn192_persistent_cluster2b");
  // M = 64 (H200, ncu, docs/PERF.md 2026-11-26): one wave of 64x192 tiles
  // (13.5 against 16.2 us for 64x64 at 64x24576x1536), 64x128 persistent
  // over two waves at K = 512 (9.0 against 9.7 for the plain grid); one
  // wave of narrower tiles or long K stays on the plain grids.
  EXPECT_EQ(choose(kernels, 64, 24576, 1536), "bm64_bn192_plain");
  EXPECT_EQ(choose(kernels, 64, 32768, 512), "bm64_bn128_persistent");
  EXPECT_EQ(choose(kernels, 64, 7168, 2048), "bm64_bn64_plain");
  EXPECT_EQ(choose(kernels, 64, 4096, 7168), "bm64_bn32_plain");
  EXPECT_EQ(choose(kernels, 128, 32768, 512), "bm128_bn128_persistent");
  // The 128x192 pairs sharing B with stream-K where one or more whole rounds
  // of cluster units end in a short one at long K: 2048 x 2112 x 7168 (88
  // units on 66 clusters, 1.33 rounds) 0.842x the persistent pairs' time;
  // not at 2.67 rounds (4096 x 2112 x 7168, 0.998x), with nothing to split
  // (3072 x 2112 x 7168, 1.038x), at K = 2048 (1.12-1.16x) or without a whole
  // round (H200, docs/PERF.md, thirty-sixth session).
  EXPECT_EQ(choose(kernels, 2048, 2112, 7168),
            "bm128_bn192_stream_k_cluster2b");
  EXPECT_EQ(choose(kernels, 2048, 2112, 16384),
            "bm128_bn192_stream_k_cluster2b");
  EXPECT_EQ(choose(kernels, 3072, 2112, 7168),
            "bm128_bn192_persistent_cluster2b");
  EXPECT_EQ(choose(kernels, 2048, 2112, 2048).find("stream_k"),
            std::string::npos);
  EXPECT_EQ(choose(kernels, 1024, 2112, 7168).find("stream_k"),
            std::string::npos);
  // Row-major only where the persistent pairs' raster would be (N <= 4096):
  // 1024 x 16384 x 7168 has 5.2 rounds of units but a B the order would
  // stream once per row of units.
  EXPECT_EQ(choose(kernels, 1024, 16384, 7168).find("stream_k"),
            std::string::npos);
  // The stub's grid x is the split index, so the pair's extra M tile counts.
  auto pairsAt = std::find_if(kernels.begin(), kernels.end(), [](auto &k) {
    return k.kernel == "bm128_bn192_persistent_cluster2b";
  });
  ASSERT_NE(pairsAt, kernels.end());
  const KernelMeta &pairs = *pairsAt;
  ASSERT_EQ(pairs.cluster, 2u);
  ASSERT_TRUE(pairs.clusterAlongM());
  EXPECT_EQ(pairs.tiles[0].dim, "m");
  EXPECT_EQ(launchedTiles(pairs, 1, 128), 256);
  EXPECT_EQ(launchedTiles(pairs, 32, 11), 352);
}

TEST(GemmConfig, SpecializedConfigurations) {
  DenseConfiguration generic{128, 32, false, 16};
  DenseConfiguration fixed = generic;
  fixed.fixedN = 4096;
  fixed.fixedK = 7168;
  EXPECT_EQ(generic.stem(), "bm128_bn32_plain");
  EXPECT_EQ(fixed.stem(), "bm128_bn32_plain_n4096_k7168");
  // An on-demand stub carries the constants, so the choice treats it as
  // the kernel it will be: preferred where N and K match, skipped elsewhere.
  std::vector<KernelMeta> kernels = {
      configurationStub(generic.stem(), "dense", generic),
      configurationStub(fixed.stem(), "dense", fixed)};
  EXPECT_EQ(kernels[1].fixedN, 4096u);
  EXPECT_EQ(choose(kernels, 128, 4096, 7168), "bm128_bn32_plain_n4096_k7168");
  EXPECT_EQ(choose(kernels, 128, 4096, 2048), "bm128_bn32_plain");
}

TEST(GemmConfig, TwoWaveTilesForLargeM) {
  std::vector<KernelMeta> kernels = shippedKernels();
  kernels.push_back(kernel(256, 128, 3));
  // 256-row tiles stream each B tile for twice the rows: they win where
  // they fill the SMs (4096 x 7168: 896 tiles against 1792).
  EXPECT_EQ(choose(kernels, 4096, 7168, 16384), "bm256_bn128");
  // At most half full: the rows would be computed for nothing.
  EXPECT_EQ(choose(kernels, 128, 7168, 16384).substr(0, 5), "bm128");
  EXPECT_EQ(choose(kernels, 64, 7168, 16384).substr(0, 4), "bm64");
}

TEST(GemmConfig, KSplitCountsItsCtasAndItsShareCost) {
  std::vector<KernelMeta> kernels;
  for (const DenseConfiguration &config : denseConfigurationSet())
    kernels.push_back(configurationStub(config.stem(), "dense", config));
  // A K-split kernel runs k_split CTAs per tile at kKSplitShareCost. H100
  // (docs/PERF.md, thirteenth session): where the unsplit grid runs one long
  // chain per SM at long K, the pairs win: 128x32 pairs ran 128x2112x7168
  // in 11.5 us against 12.6 for 64x32, 64x32 pairs 64x2112x7168 in 10.6
  // against 11.2 for 64x16.
  EXPECT_EQ(choose(kernels, 128, 2112, 7168), "bm128_bn32_plain_ksplit2");
  EXPECT_EQ(choose(kernels, 64, 2112, 7168), "bm64_bn32_plain_ksplit2");
  // Where the split's CTAs would take a second wave it does not: 128x32
  // pairs ran 128x4096x7168 in 20.5 us against 15.2 for 128x32 (and 64x64
  // runs it faster still: TodaysSet).
  EXPECT_EQ(choose(kernels, 128, 4096, 7168), "bm64_bn64_plain");
  EXPECT_EQ(choose(kernels, 64, 4096, 7168), "bm64_bn32_plain");
  // Below kKSplitMinK the shares' meeting costs more than the split gains:
  // 64x32 pairs ran 64x2112x2048 10% slower than 64x16, 128x32 pairs
  // 128x2112x2048 13% slower than 64x32.
  EXPECT_EQ(choose(kernels, 64, 2112, 2048), "bm64_bn16_plain");
  EXPECT_EQ(choose(kernels, 128, 2112, 2048), "bm64_bn32_plain");
  EXPECT_EQ(choose(kernels, 64, 512, 16384), "bm64_bn32_plain_ksplit2");
  // Only K-split kernels loaded: one is still chosen at a short K.
  std::vector<KernelMeta> onlySplit = {kernels.back()};
  EXPECT_EQ(choose(onlySplit, 64, 512, 1024), onlySplit[0].kernel);
}

TEST(GemmConfig, StagesBreakTies) {
  std::vector<KernelMeta> kernels = {kernel(128, 128, 3), kernel(128, 128, 6)};
  Expected<size_t> index = selectDenseKernel(kernels, 512, 512, 512, 132);
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(*index, 1u);
}

TEST(GemmConfig, FixedShapes) {
  std::vector<KernelMeta> kernels = shippedKernels();
  kernels.push_back(kernel(128, 128, 5, /*fixedN=*/7168, /*fixedK=*/2048));
  kernels.back().kernel = "fixed";
  EXPECT_EQ(choose(kernels, 4096, 7168, 2048), "fixed");
  // A specialized kernel never runs another N or K.
  EXPECT_EQ(choose(kernels, 4096, 7168, 7168), "bm128_bn128");
  EXPECT_EQ(choose(kernels, 4096, 4096, 2048), "bm128_bn128");

  // It wins over the generic kernel of its configuration only, not over a
  // better configuration (a specialized set holds the configurations chosen
  // for other M too).
  ASSERT_EQ(choose(kernels, 4096, 32768, 512), "bm128_bn128");
  ASSERT_EQ(choose(kernels, 64, 32768, 512), "bm64_bn128");
  kernels.push_back(kernel(64, 128, 5, /*fixedN=*/32768, /*fixedK=*/512));
  kernels.back().kernel = "fixed_for_m64";
  EXPECT_EQ(choose(kernels, 4096, 32768, 512), "bm128_bn128");
  EXPECT_EQ(choose(kernels, 64, 32768, 512), "fixed_for_m64");

  // Also with a stage fewer than the generic kernel's: fgemm-specialize
  // takes one stage fewer where that aligns a compiled-in K loop's trips.
  std::vector<KernelMeta> shallower = {kernel(64, 64, 13),
                                       kernel(64, 64, 12, 7168, 16384)};
  shallower.back().kernel = "aligned";
  EXPECT_EQ(choose(shallower, 64, 7168, 16384), "aligned");

  std::vector<KernelMeta> onlyFixed = {kernel(128, 128, 5, 7168, 0)};
  std::string error = choose(onlyFixed, 128, 4096, 2048);
  EXPECT_NE(error.find("no loaded kernel accepts N = 4096, K = 2048"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("(N=7168, K=any)"), std::string::npos) << error;
  EXPECT_EQ(choose({}, 1, 8, 16), "error: no kernels loaded");
}

TEST(GemmConfig, FallsBackToTheOtherBlockM) {
  EXPECT_EQ(choose({kernel(128, 128)}, 1, 256, 256), "bm128_bn128");
  EXPECT_EQ(choose({kernel(64, 128)}, 4096, 256, 256), "bm64_bn128");
}

TEST(GemmConfig, PersistentForShortKWithSeveralTiles) {
  KernelMeta persistent = kernel(128, 128);
  persistent.kernel = "persistent";
  persistent.schedule = "persistent";
  std::vector<KernelMeta> kernels = {kernel(128, 128), persistent};
  // Several tiles per CTA and a short K loop: the overlapped epilogue pays.
  EXPECT_EQ(choose(kernels, 4096, 24576, 1536), "persistent");
  // Long K: the plain grid measured faster.
  EXPECT_EQ(choose(kernels, 4096, 7168, 7168), "bm128_bn128");
  // One wave: nothing to overlap.
  EXPECT_EQ(choose(kernels, 128, 1024, 2048), "bm128_bn128");
}

TEST(GemmDevice, NeedsHopper) {
  DeviceInfo device;
  device.name = "NVIDIA H100 80GB HBM3";
  device.major = 9;
  device.minor = 0;
  EXPECT_TRUE(checkHopper(device).ok());
  device.ordinal = 1;
  device.name = "NVIDIA A100-SXM4-80GB";
  device.major = 8;
  EXPECT_EQ(checkHopper(device).message(),
            "fgemm kernels need sm_90a (Hopper); device 1 "
            "(NVIDIA A100-SXM4-80GB) is sm_80");
  device.major = 10;
  EXPECT_NE(checkHopper(device).message().find("is sm_100"), std::string::npos);
}

TEST(GemmConfig, Fp32EpiloguesWeighPersistentGrids) {
  // The 1D1D set's 128 x 128 plain and persistent grids: reading C apart
  // from D favours the plain grid (which prefetches C), accumulating in
  // place the persistent one up to K = 8192 (docs/PERF.md).
  std::vector<KernelMeta> kernels = {kernel(128, 128), kernel(128, 128)};
  kernels[0].kernel = "plain";
  kernels[1].kernel = "persistent";
  kernels[1].schedule = "persistent";
  auto pick = [&](int64_t k, DenseEpilogue epilogue) {
    Expected<size_t> index =
        selectDenseKernel(kernels, 4096, 7168, k, 132, epilogue);
    return index.ok() ? kernels[*index].kernel : index.status().message();
  };
  EXPECT_EQ(pick(2048, DenseEpilogue::kStore), "persistent");
  EXPECT_EQ(pick(2048, DenseEpilogue::kReadAddend), "plain");
  EXPECT_EQ(pick(7168, DenseEpilogue::kReadAddend), "plain");
  EXPECT_EQ(pick(7168, DenseEpilogue::kStore), "plain");
  EXPECT_EQ(pick(7168, DenseEpilogue::kAccumulate), "persistent");
  EXPECT_EQ(pick(16384, DenseEpilogue::kAccumulate), "plain");
}

TEST(RasterGroupChoice, PairsSharingBWalkRowMajorWhereMeasuredFaster) {
  const int64_t l2 = 50 << 20; // the H100's
  DenseConfiguration pairs{128, 192, true, 8};
  pairs.cluster = 2;
  pairs.multicastB = true;
  pairs.launchRaster = true;
  KernelMeta meta = configurationStub("pairs", "dense", pairs);
  KernelParam raster;
  raster.kind = KernelParam::Kind::RasterGroup;
  raster.defaultRasterGroup = 8;
  meta.params.push_back(raster);
  // B = 15 MB: row-major; 44 MB: the default groups.
  EXPECT_EQ(chooseRasterGroup(meta, 2112, 7168, 1, 0, l2), 1u);
  EXPECT_EQ(chooseRasterGroup(meta, 4096, 7168, 1, 0, l2), 1u);
  EXPECT_EQ(chooseRasterGroup(meta, 6144, 7168, 1, 0, l2), 0u);
  // B fits, but row-major's first round would stream all 7168 columns of it.
  EXPECT_EQ(chooseRasterGroup(meta, 4096, 2048, 1, 0, l2), 1u);
  EXPECT_EQ(chooseRasterGroup(meta, 7168, 2048, 1, 1024, l2), 0u);
  EXPECT_EQ(chooseRasterGroup(meta, 7168, 1024, 1, 0, l2), 0u);
  // Several groups of unknown rows (contiguous layouts): the default.
  EXPECT_EQ(chooseRasterGroup(meta, 4096, 2048, 32, 0, l2), 0u);
  // Masked groups whose pairs one band of 8 holds: the default.
  EXPECT_EQ(chooseRasterGroup(meta, 7168, 2048, 4, 256, l2), 0u);
  EXPECT_EQ(chooseRasterGroup(meta, 7168, 2048, 2, 512, l2), 0u);
  EXPECT_EQ(chooseRasterGroup(meta, 4096, 2048, 8, 256, l2), 0u);
  // More: row-major where two groups' B fit or a group is one pair.
  EXPECT_EQ(chooseRasterGroup(meta, 4096, 2048, 32, 192, l2), 1u);
  EXPECT_EQ(chooseRasterGroup(meta, 6144, 7168, 32, 192, l2), 1u);
  EXPECT_EQ(chooseRasterGroup(meta, 4096, 2048, 6, 1024, l2), 1u);
  EXPECT_EQ(chooseRasterGroup(meta, 7168, 2048, 16, 384, l2), 1u);
  EXPECT_EQ(chooseRasterGroup(meta, 6144, 7168, 6, 1024, l2), 0u);
  // B = 29 MB: one group's fits, two do not.
  EXPECT_EQ(chooseRasterGroup(meta, 4096, 7168, 8, 640, l2), 0u);
  // An unknown L2 size: the default.
  EXPECT_EQ(chooseRasterGroup(meta, 2112, 7168, 1, 0, 0), 0u);
  EXPECT_EQ(chooseRasterGroup(meta, 4096, 2048, 32, 192, 0), 0u);
  // Pairs sharing A, and kernels without the parameter, keep theirs.
  KernelMeta sharingA = configurationStub(
      "a", "dense", {256, 128, true, 8, 0, 0, 2, false, 1, true});
  sharingA.params.push_back(raster);
  EXPECT_EQ(chooseRasterGroup(sharingA, 2112, 7168, 1, 0, l2), 0u);
  EXPECT_EQ(chooseRasterGroup(sharingA, 4096, 2048, 32, 192, l2), 0u);
  meta.params.pop_back();
  EXPECT_EQ(chooseRasterGroup(meta, 2112, 7168, 1, 0, l2), 0u);
  EXPECT_EQ(chooseRasterGroup(meta, 4096, 2048, 32, 192, l2), 0u);
}
