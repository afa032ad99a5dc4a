//===- CApi.cpp - the C API over the runtime ---------------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every entry point turns the runtime's Status into a status code and a
// per-thread message; nothing throws (the runtime is built without
// exceptions) and no C++ type crosses the interface.
//
//===----------------------------------------------------------------------===//

#include "CApi/fgemm.h"

#include "Runtime/Device.h"
#include "Runtime/Driver.h"
#include "Runtime/Gemm.h"
#include "Runtime/GroupedGemm.h"
#include "Runtime/ScaleLayout.h"

#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>

using namespace fgemm;

struct fgemm_context {
  fgemm_context(const Driver &driver, PrimaryContext primary,
                std::optional<DenseGemm> gemm,
                std::optional<GroupedGemm> grouped,
                std::optional<DenseGemm> gemmF32)
      : driver(&driver), primary(std::move(primary)), gemm(std::move(gemm)),
        grouped(std::move(grouped)), gemmF32(std::move(gemmF32)) {}
  const Driver *driver;
  PrimaryContext primary;
  /// The dense kernels, and the directory's M-grouped kernels: a context
  /// has at least one of the two.
  std::optional<DenseGemm> gemm;
  std::optional<GroupedGemm> grouped;
  /// The FP32 dense kernels (the 1D1D recipe, D = C + A B^T), where the
  /// directory or the provider has them.
  std::optional<DenseGemm> gemmF32;
  /// The other dense variants of a kernel directory (bias, per-tensor,
  /// e5m2), where it has them: fgemm_gemm_fp8_nt_variant.
  std::map<DenseRecipe, DenseGemm> variants;
  /// The scale re-layout kernel, loaded by the first fgemm_scales_to_mn_major.
  std::optional<ScaleLayoutKernel> scaleLayout;
};

/// The dense recipes fgemm_gemm_fp8_nt_variant serves, by variant name.
constexpr DenseRecipe kVariantRecipes[] = {
    DenseRecipe::kBias1D2D, DenseRecipe::kPerTensor, DenseRecipe::kE5M2xE4M3,
    DenseRecipe::kE4M3xE5M2};

namespace {

thread_local std::string lastError;

fgemm_status fail(fgemm_status code, std::string message) {
  lastError = std::move(message);
  return code;
}

fgemm_status fromStatus(const Status &status,
                        fgemm_status code = FGEMM_ERROR_RUNTIME) {
  if (status.ok())
    return FGEMM_SUCCESS;
  return fail(code, status.message());
}

/// Makes `wanted` current for the lifetime of the guard and restores the
/// caller's context afterwards (a driver-API caller keeps its own).
class ScopedContext {
public:
  ScopedContext(const Driver &driver, CUcontext wanted) : driver(driver) {
    CUcontext current = nullptr;
    if (driver.cuCtxGetCurrent(&current) != CUDA_SUCCESS)
      return;
    if (current != wanted && driver.cuCtxSetCurrent(wanted) == CUDA_SUCCESS)
      previous = current;
  }
  ~ScopedContext() {
    if (previous)
      driver.cuCtxSetCurrent(*previous);
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

private:
  const Driver &driver;
  std::optional<CUcontext> previous;
};

/// Device pointers TMA reads or writes must be 16-byte aligned.
std::string misaligned(const char *name, const void *pointer,
                       uintptr_t alignment) {
  if (reinterpret_cast<uintptr_t>(pointer) % alignment == 0)
    return "";
  return std::string(name) + " is not " + std::to_string(alignment) +
         "-byte aligned (TMA needs 16-byte aligned global addresses; got " +
         std::to_string(reinterpret_cast<uintptr_t>(pointer)) + ")";
}

fgemm_dense_config toCConfig(const DenseConfiguration &config) {
  return {int32_t(config.blockM),        int32_t(config.blockN),
          config.persistent ? 1 : 0,     int32_t(config.rasterGroup),
          int32_t(config.cluster),       config.multicastB ? 1 : 0,
          int32_t(config.fixedN),        int32_t(config.fixedK),
          int32_t(config.kSplit),        config.launchRaster ? 1 : 0,
          config.prefetchScales ? 1 : 0, config.streamK ? 1 : 0};
}

/// Runs a C provider `call(base, capacity)`: BASE on success, else its
/// message.
Expected<std::string>
askProvider(const std::function<fgemm_status(char *, size_t)> &call) {
  std::string base(4096, '\0');
  fgemm_status status = call(base.data(), base.size());
  base.resize(::strnlen(base.data(), base.size()));
  if (status != FGEMM_SUCCESS)
    return Status::error(base.empty() ? "the kernel provider failed" : base);
  return base;
}

/// The shared tail of the context constructors: retains `device`'s primary
/// context, makes it current while `makeGemm` and `makeGrouped` (or the
/// grouped kernels of `groupedDir`) load or plan the kernels, and hands the
/// caller the new context.
fgemm_status createContext(
    int device, fgemm_context **out,
    const std::function<Expected<DenseGemm>()> &makeGemm,
    const std::string &groupedDir = "",
    const std::function<Expected<GroupedGemm>()> &makeGrouped = nullptr,
    const std::function<Expected<DenseGemm>()> &makeF32 = nullptr,
    const std::function<Expected<DenseGemm>(DenseRecipe)> &makeVariant =
        nullptr) {
  Expected<const Driver *> driver = Driver::get();
  if (!driver.ok())
    return fromStatus(driver.status());
  // retain() makes the primary context current; the caller's current
  // context comes back on every path (a failed create once left PyTorch's
  // thread without one, and DeepGEMM's next call failed).
  CUcontext callerContext = nullptr;
  (void)(*driver)->cuCtxGetCurrent(&callerContext);
  auto restore = [&](fgemm_status status) {
    (void)(*driver)->cuCtxSetCurrent(callerContext);
    return status;
  };
  Expected<PrimaryContext> primary = PrimaryContext::retain(**driver, device);
  if (!primary.ok())
    return restore(fromStatus(primary.status(), FGEMM_ERROR_INVALID_ARGUMENT));
  // A directory with kernels of one family only (dense or M-grouped) is
  // fine; broken kernels are not, and neither is a directory with none.
  auto none = [](const Status &status, const char *what) {
    return status.message().rfind(what, 0) == 0;
  };
  Expected<DenseGemm> gemm = makeGemm();
  if (!gemm.ok() &&
      (groupedDir.empty() || !none(gemm.status(), "no dense kernels")))
    return restore(fromStatus(gemm.status()));
  std::optional<GroupedGemm> grouped;
  if (makeGrouped) {
    Expected<GroupedGemm> made = makeGrouped();
    if (!made.ok())
      return restore(fromStatus(made.status()));
    grouped.emplace(std::move(*made));
  } else if (!groupedDir.empty()) {
    Expected<GroupedGemm> loaded = GroupedGemm::create(groupedDir);
    if (loaded.ok())
      grouped.emplace(std::move(*loaded));
    else if (!none(loaded.status(), "no grouped kernels"))
      return restore(fromStatus(loaded.status()));
    else if (!gemm.ok())
      return restore(fromStatus(
          Status::error("no dense or M-grouped kernels in '" + groupedDir +
                        "' (compile kernels/*.mlir into it, e.g. with "
                        "fgemm-precompile --pack DIR)")));
  }
  // FP32 kernels are optional: a directory without them is fine.
  std::optional<DenseGemm> f32;
  if (makeF32) {
    Expected<DenseGemm> made = makeF32();
    if (made.ok())
      f32.emplace(std::move(*made));
    else if (!none(made.status(), "no dense_1d1d kernels"))
      return restore(fromStatus(made.status()));
  }
  // So are the other dense variants.
  std::map<DenseRecipe, DenseGemm> variants;
  if (makeVariant)
    for (DenseRecipe recipe : kVariantRecipes) {
      Expected<DenseGemm> made = makeVariant(recipe);
      if (made.ok())
        variants.emplace(recipe, std::move(*made));
      else if (!none(made.status(),
                     ("no " + std::string(denseVariant(recipe)) + " kernels")
                         .c_str()))
        return restore(fromStatus(made.status()));
    }
  std::optional<DenseGemm> dense;
  if (gemm.ok())
    dense.emplace(std::move(*gemm));
  *out = new fgemm_context(**driver, std::move(*primary), std::move(dense),
                           std::move(grouped), std::move(f32));
  (*out)->variants = std::move(variants);
  return restore(FGEMM_SUCCESS);
}

CUdeviceptr devicePointer(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

/// A dense problem from the C arguments (no C, no bias).
DenseGemmProblem denseProblem(const void *a, const void *sfa, const void *b,
                              const void *sfb, void *d, int64_t m, int64_t n,
                              int64_t k) {
  DenseGemmProblem problem;
  problem.a = devicePointer(a);
  problem.sfa = devicePointer(sfa);
  problem.b = devicePointer(b);
  problem.sfb = devicePointer(sfb);
  problem.d = devicePointer(d);
  problem.m = m;
  problem.n = n;
  problem.k = k;
  return problem;
}

/// The dense entry points' checks before a launch: a context, the shape,
/// and every pointer non-null and aligned (16 bytes for TMA's operands,
/// `sfaAlignment` / `sfbAlignment` for the scales). `empty`: M or N is 0,
/// nothing to launch.
fgemm_status checkDenseCall(const char *function, const fgemm_context *context,
                            const void *a, const void *sfa, const void *b,
                            const void *sfb, const void *d, int64_t m,
                            int64_t n, int64_t k, uintptr_t sfbAlignment,
                            bool &empty, uintptr_t sfaAlignment = 16) {
  empty = false;
  if (!context)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                std::string(function) + ": context is NULL");
  Status shape = validateDenseGemmShape(m, n, k);
  if (!shape.ok())
    return fromStatus(shape, FGEMM_ERROR_INVALID_ARGUMENT);
  empty = m == 0 || n == 0;
  if (empty)
    return FGEMM_SUCCESS;
  const std::pair<const char *, const void *> pointers[] = {
      {"a", a}, {"sfa", sfa}, {"b", b}, {"sfb", sfb}, {"d", d}};
  for (const auto &[name, pointer] : pointers) {
    if (!pointer)
      return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                  std::string(name) + " is NULL (M = " + std::to_string(m) +
                      ", N = " + std::to_string(n) + " needs it)");
    uintptr_t alignment = pointer == sfb   ? sfbAlignment
                          : pointer == sfa ? sfaAlignment
                                           : 16;
    std::string problem = misaligned(name, pointer, alignment);
    if (!problem.empty())
      return fail(FGEMM_ERROR_INVALID_ARGUMENT, problem);
  }
  return FGEMM_SUCCESS;
}

} // namespace

extern "C" {

int fgemm_api_version(void) { return FGEMM_API_VERSION; }

const char *fgemm_last_error(void) { return lastError.c_str(); }

fgemm_status fgemm_context_create(int device, const char *kernel_dir,
                                  fgemm_context **out) {
  if (!out)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_context_create: out is NULL");
  *out = nullptr;
  if (!kernel_dir || !*kernel_dir)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_context_create: kernel_dir is NULL or empty (a "
                "directory of NAME.cubin + NAME.meta pairs)");
  return createContext(
      device, out, [&] { return DenseGemm::create(kernel_dir); }, kernel_dir,
      nullptr,
      [&] { return DenseGemm::create(kernel_dir, DenseRecipe::k1D1D); },
      [&](DenseRecipe recipe) {
        return DenseGemm::create(kernel_dir, recipe);
      });
}

fgemm_status fgemm_context_create_on_demand(int device,
                                            fgemm_kernel_provider provider,
                                            void *user_data,
                                            fgemm_context **out) {
  if (!out)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_context_create_on_demand: out is NULL");
  *out = nullptr;
  if (!provider)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_context_create_on_demand: provider is NULL");
  DenseGemm::KernelProvider adapter =
      [provider,
       user_data](const DenseConfiguration &config) -> Expected<std::string> {
    fgemm_dense_config c = toCConfig(config);
    return askProvider([&](char *base, size_t capacity) {
      return provider(&c, base, capacity, user_data);
    });
  };
  return createContext(device, out, [&] {
    return DenseGemm::createOnDemand(denseConfigurationSet(),
                                     std::move(adapter));
  });
}

fgemm_status fgemm_context_create_with_provider(int device,
                                                fgemm_variant_provider provider,
                                                void *user_data,
                                                fgemm_context **out) {
  if (!out)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_context_create_with_provider: out is NULL");
  *out = nullptr;
  if (!provider)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_context_create_with_provider: provider is NULL");
  auto ask = [provider, user_data](const char *variant,
                                   const DenseConfiguration &config) {
    fgemm_kernel_request request{variant, toCConfig(config)};
    return askProvider([&](char *base, size_t capacity) {
      return provider(&request, base, capacity, user_data);
    });
  };
  return createContext(
      device, out,
      [&] {
        return DenseGemm::createOnDemand(
            denseConfigurationSet(), [ask](const DenseConfiguration &config) {
              return ask("dense", config);
            });
      },
      "",
      [&] {
        return GroupedGemm::createOnDemand(
            [ask](GroupedLayout layout, const DenseConfiguration &config) {
              return ask(groupedVariant(layout), config);
            });
      },
      [&] {
        return DenseGemm::createOnDemand(
            denseConfigurationSet(DenseRecipe::k1D1D),
            [ask](const DenseConfiguration &config) {
              return ask(denseVariant(DenseRecipe::k1D1D), config);
            },
            DenseRecipe::k1D1D);
      },
      [&](DenseRecipe recipe) {
        return DenseGemm::createOnDemand(
            denseConfigurationSet(recipe),
            [ask, recipe](const DenseConfiguration &config) {
              return ask(denseVariant(recipe), config);
            },
            recipe);
      });
}

void fgemm_context_destroy(fgemm_context *context) {
  if (!context)
    return;
  // Modules unload in the context they were loaded in.
  ScopedContext scope(*context->driver, context->primary.get());
  delete context;
}

fgemm_status fgemm_context_set_num_sms(fgemm_context *context, int num_sms) {
  if (!context)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_context_set_num_sms: context is NULL");
  Status status = Status::success();
  if (context->gemm)
    status = context->gemm->setSmLimit(num_sms);
  if (status.ok() && context->grouped)
    status = context->grouped->setSmLimit(num_sms);
  if (status.ok() && context->gemmF32)
    status = context->gemmF32->setSmLimit(num_sms);
  for (auto &[recipe, gemm] : context->variants)
    if (status.ok())
      status = gemm.setSmLimit(num_sms);
  return fromStatus(status, FGEMM_ERROR_INVALID_ARGUMENT);
}

fgemm_status fgemm_context_specialize(fgemm_context *context, int enable) {
  if (!context)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_context_specialize: context is NULL");
  if (enable < 0 || enable > 2)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_context_specialize: enable is " +
                    std::to_string(enable) +
                    "; allowed: 0 (off), 1 (on), 2 (on, compiled in the "
                    "background)");
  bool on = enable != 0, background = enable == 2;
  Status status = Status::success();
  if (context->gemm)
    status = context->gemm->specializeShapes(on, background);
  if (status.ok() && context->grouped)
    status = context->grouped->specializeShapes(on, background);
  if (status.ok() && context->gemmF32)
    status = context->gemmF32->specializeShapes(on, background);
  for (auto &[recipe, gemm] : context->variants)
    if (status.ok())
      status = gemm.specializeShapes(on, background);
  return fromStatus(status, FGEMM_ERROR_INVALID_ARGUMENT);
}

int fgemm_context_num_sms(const fgemm_context *context) {
  if (!context)
    return 0;
  return context->gemm ? context->gemm->smCount() : context->grouped->smCount();
}

int fgemm_context_num_kernels(const fgemm_context *context) {
  return context && context->gemm
             ? static_cast<int>(context->gemm->kernels().size())
             : 0;
}

fgemm_status fgemm_gemm_fp8_nt(fgemm_context *context, const void *a,
                               const void *sfa, const void *b, const void *sfb,
                               void *d, int64_t m, int64_t n, int64_t k,
                               void *stream) {
  // sfb is read with 4-byte loads by the math threads, the rest by TMA.
  bool empty;
  if (fgemm_status status = checkDenseCall("fgemm_gemm_fp8_nt", context, a, sfa,
                                           b, sfb, d, m, n, k, 4, empty);
      status != FGEMM_SUCCESS || empty)
    return status;
  if (!context->gemm)
    return fail(FGEMM_ERROR_RUNTIME,
                "fgemm_gemm_fp8_nt: the context has no dense kernels "
                "(compile kernels/sm90_fp8_gemm_1d2d.mlir into its "
                "directory: fgemm-precompile kernels/sm90_fp8_gemm_1d2d.mlir "
                "--pack DIR)");
  ScopedContext scope(*context->driver, context->primary.get());
  return fromStatus(context->gemm->run(devicePointer(a), devicePointer(sfa),
                                       devicePointer(b), devicePointer(sfb),
                                       devicePointer(d), m, n, k,
                                       static_cast<CUstream>(stream)));
}

fgemm_status fgemm_gemm_fp8_nt_fp32(fgemm_context *context, const void *a,
                                    const void *sfa, const void *b,
                                    const void *sfb, const void *c, void *d,
                                    int64_t m, int64_t n, int64_t k,
                                    void *stream) {
  // SFB comes by TMA here, like SFA.
  bool empty;
  if (fgemm_status status = checkDenseCall("fgemm_gemm_fp8_nt_fp32", context, a,
                                           sfa, b, sfb, d, m, n, k, 16, empty);
      status != FGEMM_SUCCESS || empty)
    return status;
  if (reinterpret_cast<uintptr_t>(c) % 8 != 0)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "c is not 8-byte aligned (the kernels read C in pairs of "
                "floats; got " +
                    std::to_string(reinterpret_cast<uintptr_t>(c)) + ")");
  if (!context->gemmF32)
    return fail(FGEMM_ERROR_RUNTIME,
                "fgemm_gemm_fp8_nt_fp32: the context has no FP32 (1D1D) "
                "kernels (compile them into its directory: fgemm-precompile "
                "kernels/sm90_fp8_gemm_1d1d.mlir --set dense_1d1d --pack "
                "DIR)");
  ScopedContext scope(*context->driver, context->primary.get());
  auto cuStream = static_cast<CUstream>(stream);
  DenseGemmProblem problem = denseProblem(a, sfa, b, sfb, d, m, n, k);
  problem.c = c ? devicePointer(c) : problem.d;
  // Without C the kernel accumulates into a zeroed D.
  if (!c) {
    CUresult zeroed = context->driver->cuMemsetD32Async(
        problem.d, 0, size_t(m) * size_t(n), cuStream);
    if (zeroed != CUDA_SUCCESS)
      return fromStatus(
          cuError(zeroed, "cuMemsetD32Async(d, 0)", __FILE__, __LINE__));
  }
  return fromStatus(context->gemmF32->run(problem, cuStream));
}

fgemm_status fgemm_gemm_fp8_nt_variant(fgemm_context *context,
                                       const char *variant, const void *a,
                                       const void *sfa, const void *b,
                                       const void *sfb, const void *bias,
                                       void *d, int64_t m, int64_t n, int64_t k,
                                       void *stream) {
  const char *function = "fgemm_gemm_fp8_nt_variant";
  std::optional<DenseRecipe> recipe;
  std::string names;
  for (DenseRecipe candidate : kVariantRecipes) {
    names += (names.empty() ? "" : ", ") + std::string(denseVariant(candidate));
    if (variant && std::string(variant) == denseVariant(candidate))
      recipe = candidate;
  }
  if (!recipe)
    return fail(
        FGEMM_ERROR_INVALID_ARGUMENT,
        std::string(function) + ": variant '" + (variant ? variant : "(null)") +
            "' is not a dense variant it serves (allowed: " + names + ")");
  // Per-tensor scales are one f32 each; the others' SFB is read per
  // 128x128 block, a float at a time.
  bool perTensor = *recipe == DenseRecipe::kPerTensor;
  bool empty;
  if (fgemm_status status =
          checkDenseCall(function, context, a, sfa, b, sfb, d, m, n, k, 4,
                         empty, perTensor ? 4 : 16);
      status != FGEMM_SUCCESS || empty)
    return status;
  bool wantsBias = *recipe == DenseRecipe::kBias1D2D;
  if (wantsBias != (bias != nullptr))
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                wantsBias ? "bias is NULL: dense_bias computes D = A B^T + "
                            "bias (bf16, N elements)"
                          : "bias is given, but only dense_bias adds one");
  auto found = context->variants.find(*recipe);
  if (found == context->variants.end())
    return fail(FGEMM_ERROR_RUNTIME,
                std::string(function) + ": the context has no " + variant +
                    " kernels (compile them into its directory: "
                    "fgemm-precompile kernels/<its DSL file> --set " +
                    variant + " --pack DIR; kernels/README.md)");
  ScopedContext scope(*context->driver, context->primary.get());
  DenseGemmProblem problem = denseProblem(a, sfa, b, sfb, d, m, n, k);
  problem.bias = devicePointer(bias);
  return fromStatus(found->second.run(problem, static_cast<CUstream>(stream)));
}

int fgemm_context_num_grouped_kernels(const fgemm_context *context) {
  return context && context->grouped
             ? static_cast<int>(context->grouped->kernels().size())
             : 0;
}

} // extern "C"

namespace {
/// The checks and the launch both grouped entry points share.
fgemm_status runGrouped(const char *function, fgemm_context *context,
                        const GroupedGemmProblem &problem, CUstream stream) {
  if (!context)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                std::string(function) + ": context is NULL");
  Status shape = validateGroupedGemmShape(problem);
  if (!shape.ok())
    return fromStatus(std::move(shape).withContext(function),
                      FGEMM_ERROR_INVALID_ARGUMENT);
  if (problem.m == 0 || problem.n == 0 || problem.groups == 0)
    return FGEMM_SUCCESS;
  const char *rowsName = problem.layout == GroupedLayout::Masked ? "masked_m"
                         : problem.layout == GroupedLayout::Contiguous
                             ? "m_indices"
                             : "group_ends";
  const std::pair<const char *, CUdeviceptr> pointers[] = {
      {"a", problem.a}, {"sfa", problem.sfa},
      {"b", problem.b}, {"sfb", problem.sfb},
      {"d", problem.d}, {rowsName, problem.groupRows}};
  for (const auto &[name, pointer] : pointers) {
    const void *raw = reinterpret_cast<const void *>(uintptr_t(pointer));
    if (!pointer)
      return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": " + name + " is NULL");
    // sfb and the int32 row arrays are read with 4-byte loads, the rest by
    // TMA (and D's cut tiles by 16-byte stores).
    bool words = pointer == problem.sfb || pointer == problem.groupRows;
    std::string problemText = misaligned(name, raw, words ? 4 : 16);
    if (!problemText.empty())
      return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                  std::string(function) + ": " + problemText);
  }
  if (!context->grouped)
    return fail(FGEMM_ERROR_RUNTIME,
                std::string(function) +
                    ": the context has no M-grouped kernels (compile "
                    "kernels/sm90_m_grouped_fp8_gemm_*_1d2d.mlir into its "
                    "kernel directory: fgemm-precompile --pack)");
  ScopedContext scope(*context->driver, context->primary.get());
  return fromStatus(context->grouped->run(problem, stream));
}

/// A grouped problem from the C arguments (`m`: the masked layout's rows per
/// group, the contiguous layouts' total rows).
GroupedGemmProblem groupedProblem(GroupedLayout layout, const void *a,
                                  const void *sfa, const void *b,
                                  const void *sfb, void *d,
                                  const int32_t *groupRows, int64_t m,
                                  int64_t n, int64_t k, int64_t groups) {
  GroupedGemmProblem problem;
  problem.layout = layout;
  problem.a = devicePointer(a);
  problem.sfa = devicePointer(sfa);
  problem.b = devicePointer(b);
  problem.sfb = devicePointer(sfb);
  problem.d = devicePointer(d);
  problem.groupRows = devicePointer(groupRows);
  problem.m = m;
  problem.n = n;
  problem.k = k;
  problem.groups = groups;
  return problem;
}
} // namespace

extern "C" {

fgemm_status fgemm_m_grouped_gemm_fp8_nt_contiguous(
    fgemm_context *context, const void *a, const void *sfa, const void *b,
    const void *sfb, void *d, const int32_t *m_indices, int64_t m, int64_t n,
    int64_t k, int64_t num_groups, void *stream) {
  return runGrouped("fgemm_m_grouped_gemm_fp8_nt_contiguous", context,
                    groupedProblem(GroupedLayout::Contiguous, a, sfa, b, sfb, d,
                                   m_indices, m, n, k, num_groups),
                    static_cast<CUstream>(stream));
}

fgemm_status fgemm_m_grouped_gemm_fp8_nt_contiguous_psum(
    fgemm_context *context, const void *a, const void *sfa, const void *b,
    const void *sfb, void *d, const int32_t *group_ends, int64_t m, int64_t n,
    int64_t k, int64_t num_groups, void *stream) {
  return runGrouped("fgemm_m_grouped_gemm_fp8_nt_contiguous_psum", context,
                    groupedProblem(GroupedLayout::ContiguousPsum, a, sfa, b,
                                   sfb, d, group_ends, m, n, k, num_groups),
                    static_cast<CUstream>(stream));
}

fgemm_status fgemm_m_grouped_gemm_fp8_nt_contiguous_unpadded(
    fgemm_context *context, const void *a, const void *sfa, const void *b,
    const void *sfb, void *d, const int32_t *group_ends, int64_t m, int64_t n,
    int64_t k, int64_t num_groups, void *stream) {
  return runGrouped("fgemm_m_grouped_gemm_fp8_nt_contiguous_unpadded", context,
                    groupedProblem(GroupedLayout::ContiguousUnpadded, a, sfa, b,
                                   sfb, d, group_ends, m, n, k, num_groups),
                    static_cast<CUstream>(stream));
}

fgemm_status fgemm_m_grouped_gemm_fp8_nt_masked(
    fgemm_context *context, const void *a, const void *sfa, const void *b,
    const void *sfb, void *d, const int32_t *masked_m, int64_t num_groups,
    int64_t max_m, int64_t n, int64_t k, int64_t expected_m, void *stream) {
  GroupedGemmProblem problem =
      groupedProblem(GroupedLayout::Masked, a, sfa, b, sfb, d, masked_m, max_m,
                     n, k, num_groups);
  problem.expectedM = expected_m;
  return runGrouped("fgemm_m_grouped_gemm_fp8_nt_masked", context, problem,
                    static_cast<CUstream>(stream));
}

fgemm_status fgemm_m_grouped_validate_m_indices(fgemm_context *context,
                                                const int32_t *m_indices,
                                                int64_t m, int64_t num_groups) {
  if (!context)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_m_grouped_validate_m_indices: context is NULL");
  ScopedContext scope(*context->driver, context->primary.get());
  return fromStatus(
      validateContiguousIndicesOnDevice(devicePointer(m_indices), m, num_groups)
          .withContext("fgemm_m_grouped_validate_m_indices"),
      FGEMM_ERROR_INVALID_ARGUMENT);
}

fgemm_status fgemm_m_grouped_validate_group_ends(fgemm_context *context,
                                                 const int32_t *group_ends,
                                                 int64_t num_groups, int64_t m,
                                                 int64_t alignment) {
  if (!context)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_m_grouped_validate_group_ends: context is NULL");
  ScopedContext scope(*context->driver, context->primary.get());
  return fromStatus(
      (alignment == 1 || alignment == 128
           ? validateGroupEndsOnDevice(devicePointer(group_ends), num_groups, m,
                                       alignment)
           : Status::error("alignment = " + std::to_string(alignment) +
                           " (allowed: 128 for the psum form, 1 unpadded)"))
          .withContext("fgemm_m_grouped_validate_group_ends"),
      FGEMM_ERROR_INVALID_ARGUMENT);
}

fgemm_status fgemm_scales_to_mn_major(fgemm_context *context, const float *src,
                                      int64_t groups, int64_t rows,
                                      int64_t cols, int64_t stride_group,
                                      int64_t stride_row, int64_t stride_col,
                                      float *dst, void *stream) {
  if (!context)
    return fail(FGEMM_ERROR_INVALID_ARGUMENT,
                "fgemm_scales_to_mn_major: context is NULL");
  const ScalesToMnMajor copy{
      devicePointer(src), devicePointer(dst), groups,    rows, cols,
      stride_group,       stride_row,         stride_col};
  if (Status status = copy.validate(); !status.ok())
    return fromStatus(std::move(status).withContext("fgemm_scales_to_mn_major"),
                      FGEMM_ERROR_INVALID_ARGUMENT);
  if (groups == 0 || rows == 0 || cols == 0)
    return FGEMM_SUCCESS;
  ScopedContext scope(*context->driver, context->primary.get());
  if (!context->scaleLayout) {
    Expected<ScaleLayoutKernel> kernel =
        ScaleLayoutKernel::load(*context->driver);
    if (!kernel.ok())
      return fromStatus(
          kernel.takeStatus().withContext("fgemm_scales_to_mn_major"));
    context->scaleLayout.emplace(std::move(*kernel));
  }
  return fromStatus(
      context->scaleLayout->run(copy, static_cast<CUstream>(stream))
          .withContext("fgemm_scales_to_mn_major"));
}

} // extern "C"
