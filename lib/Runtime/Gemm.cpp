//===- Gemm.cpp - The dense FP8 GEMM entry point ----------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Gemm.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <tuple>

using namespace fgemm;

static std::string hexPointer(CUdeviceptr pointer) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx",
                static_cast<unsigned long long>(pointer));
  return text;
}

Status fgemm::validateDenseGemmShape(int64_t m, int64_t n, int64_t k) {
  const std::pair<const char *, int64_t> dims[] = {{"M", m}, {"N", n}, {"K", k}};
  for (const auto &[name, value] : dims) {
    if (value < 0)
      return Status::error(std::string(name) + " = " + std::to_string(value) +
                           " is negative (M, N and K must be >= 0)");
    if (value > kMaxGemmDim)
      return Status::error(std::string(name) + " = " + std::to_string(value) +
                           " is too large (at most 2^31-1 = " +
                           std::to_string(kMaxGemmDim) +
                           ": TMA coordinates are 32-bit)");
  }
  if (n % 8 != 0)
    return Status::error("N = " + std::to_string(n) +
                         " is not a multiple of 8 (D's bf16 rows must be a "
                         "multiple of 16 bytes for TMA; allowed: N % 8 == 0)");
  if (k == 0)
    return Status::error("K = 0: nothing to reduce over (allowed: K > 0, "
                         "K % 16 == 0)");
  if (k % 16 != 0)
    return Status::error("K = " + std::to_string(k) +
                         " is not a multiple of 16 (A's and B's e4m3 rows "
                         "must be a multiple of 16 bytes for TMA; allowed: "
                         "K % 16 == 0)");
  return Status::success();
}

Status fgemm::validateDenseGemmArgs(const DenseGemmProblem &problem) {
  FGEMM_RETURN_IF_ERROR(validateDenseGemmShape(problem.m, problem.n, problem.k));
  if (isEmptyGemm(problem))
    return Status::success();
  const std::pair<const char *, CUdeviceptr> pointers[] = {
      {"A", problem.a},
      {"SFA", problem.sfa},
      {"B", problem.b},
      {"SFB", problem.sfb},
      {"D", problem.d}};
  for (const auto &[name, pointer] : pointers) {
    if (pointer == 0)
      return Status::error(std::string("pointer ") + name + " is null");
    if (pointer % 16 != 0)
      return Status::error(std::string("pointer ") + name + " (" +
                           hexPointer(pointer) +
                           ") is not 16-byte aligned (TMA needs 16-byte "
                           "aligned base addresses)");
  }
  return Status::success();
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

double fgemm::estimateTileRate(uint32_t blockM, uint32_t blockN) {
  // rate = a * bn / (bn + c) (TFLOPS per SM): two math warpgroups (block_m
  // 128) issue twice the WGMMA work, and wider tiles amortize the loads and
  // the promotion. Fitted to the per-configuration table of docs/PERF.md.
  double a = blockM >= 128 ? 10.57 : 3.91, c = blockM >= 128 ? 63.6 : 29.0;
  // Tiles that straddle 128-column B-scale blocks select a scale per
  // fragment: 128x96 measured 10% under the curve.
  double straddle = 128 % blockN == 0 ? 1.0 : 0.9;
  return straddle * a * blockN / (blockN + c);
}

Expected<size_t> fgemm::selectDenseKernel(const std::vector<KernelMeta> &kernels,
                                          int64_t m, int64_t n, int64_t k,
                                          int smCount) {
  if (kernels.empty())
    return Status::error("no kernels loaded");
  const int64_t sms = std::max(smCount, 1);
  // Lexicographic cost; the smallest wins and the index breaks ties.
  using Cost = std::tuple<int, int, int64_t, int, int64_t, int64_t, size_t>;
  bool found = false;
  Cost best;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelMeta &meta = kernels[i];
    if ((meta.fixedN && meta.fixedN != n) || (meta.fixedK && meta.fixedK != k))
      continue;
    int genericDims = (meta.fixedN ? 0 : 1) + (meta.fixedK ? 0 : 1);
    // For M <= 64 a 128-row tile computes half empty rows while streaming
    // the same B: the 64-row kernels measured faster on every such shape.
    int wastedRows = m <= 64 && meta.blockM > 64 ? 1 : 0;
    int64_t tiles = ceilDiv(std::max<int64_t>(m, 1), meta.blockM) *
                    ceilDiv(std::max<int64_t>(n, 1), meta.blockN);
    int64_t waves = ceilDiv(tiles, sms);
    // Estimated time: waves x one tile's work / the rate an SM sustains on
    // that tile shape (estimateTileRate, fitted to H100 measurements).
    double time = double(waves) * meta.blockM * meta.blockN /
                  estimateTileRate(meta.blockM, meta.blockN);
    // A persistent CTA overlaps a tile's epilogue with the next tile's loads:
    // measured 1.2x faster at K <= 2048 with several tiles per CTA, 5% slower
    // at K >= 7168 (docs/PERF.md).
    if (meta.persistent() && waves > 1)
      time *= k <= 4096 ? 1.0 / 1.2 : 1.05;
    int isPersistent = meta.persistent() ? 1 : 0; // equal estimates: the simpler grid
    Cost cost{genericDims, wastedRows, int64_t(time * 1000), isPersistent, -int64_t(meta.blockN),
              -int64_t(meta.stages), i};
    if (!found || cost < best) {
      best = cost;
      found = true;
    }
  }
  if (found)
    return std::get<6>(best);
  std::string specialized;
  for (const KernelMeta &meta : kernels)
    specialized += (specialized.empty() ? "" : ", ") + meta.kernel + " (N=" +
                   (meta.fixedN ? std::to_string(meta.fixedN) : "any") +
                   ", K=" + (meta.fixedK ? std::to_string(meta.fixedK) : "any") +
                   ")";
  return Status::error("no loaded kernel accepts N = " + std::to_string(n) +
                       ", K = " + std::to_string(k) + "; loaded: " +
                       specialized);
}

LaunchDims fgemm::denseLaunchDims(const KernelMeta &meta, int64_t m,
                                  int64_t n, int smCount) {
  LaunchDims dims;
  int64_t tilesN = ceilDiv(n, meta.blockN), tilesM = ceilDiv(m, meta.blockM);
  if (meta.persistent()) {
    // CTA p of P runs tiles p, p + P, ... in row-major tile order.
    int64_t ctas = std::min<int64_t>(tilesM * tilesN, std::max(smCount, 1));
    dims.grid[0] = static_cast<uint32_t>(std::max<int64_t>(ctas, 1));
  } else {
    // A cluster spans `cluster` CTAs along x; the extra CTA of an odd count
    // computes a tile wholly past N, whose stores TMA drops.
    int64_t cluster = std::max<uint32_t>(meta.cluster, 1);
    dims.grid[0] = static_cast<uint32_t>(ceilDiv(tilesN, cluster) * cluster);
    dims.grid[1] = static_cast<uint32_t>(tilesM);
  }
  dims.block[0] = meta.threads;
  dims.sharedBytes = meta.smemBytes;
  dims.cluster = meta.cluster;
  return dims;
}

//===----------------------------------------------------------------------===//
// DenseGemm
//===----------------------------------------------------------------------===//

Expected<DenseGemm> DenseGemm::create(const std::string &directory) {
  Expected<const Driver *> driver = Driver::get();
  if (!driver.ok())
    return driver.takeStatus();
  const Driver &cu = **driver;
  CUcontext context = nullptr;
  FGEMM_CU_CHECK(cu.cuCtxGetCurrent(&context));
  Expected<DeviceInfo> device = currentDevice(cu);
  if (!device.ok())
    return device.takeStatus();
  FGEMM_RETURN_IF_ERROR(checkHopper(*device));

  namespace fs = std::filesystem;
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error)
    return Status::error("cannot list kernel directory '" + directory +
                         "': " + error.message());
  std::set<std::string> cubins, metas;
  for (; it != fs::directory_iterator(); it.increment(error)) {
    if (error)
      break;
    const fs::path &path = it->path();
    if (path.extension() == ".cubin")
      cubins.insert(path.stem().string());
    else if (path.extension() == ".meta")
      metas.insert(path.stem().string());
  }
  if (error)
    return Status::error("cannot list kernel directory '" + directory +
                         "': " + error.message());
  for (const std::string &stem : metas)
    if (!cubins.count(stem))
      return Status::error("'" + directory + "/" + stem + ".meta' has no " +
                           stem + ".cubin beside it");
  for (const std::string &stem : cubins)
    if (!metas.count(stem))
      return Status::error("'" + directory + "/" + stem + ".cubin' has no " +
                           stem + ".meta beside it (fgemmc --emit=cubin "
                           "writes both; remove stray cubins)");
  if (cubins.empty())
    return Status::error("no compiled kernels (NAME.cubin + NAME.meta) in '" +
                         directory +
                         "'; scripts/compile-kernels.sh writes them to "
                         "OUT/<kernel>/");

  DenseGemm gemm(cu, context, std::move(*device));
  for (const std::string &stem : cubins) {
    std::string base = (fs::path(directory) / stem).string();
    Expected<KernelMeta> meta = readKernelMeta(base + ".meta");
    if (!meta.ok())
      return meta.takeStatus();
    Expected<Module> module = Module::loadFile(cu, base + ".cubin");
    if (!module.ok())
      return module.takeStatus();
    Expected<CUfunction> function = module->function(meta->kernel);
    if (!function.ok())
      return function.takeStatus();
    FGEMM_RETURN_IF_ERROR(prepareFunction(cu, *function, meta->kernel,
                                          meta->smemBytes, meta->threads));
    gemm.metas.push_back(std::move(*meta));
    gemm.loaded.push_back({base + ".cubin", std::move(*module), *function});
  }
  return gemm;
}

Expected<DenseGemm::Prepared>
DenseGemm::prepare(const DenseGemmProblem &problem) const {
  FGEMM_RETURN_IF_ERROR(validateDenseGemmArgs(problem));
  Prepared prepared;
  if (isEmptyGemm(problem)) {
    prepared.empty = true;
    return prepared;
  }
  // Modules belong to the context they were loaded in.
  CUcontext current = nullptr;
  FGEMM_CU_CHECK(driver->cuCtxGetCurrent(&current));
  if (current != context)
    return Status::error("the current CUDA context is not the one the "
                         "DenseGemm was created in (make it current first)");

  Expected<size_t> index = selectDenseKernel(metas, problem.m, problem.n,
                                             problem.k, deviceInfo.smCount);
  if (!index.ok())
    return index.takeStatus();
  const KernelMeta &meta = metas[*index];
  prepared.kernel = *index;
  prepared.dims =
      denseLaunchDims(meta, problem.m, problem.n, deviceInfo.smCount);
  if (!meta.persistent() && ceilDiv(problem.m, meta.blockM) > 65535)
    return Status::error("M = " + std::to_string(problem.m) +
                         " needs more than 65535 row blocks of " +
                         std::to_string(meta.blockM) + " (grid y limit)");
  FGEMM_RETURN_IF_ERROR(validateLaunchDims(prepared.dims));

  Expected<DenseTensorMapDescs> descs = computeDenseTensorMaps(meta, problem);
  if (!descs.ok())
    return descs.takeStatus();
  const std::pair<const TensorMapDesc *, CUtensorMap *> maps[] = {
      {&descs->a, &prepared.params.a},
      {&descs->b, &prepared.params.b},
      {&descs->sfa, &prepared.params.sfa},
      {&descs->d, &prepared.params.d}};
  for (const auto &[desc, map] : maps) {
    Expected<CUtensorMap> encoded = encodeTensorMap(*driver, *desc);
    if (!encoded.ok())
      return encoded.takeStatus();
    *map = *encoded;
  }
  prepared.params.sfb = reinterpret_cast<const float *>(problem.sfb);
  prepared.params.m = static_cast<uint32_t>(problem.m);
  prepared.params.n = static_cast<uint32_t>(problem.n);
  prepared.params.k = static_cast<uint32_t>(problem.k);
  return prepared;
}

Status DenseGemm::launch(const Prepared &prepared, CUstream stream) const {
  if (prepared.empty)
    return Status::success();
  if (prepared.kernel >= loaded.size())
    return Status::error("prepared launch names kernel " +
                         std::to_string(prepared.kernel) + " of " +
                         std::to_string(loaded.size()));
  void *pointers[8];
  prepared.params.fillPointers(pointers);
  Status status = launchKernel(*driver, loaded[prepared.kernel].function,
                               prepared.dims, stream, pointers);
  if (!status.ok())
    return std::move(status).withContext("launching " +
                                         metas[prepared.kernel].kernel);
  return Status::success();
}

Status DenseGemm::run(CUdeviceptr a, CUdeviceptr sfa, CUdeviceptr b,
                      CUdeviceptr sfb, CUdeviceptr d, int64_t m, int64_t n,
                      int64_t k, CUstream stream) const {
  DenseGemmProblem problem;
  problem.a = a;
  problem.sfa = sfa;
  problem.b = b;
  problem.sfb = sfb;
  problem.d = d;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  Expected<Prepared> prepared = prepare(problem);
  if (!prepared.ok())
    return prepared.takeStatus();
  return launch(*prepared, stream);
}
