//===- BenchOptionsTest.cpp - Tests of fgemm-bench's host side --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "BenchOptions.h"
#include "Inputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>

using namespace fgemm;
using namespace fgemm::bench;

namespace {

Expected<Options> parse(std::vector<std::string> args) {
  return parseOptions(args);
}

std::string errorOf(std::vector<std::string> args) {
  Expected<Options> options = parseOptions(args);
  return options.ok() ? std::string() : options.status().message();
}

} // namespace

TEST(BenchShapes, DenseIsDesignSection5) {
  std::vector<Shape> shapes = denseShapes();
  ASSERT_EQ(shapes.size(), 18u);
  for (int64_t m : {64, 128, 4096})
    for (auto [n, k] : {std::pair<int64_t, int64_t>{2112, 7168},
                        {24576, 1536},
                        {32768, 512},
                        {7168, 16384},
                        {4096, 7168},
                        {7168, 2048}})
      EXPECT_EQ(std::count(shapes.begin(), shapes.end(), Shape{m, n, k}), 1)
          << m << "x" << n << "x" << k;
}

TEST(BenchShapes, Sweep) {
  std::vector<Shape> shapes = sweepShapes();
  ASSERT_EQ(shapes.size(), 7u * 5 * 4);
  EXPECT_EQ(std::count(shapes.begin(), shapes.end(), Shape{1, 64, 128}), 1);
  EXPECT_EQ(std::count(shapes.begin(), shapes.end(), Shape{1000, 2112, 7168}),
            1);
  EXPECT_EQ(std::count(shapes.begin(), shapes.end(), Shape{129, 192, 384}), 1);
}

TEST(BenchShapes, ExplicitList) {
  Expected<std::vector<Shape>> shapes = parseShapes("1,64,128;7,128,256;");
  ASSERT_TRUE(shapes.ok()) << shapes.status().message();
  ASSERT_EQ(shapes->size(), 2u);
  EXPECT_EQ((*shapes)[0], (Shape{1, 64, 128}));
  EXPECT_EQ((*shapes)[1], (Shape{7, 128, 256}));
  // Shapes the runtime will reject still parse: the bench reports them.
  EXPECT_TRUE(parseShapes("0,100,8").ok());
  for (const char *bad : {"1,2", "1,2,3,4", "a,b,c", "-1,64,128", "", ";",
                          "1,,3", "1,2,3;;4,5,6", " 1,2,3", "1,2,3x"}) {
    Expected<std::vector<Shape>> error = parseShapes(bad);
    ASSERT_FALSE(error.ok()) << "'" << bad << "'";
    EXPECT_NE(error.status().message().find("malformed shape"),
              std::string::npos);
  }
}

TEST(BenchShapes, RandomAreValidAndFollowTheSeed) {
  std::vector<Shape> shapes = randomShapes(2000, 7);
  ASSERT_EQ(shapes.size(), 2000u);
  int64_t smallM = 0, largeM = 0;
  for (const Shape &shape : shapes) {
    EXPECT_GE(shape.m, 1);
    EXPECT_LE(shape.m, 8192);
    EXPECT_EQ(shape.n % 8, 0);
    EXPECT_GE(shape.n, 8);
    EXPECT_LE(shape.n, 16384);
    EXPECT_EQ(shape.k % 16, 0);
    EXPECT_GE(shape.k, 16);
    EXPECT_LE(shape.k, 16384);
    smallM += shape.m <= 128;
    largeM += shape.m > 1024;
  }
  // Log-uniform: about 7 of 13 octaves at most 128 rows, 3 above 1024.
  EXPECT_GT(smallM, 700);
  EXPECT_GT(largeM, 300);
  EXPECT_EQ(randomShapes(5, 7),
            std::vector<Shape>(shapes.begin(), shapes.begin() + 5));
  EXPECT_NE(randomShapes(5, 8), randomShapes(5, 7));
  for (const GroupedShape &shape : randomGroupedShapes(500, 3)) {
    EXPECT_GE(shape.groups, 1);
    EXPECT_LE(shape.groups, 16);
    EXPECT_GE(shape.m, 1);
    EXPECT_LE(shape.m, 2048);
    EXPECT_EQ(shape.n % 8, 0);
    EXPECT_LE(shape.n, 8192);
    EXPECT_EQ(shape.k % 16, 0);
    EXPECT_LE(shape.k, 8192);
  }
}

TEST(BenchOptions, RandomShapes) {
  Expected<Options> dense =
      parse({"--kernels", "k", "--shapes", "random:40", "--seed", "9"});
  ASSERT_TRUE(dense.ok()) << dense.status().message();
  EXPECT_EQ(dense->shapes, randomShapes(40, 9));
  EXPECT_FALSE(dense->time); // checked, untimed unless asked
  Expected<Options> timed =
      parse({"--kernels", "k", "--shapes", "random:3", "--time"});
  ASSERT_TRUE(timed.ok()) << timed.status().message();
  EXPECT_TRUE(timed->time);
  Expected<Options> grouped =
      parse({"--kernels", "k", "--grouped", "masked", "--shapes", "random:12"});
  ASSERT_TRUE(grouped.ok()) << grouped.status().message();
  EXPECT_EQ(grouped->groupedShapes, randomGroupedShapes(12, 0));
  EXPECT_FALSE(grouped->time);
  EXPECT_NE(errorOf({"--kernels", "k", "--shapes", "random:0"})
                .find("expected random:COUNT with COUNT in [1, 100000]"),
            std::string::npos);
  EXPECT_NE(
      errorOf({"--kernels", "k", "--grouped", "psum", "--shapes", "random:x"})
          .find("malformed 'random:x'"),
      std::string::npos);
}

TEST(BenchOptions, Defaults) {
  Expected<Options> options = parse({"--kernels", "dir"});
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_EQ(options->kernels, "dir");
  EXPECT_EQ(options->shapes.size(), 18u);
  EXPECT_EQ(options->iters, 30);
  EXPECT_EQ(options->seed, 0u);
  EXPECT_TRUE(options->check);
  EXPECT_TRUE(options->time);
  EXPECT_FALSE(options->listDevices);
}

TEST(BenchOptions, AllFlags) {
  Expected<Options> options =
      parse({"--kernels=k", "--shapes", "64,128,256", "--iters=5", "--seed",
             "42", "--device", "1", "--sms", "8", "--no-check", "--no-time"});
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_EQ(options->shapes.size(), 1u);
  EXPECT_EQ(options->iters, 5);
  EXPECT_EQ(options->seed, 42u);
  EXPECT_EQ(options->device, 1);
  EXPECT_EQ(options->sms, 8);
  EXPECT_FALSE(options->check);
  EXPECT_FALSE(options->time);
  EXPECT_FALSE(options->warmL2);
  Expected<Options> warm = parse({"--kernels=k", "--warm-l2"});
  ASSERT_TRUE(warm.ok()) << warm.status().message();
  EXPECT_TRUE(warm->warmL2);
  EXPECT_NE(errorOf({"--kernels=k", "--warm-l2=1"}), "");
}

TEST(BenchOptions, DescribeTiming) {
  Options options;
  options.iters = 5;
  EXPECT_EQ(describeTiming(options), "timed (median of 5)");
  options.warmL2 = true;
  EXPECT_EQ(describeTiming(options), "timed (median of 5, L2 warm)");
  options.time = false;
  EXPECT_EQ(describeTiming(options), "not timed");
}

TEST(BenchOptions, SweepIsUntimedUnlessAsked) {
  Expected<Options> sweep = parse({"--kernels", "k", "--shapes", "sweep"});
  ASSERT_TRUE(sweep.ok());
  EXPECT_FALSE(sweep->time);
  Expected<Options> timed =
      parse({"--kernels", "k", "--shapes", "sweep", "--time"});
  ASSERT_TRUE(timed.ok());
  EXPECT_TRUE(timed->time);
}

TEST(BenchOptions, Recipes) {
  for (auto [name, recipe] : {std::pair{"1d2d", DenseRecipe::k1D2D},
                              std::pair{"1d1d", DenseRecipe::k1D1D},
                              std::pair{"bias", DenseRecipe::kBias1D2D},
                              std::pair{"per-tensor", DenseRecipe::kPerTensor},
                              std::pair{"e5m2-a", DenseRecipe::kE5M2xE4M3},
                              std::pair{"e5m2-b", DenseRecipe::kE4M3xE5M2}}) {
    Expected<Options> options = parse({"--kernels", "k", "--recipe", name});
    ASSERT_TRUE(options.ok()) << options.status().message();
    EXPECT_EQ(options->recipe, recipe) << name;
  }
  EXPECT_EQ(errorOf({"--kernels", "k", "--recipe", "2d2d"}),
            "--recipe is 1d2d, 1d1d, bias, per-tensor, e5m2-a or e5m2-b, got "
            "'2d2d'");
  EXPECT_NE(errorOf({"--kernels", "k", "--recipe", "bias", "--c-in-place"})
                .find("--c-in-place needs --recipe 1d1d"),
            std::string::npos);
}

TEST(BenchOptions, ListDevicesNeedsNoKernels) {
  Expected<Options> options = parse({"--list-devices"});
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_TRUE(options->listDevices);
}

TEST(BenchOptions, Errors) {
  EXPECT_EQ(errorOf({}), "--kernels DIR is required");
  EXPECT_EQ(errorOf({"--kernels", "k", "--frobnicate"}),
            "unknown option '--frobnicate'");
  EXPECT_EQ(errorOf({"--kernels"}), "option '--kernels' needs a value");
  EXPECT_NE(errorOf({"--kernels", "k", "--iters", "0"}).find("--iters needs"),
            std::string::npos);
  EXPECT_NE(errorOf({"--kernels", "k", "--seed", "-3"}).find("--seed needs"),
            std::string::npos);
  EXPECT_NE(errorOf({"--kernels", "k", "--sms", "-1"}).find("--sms needs"),
            std::string::npos);
  EXPECT_NE(errorOf({"--kernels", "k", "--shapes", "1,2"}).find("malformed"),
            std::string::npos);
  EXPECT_EQ(errorOf({"--kernels", "k", "--no-check=1"}),
            "option '--no-check' takes no value");
  EXPECT_NE(
      errorOf({"--kernels", "k", "--time", "--no-time"}).find("contradict"),
      std::string::npos);
  EXPECT_EQ(errorOf({"--kernels", "k", "positional"}),
            "unknown option 'positional'");
}

TEST(BenchOptions, Grouped) {
  Expected<Options> masked =
      parse({"--kernels", "k", "--grouped", "masked", "--capacity", "1408"});
  ASSERT_TRUE(masked.ok()) << masked.status().message();
  EXPECT_EQ(masked->grouped, GroupedMode::Masked);
  EXPECT_EQ(masked->capacity, 1408);
  EXPECT_TRUE(masked->time);
  ASSERT_EQ(masked->groupedShapes.size(), 6u);
  EXPECT_EQ(masked->groupedShapes[1], (GroupedShape{1, 1024, 7168, 2048}));
  Expected<Options> contiguous =
      parse({"--kernels", "k", "--grouped", "psum", "--shapes", "3,100,64,256",
             "--no-time"});
  ASSERT_TRUE(contiguous.ok()) << contiguous.status().message();
  EXPECT_EQ(contiguous->grouped, GroupedMode::ContiguousPsum);
  EXPECT_FALSE(contiguous->time);
  ASSERT_EQ(contiguous->groupedShapes.size(), 1u);
  EXPECT_EQ(contiguous->groupedShapes[0], (GroupedShape{3, 100, 64, 256}));
  Expected<Options> shipped = parse({"--kernels", "k", "--grouped=contiguous"});
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  EXPECT_EQ(shipped->groupedShapes.front(),
            (GroupedShape{4, 8192, 4096, 7168}));

  Expected<Options> unpadded =
      parse({"--kernels", "k", "--grouped", "unpadded", "--no-time"});
  ASSERT_TRUE(unpadded.ok()) << unpadded.status().message();
  EXPECT_EQ(unpadded->grouped, GroupedMode::ContiguousUnpadded);
  EXPECT_EQ(unpadded->groupedShapes.front(),
            (GroupedShape{4, 8192, 4096, 7168}));

  EXPECT_NE(errorOf({"--kernels", "k", "--grouped", "ragged"})
                .find("--grouped is contiguous, psum, unpadded or masked"),
            std::string::npos);
  EXPECT_NE(errorOf({"--kernels", "k", "--grouped", "masked", "--shapes",
                     "0,64,128,128"})
                .find("malformed grouped shape '0,64,128,128'"),
            std::string::npos);
  EXPECT_EQ(errorOf({"--kernels", "k", "--capacity", "256"}),
            "--capacity is for --grouped masked");
  EXPECT_NE(
      errorOf({"--kernels", "k", "--grouped", "masked", "--recipe", "1d1d"})
          .find("1d2d grouped kernels"),
      std::string::npos);
}

TEST(BenchInputs, GroupRows) {
  GroupRows contiguous =
      drawGroupRows({8, 4096, 4096, 7168}, GroupedMode::Contiguous, 0, 0);
  ASSERT_EQ(contiguous.rows.size(), 8u);
  int64_t end = 0;
  for (size_t g = 0; g < 8; ++g) {
    EXPECT_GE(contiguous.rows[g], int64_t(0.7 * 4096));
    EXPECT_LT(contiguous.rows[g], int64_t(1.3 * 4096) + 1);
    EXPECT_EQ(contiguous.starts[g], end);
    end += (contiguous.rows[g] + 127) / 128 * 128;
  }
  EXPECT_EQ(contiguous.totalRows, end);
  // Same seed, same rows; another seed, other rows.
  EXPECT_EQ(
      drawGroupRows({8, 4096, 4096, 7168}, GroupedMode::Contiguous, 0, 0).rows,
      contiguous.rows);
  EXPECT_NE(
      drawGroupRows({8, 4096, 4096, 7168}, GroupedMode::Contiguous, 0, 1).rows,
      contiguous.rows);
  GroupRows masked =
      drawGroupRows({2, 512, 7168, 2048}, GroupedMode::Masked, 0, 0);
  EXPECT_EQ(masked.capacity, 768); // align(1.3 x 512 + 1, 128)
  EXPECT_EQ(masked.totalRows, 2 * 768);
  EXPECT_EQ(masked.starts, (std::vector<int64_t>{0, 768}));
  GroupRows tight =
      drawGroupRows({4, 256, 4096, 7168}, GroupedMode::Masked, 200, 0);
  for (int64_t rows : tight.rows)
    EXPECT_LE(rows, 200);
  // Given rows replace the drawn ones (masked: clamped to the capacity).
  GroupRows given = drawGroupRows({3, 1024, 6144, 7168}, GroupedMode::Masked,
                                  1408, 0, {888, 0, 1500});
  EXPECT_EQ(given.rows, (std::vector<int64_t>{888, 0, 1408}));
  EXPECT_EQ(given.starts, (std::vector<int64_t>{0, 1408, 2816}));
  GroupRows packed = drawGroupRows({2, 512, 4096, 2048},
                                   GroupedMode::Contiguous, 0, 0, {386, 617});
  EXPECT_EQ(packed.rows, (std::vector<int64_t>{386, 617}));
  EXPECT_EQ(packed.starts, (std::vector<int64_t>{0, 512}));
  EXPECT_EQ(packed.totalRows, 512 + 640);
  // Unpadded: each group starts right after the one before.
  GroupRows unpadded =
      drawGroupRows({3, 100, 4096, 2048}, GroupedMode::ContiguousUnpadded, 0, 0,
                    {77, 0, 130});
  EXPECT_EQ(unpadded.starts, (std::vector<int64_t>{0, 77, 77}));
  EXPECT_EQ(unpadded.totalRows, 207);
}

TEST(BenchOptions, GroupRows) {
  Expected<Options> options =
      parseOptions({"--kernels", "k", "--grouped", "masked", "--shapes",
                    "2,512,7168,2048", "--group-rows", "386,617"});
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_EQ(options->groupRows, (std::vector<int64_t>{386, 617}));
  EXPECT_EQ(errorOf({"--kernels", "k", "--grouped", "masked", "--shapes",
                     "4,256,7168,2048", "--group-rows", "386,617"}),
            "--group-rows gives 2 group(s), but shape 4x256,7168,2048 has 4");
  EXPECT_EQ(errorOf({"--kernels", "k", "--grouped", "masked", "--group-rows",
                     "386,-1"}),
            "--group-rows needs row counts (>= 0) separated by commas, got "
            "'386,-1'");
  EXPECT_EQ(errorOf({"--kernels", "k", "--group-rows", "386"}),
            "--group-rows is for --grouped runs");
}

TEST(BenchInputs, DeterministicNormalBf16) {
  Bf16Matrix x = randnBf16(7, Operand::A, 300, 400);
  Bf16Matrix again = randnBf16(7, Operand::A, 300, 400);
  EXPECT_EQ(x.bits, again.bits);
  EXPECT_NE(randnBf16(8, Operand::A, 300, 400).bits, x.bits);
  EXPECT_NE(randnBf16(7, Operand::B, 300, 400).bits, x.bits);
  double sum = 0, squares = 0;
  for (size_t i = 0; i < x.values.size(); ++i) {
    EXPECT_EQ(x.values[i], bf16ToFloat(x.bits[i]));
    ASSERT_TRUE(std::isfinite(x.values[i]));
    sum += x.values[i];
    squares += double(x.values[i]) * x.values[i];
  }
  double n = double(x.values.size());
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(squares / n, 1.0, 0.02);
}

TEST(BenchInputs, OperandsAreQuantizedPerContract) {
  OperandData a = makeOperand(1, Operand::A, 3, 256, Quantization::kPerToken);
  EXPECT_EQ(a.quantized.scaleRows, 3);
  EXPECT_EQ(a.quantized.scaleCols, 2);
  OperandData b = makeOperand(1, Operand::B, 200, 256, Quantization::kPerBlock);
  EXPECT_EQ(b.quantized.scaleRows, 2);
  EXPECT_EQ(b.quantized.scaleCols, 2);
  // Row 0's first block: scale = amax / 448 of the bf16 inputs.
  float amax = 0;
  for (int c = 0; c < 128; ++c)
    amax = std::max(amax, std::fabs(a.input.values[c]));
  EXPECT_EQ(a.quantized.scales[0], amax / 448.0f);
}

TEST(BenchInputs, PerTensorQuantizationHasOneScale) {
  OperandData x =
      makeOperand(1, Operand::A, 300, 384, Quantization::kPerTensor);
  ASSERT_EQ(x.quantized.scales.size(), 1u);
  float amax = 0;
  for (float v : x.input.values)
    amax = std::max(amax, std::fabs(v));
  EXPECT_EQ(x.quantized.scales[0], amax / 448.0f);
  // The largest magnitude maps to +-448, every value round-trips within
  // e4m3's half ulp (2^-4 relative for normal values).
  for (size_t i = 0; i < x.input.values.size(); ++i) {
    float back = e4m3ToFloat(x.quantized.values[i]) * x.quantized.scales[0];
    EXPECT_LE(std::fabs(back - x.input.values[i]),
              std::fabs(x.input.values[i]) / 16 + x.quantized.scales[0]);
  }
  // The host emulation reads the one scale for every row and K block.
  OperandData y =
      makeOperand(2, Operand::B, 130, 384, Quantization::kPerTensor);
  EmulatedElement e = emulateElement(x.quantized, y.quantized, 299, 129);
  double expected = 0;
  for (int k = 0; k < 384; ++k)
    expected += double(e4m3ToFloat(x.quantized.values[299 * 384 + k])) *
                x.quantized.scales[0] *
                e4m3ToFloat(y.quantized.values[129 * 384 + k]) *
                y.quantized.scales[0];
  EXPECT_NEAR(e.value, expected, 1e-9 * std::fabs(expected) + 1e-12);
}

TEST(BenchOptions, Autotune) {
  Expected<Options> tune =
      parse({"--kernels", "k", "--shapes", "sweep", "--autotune", "t.txt"});
  ASSERT_TRUE(tune.ok()) << tune.status().message();
  EXPECT_EQ(tune->autotune, "t.txt");
  EXPECT_TRUE(tune->time); // even the sweep: tuning times every candidate
  EXPECT_NE(errorOf({"--kernels", "k", "--autotune", "t.txt", "--no-time"})
                .find("--no-time and --warm-l2 are not allowed"),
            std::string::npos);
  EXPECT_NE(errorOf({"--kernels", "k", "--autotune", "t.txt", "--warm-l2"})
                .find("--no-time and --warm-l2 are not allowed"),
            std::string::npos);
  EXPECT_NE(
      errorOf({"--kernels", "k", "--grouped", "masked", "--autotune", "t.txt"})
          .find("--autotune tunes dense shapes"),
      std::string::npos);
  EXPECT_EQ(errorOf({"--kernels", "k", "--autotune"}),
            "option '--autotune' needs a value");
}
