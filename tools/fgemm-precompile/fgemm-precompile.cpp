//===- fgemm-precompile.cpp - fill the kernel cache ahead of time -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Compiles a DSL kernel's configurations into the kernel cache (in parallel,
// one line of progress per configuration) and optionally gathers them into a
// kernel directory that the runtime, the C API and the Python package load:
// how kernels reach a GPU machine without a compiler, and how a server starts
// warm. Processes that precompile the same keys at once compile each once.
//
//   fgemm-precompile kernels/sm90_fp8_gemm_1d2d.mlir [--cache-dir D]
//       [--set dense|contiguous|masked] [--config 256x128:persistent:r8 ...]
//       [--shapes "M,N,K;..." | "G,M,N,K;..." [--sms S]]
//       [--pack DIR] [--jobs N]
//
// --shapes: a model's GEMM list (G,M,N,K per grouped GEMM); per shape the
// configuration the runtime would choose, compiled with that N and K as
// constants (faster on the H100, docs/PERF.md: 1-4% at M <= 128, with the K
// loop unrolled further 1.5% at M = 4096); the runtime picks such a kernel
// when N and K match. A configuration ptxas cannot fit with N and K compiled
// in (it spills for some N and K) is packed generic instead, as the
// runtime's on-demand specialization falls back to it.
//
//===----------------------------------------------------------------------===//

#include "Jit/Jit.h"
#include "Runtime/Gemm.h"
#include "Runtime/GroupedGemm.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

using namespace llvm;
using namespace mlir::fgemm;

static cl::OptionCategory category("fgemm-precompile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<kernel.mlir>"),
                                      cl::Required, cl::cat(category));
static cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("Kernel cache (default $FGEMM_CACHE_DIR, else "
                      "$XDG_CACHE_HOME/fgemm or ~/.cache/fgemm)"),
             cl::cat(category));
static cl::list<std::string> configs(
    "config",
    cl::desc("BMxBN[:persistent|:stream_k][:rG][:lr][:pf][:c2|:c2b][:ks2|:ks4] "
             "(repeatable; "
             "default: the runtime's configuration set)"),
    cl::cat(category));
static cl::opt<std::string> configurationSet(
    "set",
    cl::desc("The runtime's configuration set to compile without --config: "
             "dense (default), dense_1d1d (the FP32 1D1D kernel), dense_bias, "
             "dense_per_tensor, dense_e5m2_e4m3, dense_e4m3_e5m2, contiguous, "
             "contiguous_psum, "
             "contiguous_unpadded or masked (the M-grouped kernels); all but "
             "dense are packed as SET_NAME"),
    cl::init("dense"), cl::cat(category));
static cl::opt<std::string> shapes(
    "shapes",
    cl::desc("M,N,K;... (a dense set) or G,M,N,K;... (a grouped set: G "
             "groups of about M rows, expected_m for the masked layout, whose "
             "capacity is then align(1.3 M + 1, 128)): "
             "per shape, the configuration the runtime would choose, "
             "compiled for that N and K (the runtime prefers such kernels; "
             "packed as NAME_n<N>_k<K>)"),
    cl::cat(category));
static cl::opt<unsigned>
    smCount("sms",
            cl::desc("SMs the configuration choice of --shapes plans for "
                     "(default 132: H100 SXM)"),
            cl::init(132), cl::cat(category));
static cl::opt<std::string>
    packDir("pack",
            cl::desc("Also copy each kernel to DIR/NAME.cubin + NAME.meta (a "
                     "kernel directory the runtime loads)"),
            cl::cat(category));
static cl::opt<unsigned> jobs("jobs",
                              cl::desc("Parallel compiles (default: cores)"),
                              cl::init(0), cl::cat(category));
static cl::opt<std::string> ptxasPath("ptxas", cl::desc("ptxas to run"),
                                      cl::cat(category));

namespace {

struct Job {
  fgemm::DenseConfiguration config;
  std::string error; // non-empty: a parse or compile failure
  bool built = false;
  double seconds = 0;
  std::string base;
};

/// "128x192:persistent:r8:c2b" -> a configuration, or an error message.
std::string parseConfig(StringRef text, fgemm::DenseConfiguration &config) {
  SmallVector<StringRef> parts;
  text.split(parts, ':');
  auto [m, n] = parts[0].split('x');
  config = {0, 0, false, 0};
  if (m.getAsInteger(10, config.blockM) || n.getAsInteger(10, config.blockN))
    return "'" + text.str() +
           "': expected "
           "BMxBN[:persistent|:stream_k][:rG][:lr][:pf][:c2|:c2b][:ks2|:ks4]";
  for (StringRef part : ArrayRef(parts).drop_front()) {
    if (part == "persistent" || part == "stream_k") {
      config.persistent = true;
      config.streamK = part == "stream_k";
    } else if (part == "plain") {
      config.persistent = config.streamK = false;
    } else if (part == "c2" || part == "c2b") {
      config.cluster = 2;
      config.multicastB = part == "c2b";
    } else if (part == "ks2" || part == "ks4") {
      config.kSplit = part == "ks2" ? 2 : 4;
    } else if (part == "lr") {
      config.launchRaster = true;
    } else if (part == "pf") {
      config.prefetchScales = true;
    } else if (!part.consume_front("r") ||
               part.getAsInteger(10, config.rasterGroup))
      return "'" + text.str() +
             "': unknown part (allowed: plain, persistent, stream_k, rG for a "
             "raster "
             "group of G, lr for a raster group chosen per launch (G its "
             "default), pf for scales prefetched a tile ahead, c2 / c2b for "
             "clusters of two sharing A / B, ks2 / "
             "ks4 for clusters of 2 / 4 splitting a tile's K blocks)";
  }
  return "";
}

/// Adds a job for `config`, once.
void addOnce(const fgemm::DenseConfiguration &config, std::vector<Job> &work) {
  bool seen = llvm::any_of(work, [&](const Job &job) {
    return job.config.stem() == config.stem() &&
           job.config.rasterGroup == config.rasterGroup &&
           job.config.launchRaster == config.launchRaster &&
           job.config.prefetchScales == config.prefetchScales;
  });
  if (!seen)
    work.push_back({config, "", false, 0, ""});
}

/// Adds `config` compiled for N and K, once.
void addSpecialized(fgemm::DenseConfiguration config, int64_t n, int64_t k,
                    std::vector<Job> &work) {
  config.fixedN = uint32_t(n);
  config.fixedK = uint32_t(k);
  addOnce(config, work);
}

/// "M,N,K;..." (dense sets) or "G,M,N,K;..." (grouped sets: G groups of
/// about M rows; for the masked layout expected_m = M and a capacity of
/// align(1.3 M + 1, 128), room for the 0.7-1.3x M rows the benchmarks draw:
/// the runtime's choice for any larger capacity too) ->
/// the runtime's choice among `set` for each shape, compiled for its N and
/// K; an error message for a malformed or invalid shape.
std::string specializedJobs(StringRef text,
                            const std::vector<fgemm::DenseConfiguration> &set,
                            std::optional<fgemm::GroupedLayout> layout, int sms,
                            std::vector<Job> &work) {
  std::vector<fgemm::KernelMeta> stubs;
  std::string variant = layout ? fgemm::groupedVariant(*layout) : "dense";
  for (const fgemm::DenseConfiguration &c : set)
    stubs.push_back(fgemm::configurationStub(c.stem(), variant, c));
  size_t fields = layout ? 4 : 3;
  SmallVector<StringRef> items;
  text.split(items, ';', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    std::string shape = "'" + item.trim().str() + "'";
    SmallVector<StringRef> parts;
    item.trim().split(parts, ',');
    SmallVector<int64_t, 4> v(parts.size());
    bool malformed = parts.size() != fields;
    for (size_t i = 0; !malformed && i < parts.size(); ++i)
      malformed = parts[i].trim().getAsInteger(10, v[i]) || v[i] < 0;
    if (malformed)
      return shape + ": expected " + (layout ? "G,M,N,K" : "M,N,K") +
             " (non-negative integers)";
    fgemm::Expected<size_t> chosen = size_t(0);
    int64_t n = v[fields - 2], k = v[fields - 1];
    if (!layout) {
      int64_t m = v[0];
      if (fgemm::Status status = fgemm::validateDenseGemmShape(m, n, k);
          !status.ok())
        return shape + ": " + status.message();
      if (m == 0 || n == 0)
        return shape +
               ": an empty output needs no kernel (M and N must be > 0)";
      chosen = fgemm::selectDenseKernel(stubs, m, n, k, sms);
    } else {
      fgemm::GroupedGemmProblem p;
      p.layout = *layout;
      p.groups = v[0];
      p.n = n;
      p.k = k;
      bool masked = *layout == fgemm::GroupedLayout::Masked;
      int64_t rows = v[1];
      int64_t padded = fgemm::ceilDiv(rows, fgemm::kContiguousGroupAlignment) *
                       fgemm::kContiguousGroupAlignment;
      p.m = masked ? fgemm::maskedSpreadCapacity(rows) : p.groups * padded;
      p.expectedM = rows;
      if (fgemm::Status status = fgemm::validateGroupedGemmShape(p);
          !status.ok())
        return shape + ": " + status.message();
      if (p.groups == 0 || rows == 0 || n == 0)
        return shape +
               ": an empty output needs no kernel (G, M and N must be > 0)";
      chosen = fgemm::selectGroupedKernel(stubs, p, sms);
    }
    if (!chosen.ok())
      return chosen.status().message();
    addSpecialized(set[*chosen], n, k, work);
  }
  if (work.empty())
    return "no shapes in '" + text.str() + "'";
  return "";
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "fgemm-precompile: fill the kernel cache\n");
  auto input = MemoryBuffer::getFile(inputFile);
  if (!input) {
    errs() << "fgemm-precompile: cannot read '" << inputFile
           << "': " << input.getError().message() << "\n";
    return 2;
  }
  std::vector<Job> work;
  const std::vector<fgemm::DenseConfiguration> *set = nullptr;
  for (fgemm::DenseRecipe recipe :
       {fgemm::DenseRecipe::k1D2D, fgemm::DenseRecipe::k1D1D,
        fgemm::DenseRecipe::kBias1D2D, fgemm::DenseRecipe::kPerTensor,
        fgemm::DenseRecipe::kE5M2xE4M3, fgemm::DenseRecipe::kE4M3xE5M2})
    if (configurationSet == fgemm::denseVariant(recipe))
      set = &fgemm::denseConfigurationSet(recipe);
  std::optional<fgemm::GroupedLayout> layout;
  for (auto [name, grouped] :
       {std::pair{"contiguous", fgemm::GroupedLayout::Contiguous},
        std::pair{"contiguous_unpadded",
                  fgemm::GroupedLayout::ContiguousUnpadded},
        std::pair{"contiguous_psum", fgemm::GroupedLayout::ContiguousPsum},
        std::pair{"masked", fgemm::GroupedLayout::Masked}})
    if (configurationSet == name) {
      set = &fgemm::groupedConfigurationSet(grouped);
      layout = grouped;
    }
  if (!set) {
    errs() << "fgemm-precompile: --set " << configurationSet
           << " is not a configuration set (allowed: dense, dense_1d1d, "
              "dense_bias, dense_per_tensor, dense_e5m2_e4m3, "
              "dense_e4m3_e5m2, contiguous, "
              "contiguous_psum, "
              "contiguous_unpadded, masked)\n";
    return 2;
  }
  // Grouped kernels' packed names say their layout, so one directory holds
  // every variant.
  std::string prefix =
      configurationSet == "dense" ? "" : configurationSet + "_";
  if (!shapes.empty()) {
    if (!configs.empty()) {
      errs() << "fgemm-precompile: --shapes picks from a configuration set; "
                "it takes no --config\n";
      return 2;
    }
    if (std::string problem = specializedJobs(shapes, *set, layout,
                                              int(smCount.getValue()), work);
        !problem.empty()) {
      errs() << "fgemm-precompile: --shapes " << problem << "\n";
      return 2;
    }
  } else if (configs.empty()) {
    for (const fgemm::DenseConfiguration &c : *set)
      work.push_back({c, "", false, 0, ""});
  }
  for (const std::string &text : configs) {
    Job job;
    if (std::string problem = parseConfig(text, job.config); !problem.empty()) {
      errs() << "fgemm-precompile: --config " << problem << "\n";
      return 2;
    }
    work.push_back(job);
  }
  fgemm::KernelCache cache(cacheDir.empty()
                               ? fgemm::KernelCache::defaultDirectory()
                               : cacheDir.getValue());
  unsigned workers = jobs ? jobs.getValue()
                          : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min<unsigned>(workers, work.size());

  std::atomic<size_t> next{0}, done{0};
  std::mutex printing;
  size_t total = work.size();
  auto worker = [&] {
    for (size_t i; (i = next++) < work.size();) {
      Job &job = work[i];
      CompileOptions options;
      options.config = fgemm::jit::toKernelConfig(job.config);
      options.ptxasPath = ptxasPath;
      auto start = std::chrono::steady_clock::now();
      Expected<fgemm::CachedKernel> kernel = fgemm::jit::compileCached(
          cache, (*input)->getBuffer(), inputFile, options);
      job.seconds = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
      if (kernel) {
        job.built = kernel->built;
        job.base = kernel->base;
      } else {
        job.error = toString(kernel.takeError());
      }
      std::lock_guard<std::mutex> guard(printing);
      outs() << "[" << ++done << "/" << total << "] " << job.config.stem()
             << (job.config.rasterGroup
                     ? " r" + std::to_string(job.config.rasterGroup)
                     : std::string())
             << (job.config.launchRaster ? " (launch raster)" : "")
             << (job.config.prefetchScales ? " (prefetch scales)" : "")
             << (job.config.couplesMathWarpgroups()
                     ? " (math warpgroups coupled)"
                     : "")
             << ": "
             << (!job.error.empty() ? "FAILED"
                 : job.built        ? "compiled"
                                    : "cached")
             << " in " << format("%.4f", job.seconds) << " s\n";
      outs().flush();
    }
  };
  auto runWorkers = [&] {
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < workers; ++t)
      threads.emplace_back(worker);
    for (std::thread &t : threads)
      t.join();
  };
  runWorkers();
  // A configuration that ptxas cannot fit with N and K compiled in (it
  // spills for some N and K) is packed generic, as the runtime's on-demand
  // specialization falls back to it: the shape still finds its kernel.
  size_t firstRound = work.size();
  for (size_t i = 0; i < firstRound; ++i) {
    if (work[i].error.empty() ||
        !(work[i].config.fixedN || work[i].config.fixedK))
      continue;
    fgemm::DenseConfiguration generic = work[i].config;
    generic.fixedN = generic.fixedK = 0;
    addOnce(generic, work);
  }
  if (work.size() > firstRound) {
    total = work.size();
    next = firstRound;
    runWorkers();
  }

  int failures = 0, built = 0, fellBack = 0;
  for (const Job &job : work) {
    if (!job.error.empty() && (job.config.fixedN || job.config.fixedK)) {
      ++fellBack;
      errs() << "fgemm-precompile: " << job.config.stem()
             << ": not made for this N and K, the generic kernel is packed "
                "instead (the runtime uses it): "
             << StringRef(job.error).split('\n').first.rtrim(':') << "\n";
      continue;
    }
    if (!job.error.empty()) {
      ++failures;
      errs() << "fgemm-precompile: " << job.config.stem() << ": " << job.error
             << "\n";
      continue;
    }
    built += job.built;
    if (packDir.empty())
      continue;
    sys::fs::create_directories(packDir);
    for (const char *ext : {".cubin", ".meta"}) {
      SmallString<256> to(packDir);
      sys::path::append(to, prefix + job.config.stem() + ext);
      if (std::error_code ec = sys::fs::copy_file(job.base + ext, to)) {
        errs() << "fgemm-precompile: cannot copy to '" << to
               << "': " << ec.message() << "\n";
        ++failures;
      }
    }
  }
  outs() << work.size() << " configuration(s): " << built << " compiled, "
         << work.size() - built - failures - fellBack << " cached, " << failures
         << " failed"
         << (fellBack ? ", " + std::to_string(fellBack) +
                            " packed generic (not made for their N and K)"
                      : std::string())
         << "; cache " << cache.path() << "\n";
  return failures ? 1 : 0;
}
