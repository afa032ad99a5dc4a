//===- DenseDescription.h - fgemmc's dense .meta for tests ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The kernel description (docs/ABI.md, abi_version=3) fgemmc writes for a
// dense kernel of a given configuration, so the tests read what the
// compiler emits rather than hand-built structs. KernelMetaTest checks it
// against the ABI document's example byte for byte.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TEST_RUNTIME_DENSEDESCRIPTION_H
#define FGEMM_TEST_RUNTIME_DENSEDESCRIPTION_H

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fgemm::test {

/// One dense kernel configuration (block_k is always 128).
struct DenseConfig {
  std::string kernel = "sm90_fp8_gemm_1d2d";
  uint32_t blockM = 128;
  uint32_t blockN = 128;
  uint32_t stages = 5;
  uint32_t smemBytes = 214016;
  uint32_t cluster = 1;
  std::string schedule = "plain";
  uint32_t fixedN = 0;
  uint32_t fixedK = 0;
};

/// The .meta text of `config`.
inline std::string denseDescription(const DenseConfig &config) {
  auto n = [](uint32_t value) { return std::to_string(value); };
  uint32_t warpgroups = config.blockM >= 128 ? 2 : 1;
  // In a cluster each CTA multicasts 1/cluster of the shared A tile.
  std::string boxA = "128x" + n(config.blockM / config.cluster);
  // One line of the file per source line.
  // clang-format off
  return "# fgemm kernel description (docs/ABI.md)\n"
         "abi_version=3\n"
         "kernel=" + config.kernel + "\n"
         "variant=dense\n"
         "block_m=" + n(config.blockM) + "\n"
         "block_n=" + n(config.blockN) + "\n"
         "block_k=128\n"
         "stages=" + n(config.stages) + "\n"
         "math_warpgroups=" + n(warpgroups) + "\n"
         "threads=" + n(128 * (1 + warpgroups)) + "\n"
         "smem_bytes=" + n(config.smemBytes) + "\n"
         "cluster=" + n(config.cluster) + "\n"
         "schedule=" + config.schedule + "\n"
         "fixed_n=" + n(config.fixedN) + "\n"
         "fixed_k=" + n(config.fixedK) + "\n"
         "dims=m,n,k\n"
         "arg.0=tensor e4m3 m,k\n"
         "arg.1=tensor e4m3 n,k\n"
         "arg.2=scales f32 m,k block=1x128 mn_major\n"
         "arg.3=scales f32 n,k block=128x128\n"
         "arg.4=tensor bf16 m,n\n"
         "param.0=tensor_map arg=0 box=" + boxA + " swizzle=128b\n"
         "param.1=tensor_map arg=1 box=128x" + n(config.blockN) +
         " swizzle=128b\n"
         "param.2=tensor_map arg=2 box=" + n(config.blockM) +
         "x1 swizzle=none\n"
         "param.3=tensor_map arg=4 box=" + n(config.blockN) + "x" +
         n(config.blockM) + " swizzle=none\n"
         "param.4=pointer arg=3\n"
         "param.5=dim m\n"
         "param.6=dim n\n"
         "param.7=dim k\n"
         "tiles=n/" + n(config.blockN) + ",m/" + n(config.blockM) + "\n";
  // clang-format on
}

/// The byte sizes of the dense kernel's parameters, as its cubin records
/// them: four CUtensorMaps, the SFB pointer, m, n, k.
inline const char *denseParamSizes() { return "128,128,128,128,8,4,4,4"; }

/// Writes STEM.cubin (the mock libcuda's fake cubin declaring `symbols`,
/// default the kernel) and STEM.meta (`config`'s description) into `dir`.
inline void writeDenseKernel(const std::filesystem::path &dir,
                             const std::string &stem, const DenseConfig &config,
                             std::vector<std::string> symbols = {}) {
  if (symbols.empty())
    symbols = {config.kernel};
  std::ofstream cubin(dir / (stem + ".cubin"), std::ios::binary);
  cubin << "\x7f"
           "ELFFAKE\n";
  for (const std::string &symbol : symbols)
    cubin << symbol << " " << denseParamSizes() << "\n";
  cubin << "\n";
  std::ofstream(dir / (stem + ".meta")) << denseDescription(config);
}

/// `fgemmc kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir`'s description
/// (128x128 plain).
constexpr const char *kMaskedDescription =
    "abi_version=3\nkernel=sm90_m_grouped_fp8_gemm_masked_1d2d\n"
    "variant=grouped_masked\nblock_m=128\nblock_n=128\nblock_k=128\n"
    "stages=4\nmath_warpgroups=2\nthreads=384\nsmem_bytes=165952\n"
    "cluster=1\nschedule=plain\nfixed_n=0\nfixed_k=0\ndims=m,n,k,g\n"
    "arg.0=tensor e4m3 g,m,k\narg.1=tensor e4m3 g,n,k\n"
    "arg.2=scales f32 g,m,k block=1x128 mn_major\n"
    "arg.3=scales f32 g,n,k block=128x128\narg.4=tensor i32 g\n"
    "arg.5=tensor bf16 g,m,n\n"
    "param.0=tensor_map arg=0 box=128x128 swizzle=128b\n"
    "param.1=tensor_map arg=1 box=128x128 swizzle=128b\n"
    "param.2=tensor_map arg=2 box=128x1 swizzle=none\n"
    "param.3=tensor_map arg=5 box=128x128 swizzle=none\n"
    "param.4=pointer arg=3\nparam.5=pointer arg=4\nparam.6=pointer arg=5\n"
    "param.7=dim m\nparam.8=dim n\nparam.9=dim k\nparam.10=dim g\n"
    "tiles=n/128,m/128,g/1\n";

/// Writes STEM.cubin (a fake cubin declaring the masked kernel) and STEM.meta
/// (kMaskedDescription, with another tile or schedule if asked, or in pairs
/// of row tiles sharing B with `pairs`) into `dir`.
inline void writeMaskedKernel(const std::filesystem::path &dir,
                              const std::string &stem, int blockM = 128,
                              int blockN = 128, bool persistent = false,
                              uint32_t fixedN = 0, uint32_t fixedK = 0,
                              bool pairs = false) {
  std::ofstream(dir / (stem + ".cubin"), std::ios::binary)
      << "\x7f"
         "ELFFAKE\nsm90_m_grouped_fp8_gemm_masked_1d2d "
         "128,128,128,128,8,8,8,4,4,4,4\n\n";
  std::string meta = kMaskedDescription;
  auto set = [&](const std::string &from, const std::string &to) {
    meta.replace(meta.find(from), from.size(), to);
  };
  set("block_m=128", "block_m=" + std::to_string(blockM));
  set("block_n=128", "block_n=" + std::to_string(blockN));
  if (pairs) {
    // Grid x over the row tiles the pair splits; each CTA loads half of B.
    set("cluster=1", "cluster=2");
    set("param.1=tensor_map arg=1 box=128x128",
        "param.1=tensor_map arg=1 box=128x" + std::to_string(blockN / 2));
    set("tiles=n/128,m/128",
        "tiles=m/" + std::to_string(blockM) + ",n/" + std::to_string(blockN));
  } else {
    set("tiles=n/128,m/128",
        "tiles=n/" + std::to_string(blockN) + ",m/" + std::to_string(blockM));
  }
  if (persistent)
    set("schedule=plain", "schedule=persistent");
  if (blockM < 128)
    set("math_warpgroups=2\nthreads=384", "math_warpgroups=1\nthreads=256");
  set("fixed_n=0", "fixed_n=" + std::to_string(fixedN));
  set("fixed_k=0", "fixed_k=" + std::to_string(fixedK));
  std::ofstream(dir / (stem + ".meta")) << meta;
}

} // namespace fgemm::test

#endif // FGEMM_TEST_RUNTIME_DENSEDESCRIPTION_H
