//===- Launch.cpp - Launching a kernel by its description -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Launch.h"
#include "Runtime/Workspace.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <tuple>

using namespace fgemm;

static std::string hexPointer(CUdeviceptr pointer) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx",
                static_cast<unsigned long long>(pointer));
  return text;
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

//===----------------------------------------------------------------------===//
// KernelParamBuffer
//===----------------------------------------------------------------------===//

KernelParamBuffer::KernelParamBuffer(const KernelParamBuffer &other)
    : storage(other.storage), used(other.used), offsets(other.offsets),
      sizes(other.sizes) {
  rebuildPointers();
}

KernelParamBuffer &
KernelParamBuffer::operator=(const KernelParamBuffer &other) {
  if (this != &other) {
    storage = other.storage;
    used = other.used;
    offsets = other.offsets;
    sizes = other.sizes;
    rebuildPointers();
  }
  return *this;
}

void KernelParamBuffer::append(const void *value, size_t size,
                               size_t alignment) {
  size_t at = (used + alignment - 1) / alignment * alignment;
  size_t end = at + size;
  // Chunks are 64-byte aligned, so offsets aligned within the buffer are
  // aligned in memory.
  if (end > storage.size() * sizeof(Chunk))
    storage.resize((end + sizeof(Chunk) - 1) / sizeof(Chunk), Chunk{});
  std::memcpy(storage.front().bytes + at, value, size);
  used = end;
  offsets.push_back(at);
  sizes.push_back(size);
  rebuildPointers();
}

const unsigned char *KernelParamBuffer::bytes() const {
  return storage.empty() ? nullptr : storage.front().bytes;
}

void KernelParamBuffer::rebuildPointers() {
  pointerArray.clear();
  for (size_t offset : offsets)
    pointerArray.push_back(storage.front().bytes + offset);
}

//===----------------------------------------------------------------------===//
// Pure launch planning
//===----------------------------------------------------------------------===//

std::string fgemm::argLabel(const KernelBindings &bindings, size_t arg) {
  std::string label = "arg." + std::to_string(arg);
  if (arg < bindings.argNames.size() && !bindings.argNames[arg].empty())
    label += " (" + bindings.argNames[arg] + ")";
  return label;
}

static std::string dimList(const KernelMeta &meta) {
  std::string list;
  for (const std::string &name : meta.dims)
    list += (list.empty() ? "" : ",") + name;
  return list;
}

Expected<std::vector<int64_t>>
fgemm::bindDims(const KernelMeta &meta,
                const std::vector<std::pair<std::string, int64_t>> &dims) {
  std::vector<int64_t> values(meta.dims.size(), -1);
  std::vector<bool> bound(meta.dims.size(), false);
  for (const auto &[name, value] : dims) {
    int index = meta.dimIndex(name);
    if (index < 0)
      return Status::error("the launch binds dimension '" + name +
                           "', which kernel '" + meta.kernel +
                           "' does not have (dims: " + dimList(meta) + ")");
    if (bound[size_t(index)])
      return Status::error("dimension '" + name + "' is bound twice");
    if (value < 0 || value > kMaxDimValue)
      return Status::error(
          "dimension " + name + " = " + std::to_string(value) +
          " is out of range (allowed: 0 to 2^31-1 = " +
          std::to_string(kMaxDimValue) +
          ": TMA coordinates and the kernels' sizes are 32-bit signed)");
    bound[size_t(index)] = true;
    values[size_t(index)] = value;
  }
  for (size_t i = 0; i < meta.dims.size(); ++i)
    if (!bound[i])
      return Status::error("no value for dimension '" + meta.dims[i] +
                           "' of kernel '" + meta.kernel +
                           "' (dims: " + dimList(meta) + ")");
  // A specialized kernel folded the value into its code: any other would
  // compute garbage.
  const std::tuple<const char *, const char *, uint32_t> fixed[] = {
      {"n", "fixed_n", meta.fixedN}, {"k", "fixed_k", meta.fixedK}};
  for (const auto &[name, key, value] : fixed) {
    int index = meta.dimIndex(name);
    if (value && index >= 0 && values[size_t(index)] != int64_t(value))
      return Status::error("kernel '" + meta.kernel + "' (" +
                           meta.configName() + ") is specialized for " + name +
                           " = " + std::to_string(value) + " (" + key +
                           ") and cannot run " + name + " = " +
                           std::to_string(values[size_t(index)]));
  }
  return values;
}

std::vector<int64_t> fgemm::countTiles(const KernelMeta &meta,
                                       const std::vector<int64_t> &dimValues) {
  std::vector<int64_t> counts;
  for (const TileFactor &tile : meta.tiles) {
    int index = meta.dimIndex(tile.dim);
    int64_t value = index >= 0 && size_t(index) < dimValues.size()
                        ? dimValues[size_t(index)]
                        : 0;
    counts.push_back(
        ceilDiv(std::max<int64_t>(value, 0), std::max<int64_t>(tile.block, 1)));
  }
  return counts;
}

Expected<LaunchDims>
fgemm::computeLaunchDims(const KernelMeta &meta,
                         const std::vector<int64_t> &dimValues, int smCount) {
  std::vector<int64_t> counts = countTiles(meta, dimValues);
  for (int64_t count : counts)
    if (count == 0)
      return Status::error("kernel '" + meta.kernel +
                           "': no grid for an empty output");
  LaunchDims dims;
  int64_t cluster = std::max<int64_t>(meta.cluster, 1);
  if (meta.streamK()) {
    // Every SM (in whole clusters): the kernel splits the tiles of its last
    // partial wave into pieces for all of them (one or fewer tiles per SM
    // included).
    dims.grid[0] = static_cast<uint32_t>(
        std::max<int64_t>(smCount / cluster, 1) * cluster);
  } else if (meta.persistent()) {
    // CTA p of P runs tiles p, p + P, ... of all the tiles (x rounded up to
    // whole clusters): at most one CTA per SM, and whole clusters, so that
    // the CTAs of a cluster run the same number of tiles. The product
    // saturates at the SM count, so it cannot overflow.
    int64_t sms = std::max<int64_t>(smCount, cluster), ctas = 1;
    for (size_t i = 0; i < counts.size(); ++i) {
      int64_t count =
          i == 0 ? ceilDiv(counts[i], cluster) * cluster : counts[i];
      ctas = std::min(ctas * std::min(count, sms), sms);
    }
    dims.grid[0] = static_cast<uint32_t>(ctas / cluster * cluster);
  } else {
    const char *axes = "xyz";
    const int64_t limits[3] = {kMaxDimValue, 65535, 65535};
    for (size_t i = 0; i < counts.size(); ++i) {
      int64_t count = counts[i];
      // A cluster spans `cluster` CTAs along x; the extra CTAs of a count
      // that is not a multiple compute tiles wholly out of bounds, whose
      // stores TMA drops.
      if (i == 0)
        count = ceilDiv(count, cluster) * cluster * meta.kSplit;
      if (count > limits[i]) {
        const TileFactor &tile = meta.tiles[i];
        return Status::error(
            "kernel '" + meta.kernel + "': grid " + axes[i] + " = " +
            std::to_string(count) + " (tiles " + tile.dim + "/" +
            std::to_string(tile.block) + " for " + tile.dim + " = " +
            std::to_string(dimValues[size_t(meta.dimIndex(tile.dim))]) +
            ") exceeds the limit of " + std::to_string(limits[i]));
      }
      dims.grid[i] = static_cast<uint32_t>(count);
    }
  }
  dims.block[0] = meta.threads;
  dims.sharedBytes = meta.smemBytes;
  // A kernel of single CTAs launches without a cluster attribute: the
  // cluster launch path (even for clusters of one) placed DeepGEMM's 64x64
  // kernel so that it ran 12% slower at 128x4096x7168 on the H200
  // (docs/PERF.md, twelfth session).
  // A K-split tile's CTAs are one cluster (k_split consecutive along x).
  uint32_t clusterSize = std::max<uint32_t>(meta.cluster, 1) * meta.kSplit;
  dims.cluster = clusterSize > 1 ? clusterSize : 0;
  FGEMM_RETURN_IF_ERROR(validateLaunchDims(dims));
  return dims;
}

Status fgemm::validateArgPointers(const KernelMeta &meta,
                                  const KernelBindings &bindings) {
  if (bindings.args.size() != meta.args.size())
    return Status::error(
        "the launch binds " + std::to_string(bindings.args.size()) +
        " argument pointer(s) but kernel '" + meta.kernel + "' has " +
        std::to_string(meta.args.size()) + " argument(s)");
  for (const KernelParam &param : meta.params) {
    if (param.kind == KernelParam::Kind::Dim ||
        param.kind == KernelParam::Kind::Workspace ||
        param.kind == KernelParam::Kind::RasterGroup)
      continue;
    CUdeviceptr pointer = bindings.args[param.arg];
    if (pointer == 0)
      return Status::error(argLabel(bindings, param.arg) +
                           " is a null pointer");
    if (param.kind == KernelParam::Kind::TensorMap && pointer % 16 != 0)
      return Status::error(argLabel(bindings, param.arg) + " (" +
                           hexPointer(pointer) +
                           ") is not 16-byte aligned (TMA needs 16-byte "
                           "aligned base addresses)");
    // The math threads read bf16 and f32 tensors in pairs of elements (and
    // stage epilogue vectors in 4-byte words), other arrays one element at
    // a time.
    const KernelArg &arg = meta.args[param.arg];
    uint64_t alignment = elementBytes(arg.element);
    bool pairs =
        arg.kind == KernelArg::Kind::Tensor &&
        (arg.element == ElementType::BF16 || arg.element == ElementType::F32);
    if (pairs)
      alignment *= 2;
    if (param.kind == KernelParam::Kind::Pointer && pointer % alignment != 0)
      return Status::error(argLabel(bindings, param.arg) + " (" +
                           hexPointer(pointer) + ") is not " +
                           std::to_string(alignment) + "-byte aligned (the " +
                           "kernel reads its " + elementTypeName(arg.element) +
                           (pairs ? " elements in pairs)" : " elements)"));
  }
  return Status::success();
}

Expected<LaunchPlan> fgemm::planLaunch(const KernelMeta &meta,
                                       const KernelBindings &bindings,
                                       int smCount) {
  LaunchPlan plan;
  Expected<std::vector<int64_t>> dims = bindDims(meta, bindings.dims);
  if (!dims.ok())
    return dims.takeStatus();
  plan.dims = std::move(*dims);
  for (int64_t count : countTiles(meta, plan.dims))
    if (count == 0) {
      plan.empty = true;
      return plan;
    }
  FGEMM_RETURN_IF_ERROR(validateArgPointers(meta, bindings));
  Expected<LaunchDims> launch = computeLaunchDims(meta, plan.dims, smCount);
  if (!launch.ok())
    return launch.takeStatus();
  plan.launch = *launch;
  for (size_t i = 0; i < meta.params.size(); ++i) {
    const KernelParam &param = meta.params[i];
    if (param.kind != KernelParam::Kind::TensorMap)
      continue;
    Expected<TensorMapDesc> desc =
        describeTensorMap(meta, i, plan.dims, bindings.args[param.arg],
                          "param." + std::to_string(i) + " over " +
                              argLabel(bindings, param.arg));
    if (!desc.ok())
      return desc.takeStatus();
    plan.tensorMaps.push_back(std::move(*desc));
  }
  return plan;
}

Expected<KernelParamBuffer>
fgemm::packKernelParams(const KernelMeta &meta, const KernelBindings &bindings,
                        const LaunchPlan &plan,
                        const std::vector<CUtensorMap> &maps) {
  if (plan.empty)
    return Status::error("no parameters for an empty launch");
  if (maps.size() != plan.tensorMaps.size())
    return Status::error(
        "packing " + std::to_string(maps.size()) + " tensor maps for " +
        std::to_string(plan.tensorMaps.size()) + " tensor_map parameters");
  if (bindings.args.size() != meta.args.size() ||
      plan.dims.size() != meta.dims.size())
    return Status::error("the bindings do not match kernel '" + meta.kernel +
                         "' (plan them with planLaunch first)");
  KernelParamBuffer buffer;
  size_t nextMap = 0;
  for (const KernelParam &param : meta.params) {
    switch (param.kind) {
    case KernelParam::Kind::TensorMap:
      // Passed by value (__grid_constant__); the driver reads the host copy
      // 64-byte aligned.
      buffer.append(&maps[nextMap++], sizeof(CUtensorMap), 64);
      break;
    case KernelParam::Kind::Pointer: {
      uint64_t pointer = bindings.args[param.arg];
      buffer.append(&pointer, sizeof(pointer), alignof(uint64_t));
      break;
    }
    case KernelParam::Kind::Workspace: {
      // Bound per stream at launch (Kernel::launch).
      uint64_t unbound = 0;
      buffer.append(&unbound, sizeof(unbound), alignof(uint64_t));
      break;
    }
    case KernelParam::Kind::RasterGroup: {
      // Any value walks every tile once (the kernel clamps it to [1, rows]).
      uint32_t value = bindings.rasterGroup ? bindings.rasterGroup
                                            : param.defaultRasterGroup;
      buffer.append(&value, sizeof(value), alignof(uint32_t));
      break;
    }
    case KernelParam::Kind::Dim: {
      // bindDims checked the range, so the value fits.
      uint32_t value =
          static_cast<uint32_t>(plan.dims[size_t(meta.dimIndex(param.dim))]);
      buffer.append(&value, sizeof(value), alignof(uint32_t));
      break;
    }
    }
  }
  return buffer;
}

static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap must be 128 bytes");

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

Expected<Kernel> Kernel::load(const Driver &driver,
                              const std::string &cubinPath, KernelMeta meta) {
  CUcontext context = nullptr;
  FGEMM_CU_CHECK(driver.cuCtxGetCurrent(&context));
  if (!context)
    return Status::error("no current CUDA context to load '" + cubinPath +
                         "' in");
  CUdevice device;
  FGEMM_CU_CHECK(driver.cuCtxGetDevice(&device));
  int sms = 0;
  FGEMM_CU_CHECK(driver.cuDeviceGetAttribute(
      &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  Expected<Module> module = Module::loadFile(driver, cubinPath);
  if (!module.ok())
    return module.takeStatus();
  Expected<CUfunction> function = module->function(meta.kernel);
  if (!function.ok())
    return function.takeStatus();
  FGEMM_RETURN_IF_ERROR(prepareFunction(driver, *function, meta.kernel,
                                        meta.smemBytes, meta.threads));
  // A stream-K kernel's CTAs wait for each other: all must be resident at
  // once. Clusters may leave SMs unused (a GPC with an odd number of free
  // SMs): the grid is capped at the clusters the driver can place.
  if (meta.streamK() && meta.cluster > 1) {
    Expected<int> resident = residentClusterCtas(
        driver, *function, meta.threads, meta.smemBytes, meta.cluster, sms);
    if (!resident.ok())
      return resident.takeStatus();
    if (*resident < meta.cluster)
      return Status::error("kernel '" + meta.kernel + "': no cluster of " +
                           std::to_string(meta.cluster) +
                           " CTAs fits on the device at once");
    sms = *resident;
  }
  return Kernel(driver, context, std::move(*module), *function, std::move(meta),
                cubinPath, sms);
}

Expected<Kernel> Kernel::loadFiles(const Driver &driver,
                                   const std::string &base) {
  Expected<KernelMeta> meta = readKernelMeta(base + ".meta");
  if (!meta.ok())
    return meta.takeStatus();
  return load(driver, base + ".cubin", std::move(*meta));
}

Expected<PreparedLaunch> Kernel::prepare(const KernelBindings &bindings,
                                         int smLimit) const {
  int usable = smLimit > 0 ? std::min(smLimit, sms) : sms;
  Expected<LaunchPlan> plan = planLaunch(description, bindings, usable);
  if (!plan.ok())
    return plan.takeStatus();
  PreparedLaunch prepared;
  prepared.function = function;
  if (plan->empty) {
    prepared.empty = true;
    return prepared;
  }
  // Modules belong to the context they were loaded in.
  CUcontext current = nullptr;
  FGEMM_CU_CHECK(driver->cuCtxGetCurrent(&current));
  if (current != context)
    return Status::error("the current CUDA context is not the one '" +
                         cubinPath + "' was loaded in (make it current first)");
  std::vector<CUtensorMap> maps;
  for (const TensorMapDesc &desc : plan->tensorMaps) {
    Expected<CUtensorMap> map = encodeTensorMap(*driver, desc);
    if (!map.ok())
      return map.takeStatus();
    maps.push_back(*map);
  }
  Expected<KernelParamBuffer> params =
      packKernelParams(description, bindings, *plan, maps);
  if (!params.ok())
    return params.takeStatus();
  prepared.params = std::move(*params);
  prepared.dims = plan->launch;
  for (size_t i = 0; i < description.params.size(); ++i)
    if (description.params[i].kind == KernelParam::Kind::Workspace) {
      prepared.workspaceParam = static_cast<int>(i);
      prepared.workspaceBytes =
          size_t(description.params[i].bytesPerCta) * prepared.dims.grid[0];
    }
  return prepared;
}

Status Kernel::launch(const PreparedLaunch &prepared, CUstream stream) const {
  if (prepared.function != function)
    return Status::error("a launch prepared for another kernel was given to '" +
                         cubinPath + "'");
  if (prepared.empty)
    return Status::success();
  void **pointers = prepared.params.pointers();
  // The workspace is the stream's: a copy of the pointer array points its
  // entry at the buffer (kernel parameters are copied at launch).
  constexpr size_t kMaxParams = 64;
  void *bound[kMaxParams];
  CUdeviceptr workspace = 0;
  if (prepared.workspaceParam >= 0) {
    if (prepared.params.size() > kMaxParams)
      return Status::error("kernel '" + description.kernel + "' has " +
                           std::to_string(prepared.params.size()) +
                           " parameters; a launch with a workspace binds at "
                           "most " +
                           std::to_string(kMaxParams));
    Expected<CUdeviceptr> buffer =
        acquireWorkspace(*driver, context, stream, prepared.workspaceBytes);
    if (!buffer.ok())
      return buffer.takeStatus().withContext("allocating the workspace of " +
                                             description.kernel);
    workspace = *buffer;
    std::copy(pointers, pointers + prepared.params.size(), bound);
    bound[prepared.workspaceParam] = &workspace;
    pointers = bound;
  }
  Status status =
      launchKernel(*driver, function, prepared.dims, stream, pointers);
  if (!status.ok())
    return std::move(status).withContext("launching " + description.kernel +
                                         " of '" + cubinPath + "'");
  return Status::success();
}

Status Kernel::run(const KernelBindings &bindings, CUstream stream) const {
  Expected<PreparedLaunch> prepared = prepare(bindings);
  if (!prepared.ok())
    return prepared.takeStatus();
  return launch(*prepared, stream);
}
