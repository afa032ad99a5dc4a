//===- KernelMetaTest.cpp - Tests of the .meta parser -----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "DenseDescription.h"

#include "Runtime/KernelMeta.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace fgemm;
using fgemm::test::DenseConfig;
using fgemm::test::denseDescription;

namespace {

/// What fgemmc writes for a 128x128, 5-stage kernel: the example of
/// docs/ABI.md, verbatim.
const char *const kGoodMeta =
    "# fgemm kernel description (docs/ABI.md)\n"
    "abi_version=3\n"
    "kernel=sm90_fp8_gemm_1d2d\n"
    "variant=dense\n"
    "block_m=128\n"
    "block_n=128\n"
    "block_k=128\n"
    "stages=5\n"
    "math_warpgroups=2\n"
    "threads=384\n"
    "smem_bytes=214016\n"
    "cluster=1\n"
    "schedule=plain\n"
    "fixed_n=0\n"
    "fixed_k=0\n"
    "dims=m,n,k\n"
    "arg.0=tensor e4m3 m,k\n"
    "arg.1=tensor e4m3 n,k\n"
    "arg.2=scales f32 m,k block=1x128 mn_major\n"
    "arg.3=scales f32 n,k block=128x128\n"
    "arg.4=tensor bf16 m,n\n"
    "param.0=tensor_map arg=0 box=128x128 swizzle=128b\n"
    "param.1=tensor_map arg=1 box=128x128 swizzle=128b\n"
    "param.2=tensor_map arg=2 box=128x1 swizzle=none\n"
    "param.3=tensor_map arg=4 box=128x128 swizzle=none\n"
    "param.4=pointer arg=3\n"
    "param.5=dim m\n"
    "param.6=dim n\n"
    "param.7=dim k\n"
    "tiles=n/128,m/128\n";

/// 1-based line of `key` in kGoodMeta.
int lineOf(const std::string &key) {
  std::string text = kGoodMeta;
  size_t at = text.find("\n" + key + "=");
  EXPECT_NE(at, std::string::npos) << key;
  int line = 2;
  for (size_t i = 0; i < at; ++i)
    line += text[i] == '\n';
  return line;
}

/// kGoodMeta with the line of `key` replaced by `replacement` (a whole line,
/// or "" to drop it).
std::string withLine(const std::string &key, const std::string &replacement) {
  std::string text = kGoodMeta;
  size_t at = text.find("\n" + key + "=");
  EXPECT_NE(at, std::string::npos) << key;
  size_t end = text.find('\n', at + 1);
  text.replace(at + 1, end - at, replacement.empty() ? "" : replacement + "\n");
  return text;
}

/// `replacement` is a whole "key=value" line replacing that key's line.
std::string replaced(const std::string &line) {
  return withLine(line.substr(0, line.find('=')), line);
}

/// The error message of parsing `text` ("" if it parsed).
std::string parseError(const std::string &text) {
  Expected<KernelMeta> meta = parseKernelMeta(text, "k.meta");
  return meta.ok() ? std::string() : meta.status().message();
}

/// Checks that replacing each case's key line gives an error at that line
/// containing the expected text.
void expectErrors(
    const std::vector<std::pair<std::string, std::string>> &cases) {
  for (const auto &[line, expected] : cases) {
    std::string key = line.substr(0, line.find('='));
    std::string error = parseError(replaced(line));
    EXPECT_NE(error.find(expected), std::string::npos)
        << line << " gave: " << error;
    std::string where = "k.meta:" + std::to_string(lineOf(key)) + ": ";
    EXPECT_EQ(error.rfind(where, 0), 0u) << line << " gave: " << error;
  }
}

} // namespace

TEST(KernelMeta, TestHelperWritesTheDocumentedExample) {
  EXPECT_EQ(denseDescription(DenseConfig()), kGoodMeta);
}

TEST(KernelMeta, ParsesCompilerOutput) {
  Expected<KernelMeta> meta = parseKernelMeta(kGoodMeta, "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->abiVersion, 3u);
  EXPECT_EQ(meta->kernel, "sm90_fp8_gemm_1d2d");
  EXPECT_EQ(meta->variant, "dense");
  EXPECT_EQ(meta->blockM, 128u);
  EXPECT_EQ(meta->blockN, 128u);
  EXPECT_EQ(meta->blockK, 128u);
  EXPECT_EQ(meta->stages, 5u);
  EXPECT_EQ(meta->mathWarpgroups, 2u);
  EXPECT_EQ(meta->threads, 384u);
  EXPECT_EQ(meta->smemBytes, 214016u);
  EXPECT_EQ(meta->cluster, 1u);
  EXPECT_EQ(meta->schedule, "plain");
  EXPECT_FALSE(meta->persistent());
  EXPECT_EQ(meta->fixedN, 0u);
  EXPECT_EQ(meta->fixedK, 0u);
  EXPECT_EQ(meta->configName(), "bm128_bn128_s5");
  EXPECT_EQ(meta->dims, (std::vector<std::string>{"m", "n", "k"}));
  EXPECT_EQ(meta->dimIndex("n"), 1);
  EXPECT_EQ(meta->dimIndex("g"), -1);

  ASSERT_EQ(meta->args.size(), 5u);
  const KernelArg &sfa = meta->args[2];
  EXPECT_EQ(sfa.kind, KernelArg::Kind::Scales);
  EXPECT_EQ(sfa.element, ElementType::F32);
  EXPECT_EQ(sfa.dims, (std::vector<std::string>{"m", "k"}));
  EXPECT_EQ(sfa.block[0], 1u);
  EXPECT_EQ(sfa.block[1], 128u);
  EXPECT_TRUE(sfa.mnMajor);
  EXPECT_FALSE(meta->args[3].mnMajor);
  EXPECT_EQ(meta->args[4].kind, KernelArg::Kind::Tensor);
  EXPECT_EQ(meta->args[4].element, ElementType::BF16);
  // The canonical spelling round-trips.
  const char *spelled[] = {"tensor e4m3 m,k", "tensor e4m3 n,k",
                           "scales f32 m,k block=1x128 mn_major",
                           "scales f32 n,k block=128x128", "tensor bf16 m,n"};
  for (size_t i = 0; i < 5; ++i)
    EXPECT_EQ(formatKernelArg(meta->args[i]), spelled[i]);

  ASSERT_EQ(meta->params.size(), 8u);
  const KernelParam &mapA = meta->params[0];
  EXPECT_EQ(mapA.kind, KernelParam::Kind::TensorMap);
  EXPECT_EQ(mapA.arg, 0u);
  EXPECT_EQ(mapA.box[0], 128u);
  EXPECT_EQ(mapA.box[1], 128u);
  EXPECT_EQ(mapA.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(meta->params[2].box[1], 1u);
  EXPECT_EQ(meta->params[2].swizzle, CU_TENSOR_MAP_SWIZZLE_NONE);
  EXPECT_EQ(meta->params[3].arg, 4u);
  EXPECT_EQ(meta->params[4].kind, KernelParam::Kind::Pointer);
  EXPECT_EQ(meta->params[4].arg, 3u);
  EXPECT_EQ(meta->params[7].kind, KernelParam::Kind::Dim);
  EXPECT_EQ(meta->params[7].dim, "k");

  ASSERT_EQ(meta->tiles.size(), 2u);
  EXPECT_EQ(meta->tiles[0].dim, "n");
  EXPECT_EQ(meta->tiles[0].block, 128u);
  EXPECT_EQ(meta->tiles[1].dim, "m");
}

TEST(KernelMeta, AcceptsCommentsBlankLinesCrlfAndAnyKeyOrder) {
  std::string text = withLine("stages", "stages=4   # deepest that fits\r");
  text = "\n\n# leading comment\n" + text + "\n   \n";
  Expected<KernelMeta> meta = parseKernelMeta(text, "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->stages, 4u);
  // Keys come in any order, a parameter's options too.
  std::string reordered =
      withLine("param.0", "") +
      "param.0 = tensor_map  swizzle=128b box=128x64\targ=0\n";
  meta = parseKernelMeta(reordered, "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->params[0].arg, 0u);
  EXPECT_EQ(meta->params[0].box[1], 64u);
  EXPECT_EQ(meta->params[0].swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
}

TEST(KernelMeta, ThreeMathWarpgroups) {
  // 192-row tiles: three math warpgroups of one m64 wave, 512 threads.
  std::string text = replaced("block_m=192");
  text = text.replace(text.find("math_warpgroups=2"), 17, "math_warpgroups=3");
  text = text.replace(text.find("threads=384"), 11, "threads=512");
  Expected<KernelMeta> meta = parseKernelMeta(text, "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->mathWarpgroups, 3u);
  // Three warpgroups of two waves (384 rows) is no kernel fgemmc makes.
  text = text.replace(text.find("block_m=192"), 11, "block_m=384");
  EXPECT_NE(parseError(text).find("block_m=384 does not match "
                                  "math_warpgroups=3"),
            std::string::npos)
      << parseError(text);
}

TEST(KernelMeta, SpecializedKernelName) {
  std::string text = withLine("fixed_n", "fixed_n=7168");
  text = text.replace(text.find("fixed_k=0"), 9, "fixed_k=2048");
  Expected<KernelMeta> meta = parseKernelMeta(text, "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->configName(), "bm128_bn128_s5_n7168_k2048");
}

TEST(KernelMeta, VersionIsCheckedFirst) {
  // A v1 file (no abi_version, no args/params): the version error, not a
  // list of missing keys.
  std::string v1 = "kernel=k\nvariant=dense\nblock_m=128\nblock_n=128\n"
                   "block_k=128\nstages=5\nmath_warpgroups=2\nthreads=384\n"
                   "smem_bytes=1000\ncluster=1\nfixed_n=0\nfixed_k=0\n";
  EXPECT_EQ(parseError(v1),
            "k.meta: no abi_version key: the file predates kernel description "
            "version 2, but this runtime reads abi_version=3 to 4 only; "
            "recompile "
            "the kernel with a matching fgemmc");
  EXPECT_EQ(
      parseError(withLine("abi_version", "abi_version=1")),
      "k.meta:2: abi_version=1, but this runtime reads abi_version=3 "
      "to 4 only; recompile the kernel with a matching fgemmc (or use the "
      "runtime that matches it)");
  // A newer file may have keys (and syntax) this runtime does not know.
  std::string v5 = std::string("grid=2d\nnot a key value line\n") +
                   withLine("abi_version", "abi_version=5");
  EXPECT_NE(parseError(v5).find("k.meta:4: abi_version=5, but this runtime "
                                "reads abi_version=3 to 4 only"),
            std::string::npos)
      << parseError(v5);
  EXPECT_NE(parseError(withLine("abi_version", "abi_version=02"))
                .find("abi_version=02, but"),
            std::string::npos);
}

TEST(KernelMeta, EveryMissingKeyIsReported) {
  for (const char *key :
       {"kernel", "variant", "block_m", "block_n", "block_k", "stages",
        "math_warpgroups", "threads", "smem_bytes", "cluster", "schedule",
        "fixed_n", "fixed_k", "dims", "tiles", "arg.0", "param.0"}) {
    std::string error = parseError(withLine(key, ""));
    EXPECT_NE(error.find("k.meta: missing key(s): " + std::string(key)),
              std::string::npos)
        << key << ": " << error;
  }
}

TEST(KernelMeta, WorkspaceParameters) {
  // Only stream-K kernels take one.
  std::string plainWorkspace =
      withLine("param.7", "param.7=workspace bytes_per_cta=65664") +
      "param.8=dim k\n";
  EXPECT_NE(parseError(plainWorkspace)
                .find("param.7 is a workspace, which only schedule=stream_k "
                      "kernels take"),
            std::string::npos)
      << parseError(plainWorkspace);
  auto asStreamK = [](std::string text) {
    text.replace(text.find("schedule=plain"), 14, "schedule=stream_k");
    return text;
  };
  std::string streamK = asStreamK(plainWorkspace);
  Expected<KernelMeta> meta = parseKernelMeta(streamK, "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_TRUE(meta->streamK());
  EXPECT_TRUE(meta->persistent());
  EXPECT_EQ(meta->params[7].kind, KernelParam::Kind::Workspace);
  EXPECT_EQ(meta->params[7].bytesPerCta, 65664u);
  EXPECT_EQ(meta->configName(), "bm128_bn128_s5_stream_k");
  std::string noWorkspace = asStreamK(kGoodMeta);
  EXPECT_NE(parseError(noWorkspace)
                .find("schedule=stream_k needs exactly one 'workspace' "
                      "parameter; the kernel has 0"),
            std::string::npos)
      << parseError(noWorkspace);
  // Clusters split units of tiles sharing an operand (docs/ABI.md).
  std::string clustered = streamK;
  clustered.replace(clustered.find("cluster=1"), 9, "cluster=2");
  Expected<KernelMeta> pairs = parseKernelMeta(clustered, "k.meta");
  ASSERT_TRUE(pairs.ok()) << pairs.status().message();
  EXPECT_EQ(pairs->cluster, 2);
  EXPECT_TRUE(pairs->streamK());
  for (const char *bad :
       {"workspace", "workspace bytes_per_cta=0", "workspace bytes_per_cta=8",
        "workspace bytes=64", "workspace bytes_per_cta=64 arg=1"}) {
    std::string text = streamK;
    text.replace(text.find("workspace bytes_per_cta=65664"), 29, bad);
    EXPECT_NE(parseError(text).find("expected 'workspace bytes_per_cta=N' (N "
                                    "a positive multiple of 16)"),
              std::string::npos)
        << bad << " gave: " << parseError(text);
  }
}

TEST(KernelMeta, RasterGroupParameter) {
  std::string v4 = withLine("abi_version", "abi_version=4");
  std::string text = v4 + "param.8=raster_group default=8\n";
  Expected<KernelMeta> meta = parseKernelMeta(text, "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->params[8].kind, KernelParam::Kind::RasterGroup);
  EXPECT_EQ(meta->params[8].defaultRasterGroup, 8u);
  // Version 3 has no such parameter.
  std::string v3 = std::string(kGoodMeta) + "param.8=raster_group default=8\n";
  EXPECT_NE(parseError(v3).find("param.8 is a raster_group, which "
                                "abi_version=3 does not have (added in 4)"),
            std::string::npos)
      << parseError(v3);
  std::string twice = text + "param.9=raster_group default=1\n";
  EXPECT_NE(parseError(twice).find("param.9 is a second raster_group "
                                   "parameter (a kernel has at most one)"),
            std::string::npos)
      << parseError(twice);
  for (const char *bad :
       {"raster_group", "raster_group default=0", "raster_group default=x",
        "raster_group group=8", "raster_group default=8 arg=1"}) {
    std::string malformed = v4 + "param.8=" + bad + "\n";
    EXPECT_NE(parseError(malformed).find(
                  "expected 'raster_group default=G' (G >= 1)"),
              std::string::npos)
        << bad << " gave: " << parseError(malformed);
  }
}

TEST(KernelMeta, UnknownKeyIsAnError) {
  std::string error = parseError(std::string(kGoodMeta) + "swizzle=128\n");
  EXPECT_NE(error.find("k.meta:31: unknown key 'swizzle'"), std::string::npos)
      << error;
  EXPECT_NE(error.find("known keys: abi_version, kernel, variant"),
            std::string::npos);
  EXPECT_NE(error.find("arg.I, param.I); is the runtime older"),
            std::string::npos);
}

TEST(KernelMeta, DuplicateKeyIsAnError) {
  std::string error = parseError(std::string(kGoodMeta) + "stages=6\n");
  EXPECT_NE(
      error.find("k.meta:31: duplicate key 'stages' (first set on line 8)"),
      std::string::npos)
      << error;
  error = parseError(std::string(kGoodMeta) + "arg.1=tensor e4m3 n,k\n");
  EXPECT_NE(
      error.find("k.meta:31: duplicate key 'arg.1' (first set on line 18)"),
      std::string::npos)
      << error;
}

TEST(KernelMeta, IndicesAreContiguousFromZero) {
  std::string error = parseError(std::string(kGoodMeta) + "param.9=dim m\n");
  EXPECT_EQ(error, "k.meta:31: param.9 without param.8 (indices run from 0 "
                   "without gaps)");
  error = parseError(withLine("arg.1", ""));
  EXPECT_NE(error.find("arg.2 without arg.1"), std::string::npos) << error;
  error = parseError(std::string(kGoodMeta) + "arg.05=tensor i32 m\n");
  EXPECT_EQ(error, "k.meta:31: 'arg.05' needs a decimal index without "
                   "leading zeros");
  EXPECT_NE(parseError(std::string(kGoodMeta) + "param.x=dim m\n")
                .find("'param.x' needs a decimal index"),
            std::string::npos);
}

TEST(KernelMeta, MalformedLinesAndNumbers) {
  EXPECT_NE(
      parseError(withLine("stages", "stages 5")).find("expected key=value"),
      std::string::npos);
  for (const char *value : {"-1", "5a", "0x10", "4294967296", "1 2"}) {
    std::string error =
        parseError(withLine("stages", std::string("stages=") + value));
    EXPECT_NE(error.find("'stages' needs a non-negative decimal integer"),
              std::string::npos)
        << value << ": " << error;
  }
  EXPECT_NE(parseError(withLine("kernel", "kernel=")).find("empty value"),
            std::string::npos);
  EXPECT_NE(parseError(withLine("stages", "stages=")).find("empty value"),
            std::string::npos);
  EXPECT_NE(parseError(withLine("schedule", "schedule=")).find("empty value"),
            std::string::npos);
}

TEST(KernelMeta, ValuesAreCheckedAgainstTheAbi) {
  expectErrors({
      {"kernel=9lives", "not a symbol name"},
      {"variant=grouped-masked",
       "variant='grouped-masked' is not an identifier"},
      {"block_k=64", "block_k=64 but"},
      {"math_warpgroups=4", "math_warpgroups=4 (allowed: 1, 2 or 3)"},
      {"block_m=192", "block_m=192 does not match math_warpgroups=2"},
      {"block_m=64", "block_m=64 does not match math_warpgroups=2"},
      {"threads=256", "threads=256 but 2 math warpgroup(s)"},
      {"block_n=12", "block_n=12 (allowed: a multiple of 8 in [8, 256])"},
      {"block_n=264", "block_n=264"},
      {"block_n=0", "block_n=0"},
      {"stages=0", "stages=0"},
      {"smem_bytes=0", "smem_bytes=0"},
      {"smem_bytes=232449", "smem_bytes=232449 (allowed: 1 to 232448"},
      {"cluster=4", "cluster=4 (allowed: 1, or 2"},
      {"schedule=split_k",
       "schedule='split_k' (allowed: plain, persistent or stream_k)"},
      {"fixed_n=100", "fixed_n=100 is not a multiple of 8"},
      {"fixed_k=120", "fixed_k=120 is not a multiple of 16"},
  });
}

TEST(KernelMeta, KSplitIsOptional) {
  Expected<KernelMeta> plain = parseKernelMeta(kGoodMeta, "k.meta");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->kSplit, 1u);
  Expected<KernelMeta> split =
      parseKernelMeta(replaced("cluster=1\nk_split=2"), "k.meta");
  ASSERT_TRUE(split.ok()) << split.status().message();
  EXPECT_EQ(split->kSplit, 2u);
  EXPECT_EQ(split->configName(), "bm128_bn128_s5_ksplit2");
  // Errors name the k_split line (the one after cluster's).
  std::string where = "k.meta:" + std::to_string(lineOf("cluster") + 1) + ": ";
  EXPECT_EQ(parseError(replaced("cluster=1\nk_split=3")),
            where + "k_split=3 (allowed: 1, 2 or 4 CTAs sharing a tile's K "
                    "blocks)");
  EXPECT_EQ(parseError(replaced("cluster=2\nk_split=2")),
            where + "k_split=2 needs cluster=1 and schedule=plain (its "
                    "cluster is the tile's K shares), got cluster=2, "
                    "schedule=plain");
  std::string grouped = replaced("cluster=1\nk_split=2");
  grouped.replace(grouped.find("variant=dense"), 13, "variant=grouped_masked");
  EXPECT_EQ(parseError(grouped),
            where + "k_split=2 splits dense tiles only (variant dense*), got "
                    "variant=grouped_masked");
}

TEST(KernelMeta, VariantIsAFreeIdentifier) {
  Expected<KernelMeta> meta =
      parseKernelMeta(replaced("variant=grouped_masked"), "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->variant, "grouped_masked");
}

TEST(KernelMeta, PerTensorScalesRoundTrip) {
  KernelArg arg;
  arg.kind = KernelArg::Kind::Scales;
  arg.element = ElementType::F32;
  arg.dims = {"n", "k"};
  arg.perTensor = true;
  EXPECT_EQ(formatKernelArg(arg), "scales f32 n,k per_tensor");
}

TEST(KernelMeta, Schedule) {
  Expected<KernelMeta> persistent =
      parseKernelMeta(replaced("schedule=persistent"), "k.meta");
  ASSERT_TRUE(persistent.ok()) << persistent.status().message();
  EXPECT_TRUE(persistent->persistent());
  EXPECT_EQ(persistent->configName(), "bm128_bn128_s5_persistent");
}

TEST(KernelMeta, MalformedArguments) {
  expectErrors({
      {"arg.0=tensor e4m3", "arg.0: expected 'tensor ELEM DIMS'"},
      {"arg.0=matrix e4m3 m,k", "unknown argument kind 'matrix' (allowed: "
                                "tensor, scales)"},
      {"arg.0=tensor fp8 m,k", "unknown element type 'fp8' (allowed: e4m3, "
                               "e5m2, bf16, f32, i32)"},
      {"arg.0=tensor e4m3 m,,k", "'' is not a dimension name"},
      {"arg.0=tensor e4m3 m,2k", "'2k' is not a dimension name"},
      {"arg.0=tensor e4m3 g,h,m,k", "tensor of 4 dimensions (allowed: 1 to 3"},
      {"arg.0=tensor e4m3 m,k block=1x128",
       "unexpected 'block=1x128' after a tensor's dimensions"},
      {"arg.2=scales f32 m,k mn_major", "scales need block=B0xB1 or "
                                        "per_tensor"},
      {"arg.2=scales f32 m,k per_tensor block=1x128",
       "unexpected or repeated 'block=1x128'"},
      {"arg.2=scales f32 m,k per_tensor mn_major",
       "per_tensor scales have no mn_major layout"},
      {"arg.2=scales f32 m,k block=0x128", "'block=0x128' needs two positive"},
      {"arg.2=scales f32 m,k block=128", "'block=128' needs two positive"},
      {"arg.2=scales f32 m block=1x128",
       "scales of 1 dimensions (allowed: 2 or 3"},
      {"arg.2=scales f32 m,k block=1x128 mn_major mn_major",
       "unexpected or repeated 'mn_major'"},
      {"arg.2=scales f32 m,k block=1x128 k_major", "unexpected or repeated "
                                                   "'k_major'"},
      // References to dimension symbols are checked against dims.
      {"arg.0=tensor e4m3 m,x",
       "arg.0 'tensor e4m3 m,x' uses dimension 'x', which is not in dims "
       "(m,n,k)"},
  });
}

TEST(KernelMeta, MalformedParameters) {
  expectErrors({
      {"param.5=dim", "param.5: expected 'dim NAME', got 'dim'"},
      {"param.5=dim m n", "expected 'dim NAME'"},
      {"param.4=texture arg=3", "unknown parameter kind 'texture' (allowed: "
                                "tensor_map, pointer, workspace, raster_group, "
                                "dim)"},
      {"param.0=tensor_map arg=0 box=128x128",
       "tensor_map parameter without swizzle="},
      {"param.0=tensor_map box=128x128 swizzle=128b",
       "tensor_map parameter without arg="},
      {"param.0=tensor_map arg=0 box=128x128 swizzle=256b",
       "unknown swizzle '256b' (allowed: none, 32b, 64b, 128b)"},
      {"param.0=tensor_map arg=0 box=128 swizzle=128b",
       "'box=128' needs two integers (box=INNERxOUTER"},
      {"param.4=pointer arg=3 box=1x1",
       "unexpected 'box=1x1' in a pointer parameter"},
      {"param.4=pointer arg=3 arg=3", "repeated 'arg='"},
      {"param.4=pointer arg=x", "'arg=x' needs an argument index"},
      {"param.4=pointer", "pointer parameter without arg="},
      // References.
      {"param.4=pointer arg=9", "param.4 refers to arg.9, but the kernel has "
                                "5 argument(s) (arg.0 to arg.4)"},
      {"param.0=tensor_map arg=7 box=128x128 swizzle=128b",
       "param.0 refers to arg.7"},
      {"param.5=dim g", "param.5 passes dimension 'g', which is not in dims "
                        "(m,n,k)"},
  });
}

TEST(KernelMeta, TensorMapRulesAndBoxes) {
  // Layouts without a tensor-map rule: reported at the tensor_map (line 24),
  // since the same argument could be passed as a pointer.
  EXPECT_EQ(parseError(replaced("arg.2=scales bf16 m,k block=1x128 mn_major")),
            "k.meta:24: param.2 (tensor_map over arg.2 'scales bf16 m,k "
            "block=1x128 mn_major', box=128x1 swizzle=none): no tensor-map "
            "rule for bf16 scales (allowed: f32)");
  EXPECT_NE(parseError(replaced("arg.2=scales f32 m,k per_tensor"))
                .find("no tensor-map rule for per_tensor scales (one value: "
                      "pass them as `pointer`)"),
            std::string::npos);
  EXPECT_NE(parseError(replaced("arg.2=scales f32 m,k block=128x128 mn_major"))
                .find("k.meta:24: param.2 (tensor_map over arg.2 'scales f32 "
                      "m,k block=128x128 mn_major', box=128x1 swizzle=none): "
                      "no tensor-map rule for M-major scales with block "
                      "128x128 (allowed: block=1xB)"),
            std::string::npos);
  expectErrors({
      // TMA box rules.
      {"param.1=tensor_map arg=1 box=128x0 swizzle=128b",
       "box dimension 1 = 0 (allowed: 1 to 256)"},
      {"param.1=tensor_map arg=1 box=128x257 swizzle=128b",
       "box dimension 1 = 257 (allowed: 1 to 256)"},
      {"param.3=tensor_map arg=4 box=4x128 swizzle=none",
       "inner box of 4 bf16 is 8 bytes, not a multiple of 16"},
      {"param.0=tensor_map arg=0 box=256x128 swizzle=128b",
       "inner box of 256 bytes exceeds the 128-byte swizzle span"},
      {"param.0=tensor_map arg=0 box=128x128 swizzle=64b",
       "inner box of 128 bytes exceeds the 64-byte swizzle span"},
  });
  // The message names the parameter, its argument and its box.
  std::string error =
      parseError(replaced("param.0=tensor_map arg=0 box=128x128 swizzle=32b"));
  EXPECT_EQ(error, "k.meta:22: param.0 (tensor_map over arg.0 'tensor e4m3 "
                   "m,k', box=128x128 swizzle=32b): inner box of 128 bytes "
                   "exceeds the 32-byte swizzle span (allowed: at most 32 "
                   "bytes)");
  // A 1-D tensor is passed as a pointer, never as a tensor map.
  std::string text = std::string(kGoodMeta) + "arg.5=tensor i32 m\n" +
                     "param.8=tensor_map arg=5 box=4x1 swizzle=none\n";
  EXPECT_NE(parseError(text).find("k.meta:32: param.8 (tensor_map over arg.5 "
                                  "'tensor i32 m', box=4x1 swizzle=none): no "
                                  "tensor-map rule for a 1-D tensor"),
            std::string::npos)
      << parseError(text);
  text = std::string(kGoodMeta) + "arg.5=tensor i32 m\nparam.8=pointer arg=5\n";
  EXPECT_EQ(parseError(text), "");
}

TEST(KernelMeta, DimsAndTiles) {
  expectErrors({
      {"dims=m,n,m", "dims names 'm' twice"},
      {"dims=m,n,", "'' is not a dimension name"},
      {"tiles=n/0,m/128", "tile factor 'n/0' is not DIM/BLOCK with a "
                          "positive integer BLOCK"},
      {"tiles=n128", "tile factor 'n128' is not DIM/BLOCK"},
      {"tiles=n/128,m/128,k/1,k/2", "tiles has 4 factors (allowed: 1 to 3"},
      {"tiles=x/128", "tile factor 'x/128' names no dimension in dims (m,n,k)"},
  });
  // Dropping a symbol its users need: the first user is named.
  EXPECT_NE(parseError(replaced("dims=m,n"))
                .find("k.meta:17: arg.0 'tensor "
                      "e4m3 m,k' uses dimension "
                      "'k'"),
            std::string::npos)
      << parseError(replaced("dims=m,n"));
}

TEST(KernelMeta, FixedDimsNeedTheirSymbols) {
  Expected<KernelMeta> meta = parseKernelMeta(kGoodMeta, "k.meta");
  ASSERT_TRUE(meta.ok());
  KernelMeta renamed = *meta;
  renamed.dims = {"m", "cols", "k"};
  renamed.fixedN = 4096;
  // Built in code: no FILE:LINE.
  EXPECT_EQ(validateKernelMeta(renamed).message(),
            "fixed_n=4096 but there is no dimension 'n' in dims (m,cols,k)");
  renamed.fixedN = 0;
  EXPECT_EQ(validateKernelMeta(renamed).message(),
            "tile factor 'n/128' names no dimension in dims (m,cols,k)");
  renamed.tiles[0].dim = "cols";
  EXPECT_EQ(validateKernelMeta(renamed).message(),
            "arg.1 'tensor e4m3 n,k' uses dimension 'n', which is not in dims "
            "(m,cols,k)");
  EXPECT_TRUE(validateKernelMeta(*meta).ok());
}

TEST(KernelMeta, OneMathWarpgroup) {
  DenseConfig config;
  config.blockM = 64;
  Expected<KernelMeta> meta =
      parseKernelMeta(denseDescription(config), "k.meta");
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->blockM, 64u);
  EXPECT_EQ(meta->threads, 256u);
  EXPECT_EQ(meta->params[0].box[1], 64u);
}

TEST(KernelMeta, ReadsFiles) {
  std::string path = ::testing::TempDir() + "fgemm_meta_test.meta";
  {
    std::ofstream file(path);
    file << kGoodMeta;
  }
  Expected<KernelMeta> meta = readKernelMeta(path);
  ASSERT_TRUE(meta.ok()) << meta.status().message();
  EXPECT_EQ(meta->smemBytes, 214016u);
  std::remove(path.c_str());

  Expected<KernelMeta> missing = readKernelMeta(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot open kernel description"),
            std::string::npos);
}
