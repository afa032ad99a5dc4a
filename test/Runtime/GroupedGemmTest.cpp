//===- GroupedGemmTest.cpp - The M-grouped GEMMs' host-side rules -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/GroupedGemm.h"

#include <gtest/gtest.h>

using namespace fgemm;

namespace {

GroupedGemmProblem problem(GroupedLayout layout, int64_t m, int64_t n,
                           int64_t k, int64_t groups, int64_t expected = 0) {
  GroupedGemmProblem p;
  p.layout = layout;
  p.m = m;
  p.n = n;
  p.k = k;
  p.groups = groups;
  p.expectedM = expected;
  return p;
}

std::string shapeError(const GroupedGemmProblem &p) {
  Status status = validateGroupedGemmShape(p);
  return status.ok() ? std::string() : status.message();
}

KernelMeta kernel(GroupedLayout layout, uint32_t blockM, uint32_t blockN,
                  bool persistent = false) {
  KernelMeta meta;
  meta.variant = groupedVariant(layout);
  meta.kernel = "bm" + std::to_string(blockM) + "_bn" + std::to_string(blockN) +
                (persistent ? "_persistent" : "_plain");
  meta.blockM = blockM;
  meta.blockN = blockN;
  meta.blockK = 128;
  meta.stages = 4;
  meta.schedule = persistent ? "persistent" : "plain";
  meta.cluster = 1;
  return meta;
}

/// The runtime's set for `layout` as kernels.
std::vector<KernelMeta> shipped(GroupedLayout layout) {
  std::vector<KernelMeta> kernels;
  for (const DenseConfiguration &c : groupedConfigurationSet(layout)) {
    kernels.push_back(configurationStub(c.stem(), groupedVariant(layout), c));
    kernels.back().stages = 4;
  }
  return kernels;
}

std::string choose(const GroupedGemmProblem &p) {
  std::vector<KernelMeta> kernels = shipped(p.layout);
  Expected<size_t> index = selectGroupedKernel(kernels, p, 132);
  return index.ok() ? kernels[*index].kernel : index.status().message();
}

} // namespace

TEST(GroupedGemmArgs, Sizes) {
  const GroupedLayout c = GroupedLayout::Contiguous, m = GroupedLayout::Masked;
  EXPECT_EQ(shapeError(problem(c, 256, 4096, 7168, 2)), "");
  EXPECT_EQ(shapeError(problem(c, 0, 4096, 7168, 0)), "");
  EXPECT_EQ(shapeError(problem(c, 200, 4096, 7168, 2)),
            "M = 200 is not a multiple of 128: the contiguous layout pads "
            "every group to 128 rows (allowed: M % 128 == 0, padding rows "
            "marked -1 in m_indices)");
  EXPECT_EQ(shapeError(problem(c, 128, 4096, 7168, 0)),
            "G = 0 groups but M = 128 rows (allowed: G >= 1)");
  EXPECT_NE(shapeError(problem(c, 128, 100, 7168, 1)).find("N = 100"),
            std::string::npos);
  EXPECT_NE(shapeError(problem(c, 128, 128, 100, 1)).find("K = 100"),
            std::string::npos);
  EXPECT_NE(shapeError(problem(c, 128, 128, 128, -1)).find("is negative"),
            std::string::npos);
  EXPECT_EQ(shapeError(problem(m, 100, 4096, 7168, 3, 50)), "");
  EXPECT_EQ(shapeError(problem(m, 100, 4096, 7168, 3, 0)),
            "expected_m = 0 must be > 0 (the expected rows per group, a "
            "configuration hint)");
}

TEST(GroupedGemmArgs, ContiguousIndices) {
  std::vector<int32_t> good(256, 1);
  std::fill(good.begin() + 100, good.begin() + 128, -1);
  std::fill(good.begin() + 128, good.end(), -1); // a whole padding block
  EXPECT_TRUE(validateContiguousIndices(good, 2).ok());
  std::vector<int32_t> bad = good;
  bad[5] = 2;
  EXPECT_EQ(validateContiguousIndices(bad, 2).message(),
            "m_indices[5] = 2 is not a group (allowed: -1 for padding, or 0 "
            "<= g < G = 2)");
  bad = good;
  bad[64] = 0;
  EXPECT_EQ(validateContiguousIndices(bad, 2).message(),
            "m_indices[64] = 0 but row 0 of its 128-row block is group 1: "
            "every block holds one group's rows");
  bad = good;
  bad[120] = 1;
  EXPECT_EQ(validateContiguousIndices(bad, 2).message(),
            "m_indices[120] = 1 follows a padding row (-1) of its 128-row "
            "block: padding is allowed only at the end of a block");
  bad = good;
  bad[200] = -7;
  EXPECT_NE(validateContiguousIndices(bad, 2).message().find("-7 is not a"),
            std::string::npos);
}

TEST(GroupedGemmArgs, GroupEnds) {
  // Group 0: rows [0, 100); group 1 starts at 128: [128, 128) is empty;
  // group 2 at 128 again: [128, 300).
  EXPECT_TRUE(validateGroupEnds({100, 128, 300}, 300, 128).ok());
  EXPECT_EQ(validateGroupEnds({100, 120}, 300, 128).message(),
            "group_ends[1] = 120 is before the group's first row 128 (the "
            "previous end rounded up to 128; equal for an empty group)");
  EXPECT_EQ(validateGroupEnds({100, 400}, 300, 128).message(),
            "group_ends[1] = 400 is past M = 300");
  EXPECT_NE(validateGroupEnds({-1}, 300, 128).message().find("is before"),
            std::string::npos);
  // Unpadded: groups start right at the previous end.
  EXPECT_TRUE(validateGroupEnds({100, 120, 120, 300}, 300, 1).ok());
  EXPECT_NE(validateGroupEnds({100, 99}, 300, 1).message().find("is before"),
            std::string::npos);
  // The psum form needs no 128-row multiple for M.
  GroupedGemmProblem psum =
      problem(GroupedLayout::ContiguousPsum, 300, 4096, 7168, 3);
  EXPECT_EQ(shapeError(psum), "");
}

TEST(GroupedGemmContract, ArgumentLists) {
  const GroupedLayout c = GroupedLayout::Contiguous;
  KernelMeta meta = kernel(c, 128, 128);
  meta.dims = {"m", "n", "k", "g"};
  auto arg = [](KernelArg::Kind kind, ElementType element,
                std::vector<std::string> dims) {
    KernelArg a;
    a.kind = kind;
    a.element = element;
    a.dims = std::move(dims);
    return a;
  };
  meta.args = {arg(KernelArg::Kind::Tensor, ElementType::E4M3, {"m", "k"}),
               arg(KernelArg::Kind::Tensor, ElementType::E4M3, {"g", "n", "k"}),
               arg(KernelArg::Kind::Scales, ElementType::F32, {"m", "k"}),
               arg(KernelArg::Kind::Scales, ElementType::F32, {"g", "n", "k"}),
               arg(KernelArg::Kind::Tensor, ElementType::I32, {"m"}),
               arg(KernelArg::Kind::Tensor, ElementType::BF16, {"m", "n"})};
  meta.args[2].block[1] = 128;
  meta.args[2].mnMajor = true;
  meta.args[3].block[0] = 128;
  meta.args[3].block[1] = 128;
  EXPECT_TRUE(checkGroupedKernel(meta, c).ok())
      << checkGroupedKernel(meta, c).message();
  EXPECT_NE(checkGroupedKernel(meta, GroupedLayout::Masked)
                .message()
                .find("is not grouped_masked"),
            std::string::npos);
  KernelMeta wide = meta;
  wide.blockM = 256;
  EXPECT_NE(checkGroupedKernel(wide, c).message().find("block_m <= 128"),
            std::string::npos);
  // The psum form: the same list with a [g] end-row tensor.
  KernelMeta psum = meta;
  psum.variant = groupedVariant(GroupedLayout::ContiguousPsum);
  psum.args[4].dims = {"g"};
  EXPECT_TRUE(checkGroupedKernel(psum, GroupedLayout::ContiguousPsum).ok());
  KernelMeta wrong = meta;
  wrong.args[4].dims = {"g"};
  EXPECT_EQ(checkGroupedKernel(wrong, c).message(),
            "arg.4 (group rows) is 'tensor i32 g' but a grouped_contiguous "
            "kernel's is 'tensor i32 m' (docs/ABI.md)");
}

TEST(GroupedGemmConfig, MeasuredChoices) {
  const GroupedLayout c = GroupedLayout::Contiguous, m = GroupedLayout::Masked;
  // H100 (docs/PERF.md, thirty-third session): 128x256 persistent in pairs
  // of row tiles sharing B on the contiguous shapes, at K = 7168 and 2048
  // (0.983-0.996x the time of the 128x192 pairs, chosen before).
  EXPECT_EQ(choose(problem(c, 33408, 4096, 7168, 4)),
            "bm128_bn256_persistent_cluster2b");
  EXPECT_EQ(choose(problem(c, 36352, 7168, 2048, 4)),
            "bm128_bn256_persistent_cluster2b");
  EXPECT_EQ(choose(problem(c, 33024, 7168, 2048, 8)),
            "bm128_bn256_persistent_cluster2b");
  EXPECT_EQ(choose(problem(c, 33024, 4096, 7168, 8)),
            "bm128_bn256_persistent_cluster2b");
  // Where 192 columns cover N in fewer whole waves, the 128x192 pairs stay.
  EXPECT_EQ(choose(problem(c, 33024, 2112, 7168, 8)),
            "bm128_bn192_persistent_cluster2b");
  // Masked (2026-11-25): 128x192 persistent pairs sharing B on the
  // benchmark shapes, whatever the capacity.
  for (auto [capacity, n, k, groups, expected] :
       {std::tuple{4096, 4096, 7168, 1, 1024},
        {1408, 4096, 7168, 1, 1024},
        {384, 7168, 2048, 4, 256},
        {4096, 7168, 2048, 4, 256}})
    EXPECT_EQ(choose(problem(m, capacity, n, k, groups, expected)),
              "bm128_bn192_persistent_cluster2b");
  // Narrower pairs where they run no more whole waves than 128x192 ones for
  // any rows of 0.7-1.3x expected_m (2026-11-26): 128x160 was up to 11%
  // faster at N = 5120 while an odd last row tile took a pair in every
  // column; split along N where that saves a wave, 128x192 pairs run one
  // wave fewer than 128x160 ones at 9 row tiles (244 CTA slots against 288),
  // so 128x192 at N = 5120 too: 0.955x 128x160's time over eight draws
  // (2026-11-27: 0.81-0.88x where it saves a wave, 1.07-1.13x where not). Not
  // at N = 4096, where one group of 717-768 rows fits in one wave of 128x192
  // pairs but not of 128x160 ones, nor at N = 7168; not 128x128 pairs at 32 x
  // 256 rows, N = 1024 (one more wave: 14-16% slower). And where every tile
  // fits in one wave, the smallest tiles of a grid without clusters: 9-18%
  // faster than those pairs at N <= 1536 (a plain grid only where its CTAs for
  // the whole capacity fit in one wave; else the persistent 64x128 grid, 0.66x
  // the 128x192 pairs' time at 1 x 1024 rows, N = 768, against 0.78x for 128x96
  // pairs).
  for (auto [capacity, n, k, groups, expected, kernel] :
       {std::tuple{384, 5120, 7168, 4, 256, "bm128_bn192_persistent_cluster2b"},
        {4096, 5120, 2048, 1, 1024, "bm128_bn192_persistent_cluster2b"},
        {384, 1024, 2048, 32, 256, "bm128_bn192_persistent_cluster2b"},
        {4096, 768, 2048, 1, 1024, "bm64_bn128_persistent"},
        {1408, 768, 2048, 1, 1024, "bm64_bn128_plain"},
        {1408, 1536, 7168, 1, 1024, "bm128_bn128_plain"},
        {384, 512, 2048, 4, 256, "bm64_bn128_plain"},
        {384, 1024, 2048, 4, 256, "bm128_bn96_plain"},
        {768, 1024, 2048, 2, 512, "bm128_bn96_plain"},
        // An odd number of row tiles per group: the GPU pairs all groups'
        // row tiles in one sequence, so no group pads a pair; 128x192 pairs
        // 0.915x / 0.949x / 0.967x the time of the persistent 128x192 grid
        // taken when the choice padded each group (32 x 300 rows, N = 4096,
        // K = 2048; 16 x 384, N = 7168, K = 2048; 8 x 640, N = 4096,
        // K = 7168; H100, docs/PERF.md, twenty-seventh session).
        {4096, 4096, 2048, 32, 300, "bm128_bn192_persistent_cluster2b"},
        {512, 7168, 2048, 16, 384, "bm128_bn192_persistent_cluster2b"},
        {896, 4096, 7168, 8, 640, "bm128_bn192_persistent_cluster2b"}})
    EXPECT_EQ(choose(problem(m, capacity, n, k, groups, expected)), kernel);
  // Without the pairs: a persistent grid where the capacity is over twice
  // the rows (a plain one launches a CTA for every row block of the
  // capacity), a plain one where it is not.
  std::vector<KernelMeta> single;
  for (const KernelMeta &meta : shipped(m))
    if (meta.cluster == 1)
      single.push_back(meta);
  ASSERT_EQ(single.size() + 4, shipped(m).size());
  auto chooseSingle = [&](const GroupedGemmProblem &p) {
    Expected<size_t> index = selectGroupedKernel(single, p, 132);
    return index.ok() ? single[*index].kernel : index.status().message();
  };
  EXPECT_EQ(chooseSingle(problem(m, 4096, 4096, 7168, 1, 1024)),
            "bm128_bn192_persistent");
  EXPECT_EQ(chooseSingle(problem(m, 1408, 4096, 7168, 1, 1024)),
            "bm128_bn192_plain");
  EXPECT_EQ(chooseSingle(problem(m, 384, 7168, 2048, 4, 256)),
            "bm128_bn192_plain");
  EXPECT_EQ(chooseSingle(problem(m, 4096, 7168, 2048, 4, 256)),
            "bm128_bn192_persistent");
  // A few rows per group: 64-row tiles, persistent in a capacity far above
  // the rows (a plain grid's CTAs past masked_m made 32 x 20 rows in a
  // 4096-row capacity 1.5-2x slower, H100, docs/PERF.md, 2026-11-27).
  // In a capacity of at most twice the rows, the plain grid (1-7% faster
  // there).
  for (auto [capacity, n, k, groups, expected, kernel] :
       {std::tuple{4096, 4096, 7168, 8, 16, "bm64_bn128_persistent"},
        {4096, 4096, 2048, 32, 20, "bm64_bn128_persistent"},
        {4096, 7168, 3072, 32, 20, "bm64_bn128_persistent"},
        {128, 4096, 2048, 32, 20, "bm64_bn128_plain"},
        {128, 6144, 7168, 6, 20, "bm64_bn128_plain"}})
    EXPECT_EQ(choose(problem(m, capacity, n, k, groups, expected)), kernel);
  // Narrower persistent 64-row tiles where they run no more whole waves:
  // 64x96 0.91x / 0.99x the time of 64x128 at 6 x 20 rows, N = 6144,
  // K = 7168 and N = 4096, K = 2048 (three and two waves each; H100,
  // docs/PERF.md, 2026-11-27); not at 32 x 20 rows (more waves).
  for (auto [capacity, n, k, groups, expected, kernel] :
       {std::tuple{4096, 6144, 7168, 6, 20, "bm64_bn96_persistent"},
        {4096, 4096, 2048, 6, 20, "bm64_bn96_persistent"},
        {4096, 6144, 7168, 32, 20, "bm64_bn128_persistent"},
        // In one wave as well (0.96x at 2 x 32 rows, N = 6144, K = 2048), and
        // for 128-row persistent grids (0.98x at 4 x 96 rows, N = 7168).
        {128, 6144, 2048, 2, 32, "bm64_bn96_persistent"},
        {4096, 7168, 2048, 4, 96, "bm128_bn128_persistent"},
        // Not in place of a plain grid that fits one wave (64x96 persistent
        // 1.075x the plain 64x128 grid's time at 1 x 256 rows).
        {384, 2048, 2048, 1, 256, "bm64_bn128_plain"},
        {128, 7168, 7168, 1, 20, "bm64_bn128_plain"}})
    EXPECT_EQ(choose(problem(m, capacity, n, k, groups, expected)), kernel);
  // A kernel specialized for the call's N and K wins over the generic one
  // of its configuration (loaded first), and is skipped for other N or K.
  std::vector<KernelMeta> withSpecialized = shipped(m);
  KernelMeta specialized = withSpecialized.front();
  specialized.fixedN = 7168;
  specialized.fixedK = 2048;
  specialized.kernel += "_n7168_k2048";
  withSpecialized.push_back(specialized);
  auto chooseWith = [&](const GroupedGemmProblem &p) {
    Expected<size_t> index = selectGroupedKernel(withSpecialized, p, 132);
    return index.ok() ? withSpecialized[*index].kernel
                      : index.status().message();
  };
  EXPECT_EQ(chooseWith(problem(m, 4096, 7168, 2048, 1, 1024)),
            "bm128_bn192_persistent_cluster2b_n7168_k2048");
  EXPECT_EQ(chooseWith(problem(m, 4096, 7168, 4096, 1, 1024)),
            "bm128_bn192_persistent_cluster2b");
  // Also with a stage fewer (fgemm-specialize may align the K loop's trips).
  --withSpecialized.back().stages;
  EXPECT_EQ(chooseWith(problem(m, 4096, 7168, 2048, 1, 1024)),
            "bm128_bn192_persistent_cluster2b_n7168_k2048");
  // Only kernels of the problem's layout are candidates.
  std::vector<KernelMeta> dense = {kernel(c, 128, 128)};
  dense[0].variant = "dense";
  EXPECT_FALSE(
      selectGroupedKernel(dense, problem(c, 128, 128, 128, 1), 132).ok());
}
