//===- fgemm-bench.cpp - Run, check and time fgemm kernels ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Loads a directory of compiled kernels through the runtime's DenseGemm and,
// for each shape, generates inputs (NUMERICS.md §3), runs the GEMM once on a
// NaN-poisoned D and checks it against two GPU references (Reference.cu):
//
//   (a) calc_diff against x * y^T of the unquantized bf16 inputs: < 1e-3,
//       or, where the FP8 quantization alone exceeds that (a few dozen
//       outputs), < 1.1 x the calc_diff of the exact quantized math
//   (b) every element against the exact FP64 emulation of the quantized
//       math: |d - emu| <= 2^-7 |emu| + 2^-10 sum|a b| + 1e-6
//   (c) every element written and finite
//
// then times it (median of --iters launches between CUDA events, L2 flushed
// by a 256 MiB memset before each). One row per shape; exit status 1 if any
// shape failed, 2 for command-line errors. --grouped runs the M-grouped
// kernels the same way (GroupedBench.h).
//
//===----------------------------------------------------------------------===//

#include "BenchCommon.h"
#include "BenchOptions.h"
#include "GroupedBench.h"
#include "Inputs.h"

#include "Runtime/Device.h"
#include "Runtime/Driver.h"
#include "Runtime/Gemm.h"
#include "Runtime/Module.h"
#include "Runtime/Numerics.h"
#include "Runtime/Tuning.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>

namespace fgemm::bench {
// The reference cubin, embedded at build time (EmbedFile.cmake).
extern const unsigned char kReferenceCubin[];
extern const size_t kReferenceCubinSize;
} // namespace fgemm::bench

using namespace fgemm;
using namespace fgemm::bench;

namespace {

/// The outcome of one shape, for its table row.
struct ShapeResult {
  std::string kernel = "-";
  std::optional<double> timeUs;
  std::optional<double> diff;
  std::optional<double> maxRatio;
  bool checked = false;
  bool passed = true;
  std::vector<std::string> notes; ///< printed under the row
};

/// The device-side copy of one operand.
struct DeviceOperand {
  DeviceBuffer values, scales, input;
};

/// What the recipe adds to A B^T, on the GPU and on the host: the 1D1D
/// recipe's C [M, N] f32, the bias recipe's bias [N] (bf16 values); empty
/// buffers otherwise.
struct Addends {
  DeviceBuffer c, bias;
  std::vector<float> cHost, biasHost;
};

std::string describeKernel(const KernelMeta &meta) {
  return meta.kernel + "(" + std::to_string(meta.blockM) + "x" +
         std::to_string(meta.blockN) + ", " + std::to_string(meta.stages) +
         (meta.kSplit > 1 ? ", k_split " + std::to_string(meta.kSplit)
                          : std::string()) +
         (meta.streamK()      ? ", stream_k)"
          : meta.persistent() ? ", persistent)"
                              : ")");
}

class Bench {
public:
  Bench(const Driver &cu, const DenseGemm &gemm, const Options &options,
        Module reference, CUfunction refGemm, CUfunction refCheck,
        Stream stream, DeviceBuffer flush)
      : cu(cu), gemm(gemm), options(options), reference(std::move(reference)),
        refGemm(refGemm), refCheck(refCheck), stream(std::move(stream)),
        flush(std::move(flush)) {}

  /// Runs, checks and times one shape. An error Status means the shape could
  /// not be run at all; check failures are recorded in `result`.
  Status runShape(const Shape &shape, ShapeResult &result);

private:
  Status upload(const OperandData &data, bool withInput, bool perToken,
                DeviceOperand &device);
  Status check(const Shape &shape, const OperandData &a, const OperandData &b,
               const DeviceOperand &da, const DeviceOperand &db,
               const Addends &addends, const DeviceBuffer &d,
               ShapeResult &result);
  Status time(const DenseGemm::Prepared &prepared, ShapeResult &result);
  Status hostLatency(const DenseGemmProblem &problem,
                     const DenseGemm::Prepared &prepared, ShapeResult &result);

  const Driver &cu;
  const DenseGemm &gemm;
  const Options &options;
  Module reference;
  CUfunction refGemm, refCheck;
  Stream stream;
  DeviceBuffer flush;
  // B depends only on (N, K): kept between consecutive shapes sharing them.
  std::optional<Shape> cachedB;
  OperandData b;
  DeviceOperand deviceB;
};

Status Bench::upload(const OperandData &data, bool withInput, bool perToken,
                     DeviceOperand &device) {
  const QuantizedMatrix &q = data.quantized;
  // SFA's padding rows are NaN: a kernel that reads them into a stored row
  // fails the check instead of passing by luck.
  std::vector<float> scales =
      perToken ? toSfaLayout(q, std::nanf("")) : q.scales;
  Expected<DeviceBuffer> values = DeviceBuffer::allocate(cu, q.values.size());
  Expected<DeviceBuffer> scaleBuffer =
      DeviceBuffer::allocate(cu, scales.size() * sizeof(float));
  Expected<DeviceBuffer> input = DeviceBuffer::allocate(
      cu, withInput ? data.input.bits.size() * sizeof(uint16_t) : 0);
  for (const Status *status :
       {&values.status(), &scaleBuffer.status(), &input.status()})
    if (!status->ok())
      return Status::error(status->message());
  device.values = std::move(*values);
  device.scales = std::move(*scaleBuffer);
  device.input = std::move(*input);
  FGEMM_RETURN_IF_ERROR(
      device.values.copyFromHost(q.values.data(), q.values.size()));
  FGEMM_RETURN_IF_ERROR(
      device.scales.copyFromHost(scales.data(), scales.size() * sizeof(float)));
  if (withInput)
    FGEMM_RETURN_IF_ERROR(device.input.copyFromHost(
        data.input.bits.data(), data.input.bits.size() * sizeof(uint16_t)));
  return Status::success();
}

Status Bench::runShape(const Shape &shape, ShapeResult &result) {
  const int64_t m = shape.m, n = shape.n, k = shape.k;
  FGEMM_RETURN_IF_ERROR(validateDenseGemmShape(m, n, k));
  if (m == 0 || n == 0) {
    // The API must accept an empty output without pointers or a launch.
    DenseGemmProblem empty;
    empty.m = m;
    empty.n = n;
    empty.k = k;
    FGEMM_RETURN_IF_ERROR(gemm.run(empty, stream.get()));
    result.notes.push_back("empty output: nothing launched");
    return Status::success();
  }
  Expected<size_t> choice = selectDenseKernel(
      gemm.kernels(), m, n, k, gemm.smCount(),
      options.recipe != DenseRecipe::k1D1D ? DenseEpilogue::kStore
      : options.cInPlace                   ? DenseEpilogue::kAccumulate
                                           : DenseEpilogue::kReadAddend);
  if (!choice.ok())
    return choice.takeStatus();
  result.kernel = describeKernel(gemm.kernels()[*choice]);

  // Inputs. The check kernel's grid has ceil(M/32) rows.
  if ((m + 31) / 32 > 65535)
    return Status::error("the reference check handles M up to 2097120");
  // The 1D1D recipe quantizes B per token too, and adds a random f32 C; the
  // bias recipe adds a random bf16 bias; per-tensor quantizes each operand
  // with one scale.
  const DenseRecipe recipe = options.recipe;
  const bool f32 = recipe == DenseRecipe::k1D1D;
  const bool perTensor = recipe == DenseRecipe::kPerTensor;
  const size_t elementBytes = f32 ? 4 : 2;
  OperandData a = makeOperand(
      options.seed, Operand::A, m, k,
      perTensor ? Quantization::kPerTensor : Quantization::kPerToken,
      recipe == DenseRecipe::kE5M2xE4M3 ? Fp8Format::kE5M2 : Fp8Format::kE4M3);
  DeviceOperand deviceA;
  FGEMM_RETURN_IF_ERROR(upload(a, options.check, !perTensor, deviceA));
  Shape bKey{0, n, k};
  if (!cachedB || !(*cachedB == bKey)) {
    cachedB.reset();
    b = makeOperand(options.seed, Operand::B, n, k,
                    f32         ? Quantization::kPerToken
                    : perTensor ? Quantization::kPerTensor
                                : Quantization::kPerBlock,
                    recipe == DenseRecipe::kE4M3xE5M2 ? Fp8Format::kE5M2
                                                      : Fp8Format::kE4M3);
    FGEMM_RETURN_IF_ERROR(upload(b, options.check, f32, deviceB));
    cachedB = bKey;
  }
  Expected<DeviceBuffer> d =
      DeviceBuffer::allocate(cu, size_t(m * n) * elementBytes);
  if (!d.ok())
    return d.takeStatus();
  Addends addends;
  if (f32) {
    addends.cHost = randnBf16(options.seed, Operand::C, m, n).values;
    Expected<DeviceBuffer> c =
        DeviceBuffer::allocate(cu, addends.cHost.size() * 4);
    if (!c.ok())
      return c.takeStatus();
    addends.c = std::move(*c);
    FGEMM_RETURN_IF_ERROR(
        addends.c.copyFromHost(addends.cHost.data(), addends.cHost.size() * 4));
  }
  if (recipe == DenseRecipe::kBias1D2D) {
    Bf16Matrix bias = randnBf16(options.seed, Operand::Bias, 1, n);
    addends.biasHost = bias.values;
    Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(cu, size_t(n) * 2);
    if (!buffer.ok())
      return buffer.takeStatus();
    addends.bias = std::move(*buffer);
    FGEMM_RETURN_IF_ERROR(
        addends.bias.copyFromHost(bias.bits.data(), size_t(n) * 2));
  }
  // Accumulating in place, D starts as C.
  if (options.cInPlace)
    FGEMM_RETURN_IF_ERROR(
        d->copyFromHost(addends.cHost.data(), addends.cHost.size() * 4));
  // A pageable cuMemcpyHtoD may return before its DMA lands, and our stream
  // does not wait for the legacy stream: finish the uploads first.
  FGEMM_CU_CHECK(cu.cuCtxSynchronize());

  // One run on a NaN-poisoned D (0xffff / 0xffffffff: a bf16 / f32 NaN),
  // or on D = C.
  if (f32 && !options.cInPlace)
    FGEMM_CU_CHECK(cu.cuMemsetD32Async(d->get(), 0xffffffffu, size_t(m * n),
                                       stream.get()));
  else if (!f32)
    FGEMM_CU_CHECK(
        cu.cuMemsetD16Async(d->get(), 0xffff, size_t(m * n), stream.get()));
  DenseGemmProblem problem;
  problem.a = deviceA.values.get();
  problem.sfa = deviceA.scales.get();
  problem.b = deviceB.values.get();
  problem.sfb = deviceB.scales.get();
  if (f32)
    problem.c = options.cInPlace ? d->get() : addends.c.get();
  problem.bias = addends.bias.get();
  problem.d = d->get();
  problem.m = m;
  problem.n = n;
  problem.k = k;
  Expected<DenseGemm::Prepared> prepared = gemm.prepare(problem);
  if (!prepared.ok())
    return prepared.takeStatus();
  // The kernel that runs: a tuned choice (setTunedKernel) overrides the
  // model's.
  result.kernel = describeKernel(gemm.kernels()[prepared->kernel]);
  FGEMM_RETURN_IF_ERROR(gemm.launch(*prepared, stream.get()));
  FGEMM_RETURN_IF_ERROR(
      stream.synchronize().withContext("running " + result.kernel));

  if (options.checksum) {
    // Bit-exact fingerprint of D, before any check or timing reruns it.
    std::vector<uint8_t> bytes(size_t(m * n) * elementBytes);
    FGEMM_RETURN_IF_ERROR(d->copyToHost(bytes.data(), bytes.size()));
    uint64_t hash = 0xcbf29ce484222325ull;
    for (uint8_t byte : bytes)
      hash = (hash ^ byte) * 0x100000001b3ull;
    char line[64];
    std::snprintf(line, sizeof(line), "checksum of D: %016llx",
                  (unsigned long long)hash);
    result.notes.push_back(line);
  }
  if (options.check)
    FGEMM_RETURN_IF_ERROR(
        check(shape, a, b, deviceA, deviceB, addends, *d, result));
  if (options.time)
    FGEMM_RETURN_IF_ERROR(time(*prepared, result));
  if (!options.timeline.empty() && !prepared->launch.empty) {
    std::string label =
        std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    Expected<bool> recorded =
        recordTimeline(cu, stream.get(), flush.get(), prepared->launch.function,
                       options.timeline, label,
                       [&] { return gemm.launch(*prepared, stream.get()); });
    if (!recorded.ok())
      return recorded.takeStatus();
    if (!*recorded)
      result.notes.push_back(kNoTimelineNote);
  }
  if (options.hostLatency)
    FGEMM_RETURN_IF_ERROR(hostLatency(problem, *prepared, result));
  return Status::success();
}

Status Bench::hostLatency(const DenseGemmProblem &p,
                          const DenseGemm::Prepared &prepared,
                          ShapeResult &result) {
  using Clock = std::chrono::steady_clock;
  auto micros = [](Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count();
  };
  auto run = [&] { return gemm.run(p, stream.get()); };
  auto launch = [&] { return gemm.launch(prepared, stream.get()); };
  FGEMM_RETURN_IF_ERROR(stream.synchronize());
  auto start = Clock::now();
  FGEMM_RETURN_IF_ERROR(run()); // prepares
  double first = micros(Clock::now() - start);
  // Batches of a few calls, each started on a drained queue: longer runs
  // fill the launch queue and then time the GPU, not the host.
  constexpr int kBatches = 50, kCallsPerBatch = 16;
  auto median = [&](const std::function<Status()> &call) -> Expected<double> {
    std::vector<double> perCall;
    for (int batch = 0; batch < kBatches; ++batch) {
      FGEMM_RETURN_IF_ERROR(stream.synchronize());
      auto begin = Clock::now();
      for (int i = 0; i < kCallsPerBatch; ++i)
        FGEMM_RETURN_IF_ERROR(call());
      perCall.push_back(micros(Clock::now() - begin) / kCallsPerBatch);
    }
    std::sort(perCall.begin(), perCall.end());
    return perCall[perCall.size() / 2];
  };
  Expected<double> warm = median(run);
  if (!warm.ok())
    return warm.takeStatus();
  // The prepared launch alone (parameter packing and cuLaunchKernelEx):
  // what is left of a warm call once its lookup is taken away.
  Expected<double> launchOnly = median(launch);
  if (!launchOnly.ok())
    return launchOnly.takeStatus();
  FGEMM_RETURN_IF_ERROR(stream.synchronize());
  char line[192];
  std::snprintf(line, sizeof(line),
                "host time of DenseGemm::run: first %.1f us, warm %.2f us, "
                "its launch alone %.2f us (medians of %d batches of %d "
                "calls, each on a drained queue)",
                first, *warm, *launchOnly, kBatches, kCallsPerBatch);
  result.notes.push_back(line);
  return Status::success();
}

Status Bench::check(const Shape &shape, const OperandData &a,
                    const OperandData &b, const DeviceOperand &da,
                    const DeviceOperand &db, const Addends &addends,
                    const DeviceBuffer &d, ShapeResult &result) {
  const int64_t m = shape.m, n = shape.n, k = shape.k;
  Expected<DeviceBuffer> ref = DeviceBuffer::allocate(cu, size_t(m * n) * 4);
  if (!ref.ok())
    return ref.takeStatus();
  const uint32_t checkX = uint32_t((n + 31) / 32),
                 checkY = uint32_t((m + 31) / 32);
  std::vector<CheckPartial> partials(size_t(checkX) * checkY);
  Expected<DeviceBuffer> devicePartials =
      DeviceBuffer::allocate(cu, partials.size() * sizeof(CheckPartial));
  if (!devicePartials.ok())
    return devicePartials.takeStatus();

  CUdeviceptr x = da.input.get(), y = db.input.get(), refPtr = ref->get();
  CUdeviceptr aq = da.values.get(), sfa = da.scales.get();
  CUdeviceptr bq = db.values.get(), sfb = db.scales.get();
  CUdeviceptr cPtr = addends.c.get(), biasPtr = addends.bias.get(),
              dPtr = d.get(), partialPtr = devicePartials->get();
  const bool f32 = options.recipe == DenseRecipe::k1D1D;
  const bool perTensor = options.recipe == DenseRecipe::kPerTensor;
  // The reference's scale layouts: SFA M-major (0: one scale); SFB 128x128
  // blocks (0), N-major per row (align(N, 4) rows) or one scale (-1).
  int mi = int(m), ni = int(n), ki = int(k),
      sfaRows = perTensor ? 0 : int(alignedSfaRows(m));
  int sfbRows = f32         ? int(alignedSfaRows(n))
                : perTensor ? -1
                            : 0,
      dIsF32 = f32 ? 1 : 0,
      aIsE5m2 = a.quantized.format == Fp8Format::kE5M2 ? 1 : 0,
      bIsE5m2 = b.quantized.format == Fp8Format::kE5M2 ? 1 : 0;
  double rel = kRelTolerance, absSum = kAbsSumTolerance,
         absolute = kAbsTolerance;
  FGEMM_RETURN_IF_ERROR(launchReference(cu, refGemm, uint32_t((n + 63) / 64),
                                        uint32_t((m + 63) / 64), stream.get(),
                                        {&x, &y, &refPtr, &mi, &ni, &ki}));
  FGEMM_RETURN_IF_ERROR(launchReference(
      cu, refCheck, checkX, checkY, stream.get(),
      {&aq,     &sfa,        &bq,      &sfb, &cPtr,   &biasPtr, &dPtr,
       &refPtr, &partialPtr, &mi,      &ni,  &ki,     &sfaRows, &sfbRows,
       &dIsF32, &aIsE5m2,    &bIsE5m2, &rel, &absSum, &absolute}));
  FGEMM_RETURN_IF_ERROR(
      stream.synchronize().withContext("running the reference kernels"));
  FGEMM_RETURN_IF_ERROR(devicePartials->copyToHost(
      partials.data(), partials.size() * sizeof(CheckPartial)));

  CheckPartial total = sumCheckPartials(partials);
  result.checked = true;
  result.diff = calcDiffFromSums(total.sumXY, total.sumSquares);
  double quantization = calcDiffFromSums(total.emuXY, total.emuSquares);
  double limit = calcDiffLimit(quantization);
  char line[256];
  if (!(*result.diff < limit)) {
    result.passed = false;
    std::snprintf(line, sizeof(line),
                  "calc_diff %.3e vs the unquantized reference (limit %.3e: "
                  "max(1e-3, 1.1 x the exact quantized math's %.3e))",
                  *result.diff, limit, quantization);
    result.notes.push_back(line);
  }
  if (total.nonFinite) {
    result.passed = false;
    std::snprintf(line, sizeof(line),
                  "%llu of %" PRId64 " elements of D are NaN or infinite "
                  "(unwritten elements stay NaN)",
                  total.nonFinite, m * n);
    result.notes.push_back(line);
  }
  if (total.worstIndex >= 0) {
    result.maxRatio = total.maxRatio;
    // Recompute the worst element on the host: it cross-checks the GPU
    // emulation and gives the values for the report.
    int64_t wm = total.worstIndex / n, wn = total.worstIndex % n;
    double dValue = 0;
    if (f32) {
      float value = 0;
      FGEMM_RETURN_IF_ERROR(
          d.copyToHost(&value, 4, size_t(total.worstIndex) * 4));
      dValue = value;
    } else {
      uint16_t dBits = 0;
      FGEMM_RETURN_IF_ERROR(
          d.copyToHost(&dBits, 2, size_t(total.worstIndex) * 2));
      dValue = bf16ToFloat(dBits);
    }
    EmulatedElement emu = emulateElement(a.quantized, b.quantized, wm, wn);
    double addend = 0;
    if (!addends.cHost.empty())
      addend += addends.cHost[size_t(total.worstIndex)];
    if (!addends.biasHost.empty())
      addend += addends.biasHost[size_t(wn)];
    emu.value += addend;
    emu.sumAbs += std::fabs(addend);
    double tolerance = emulationTolerance(emu.value, emu.sumAbs);
    double hostRatio = std::fabs(dValue - emu.value) / tolerance;
    if (total.maxRatio > 1) {
      result.passed = false;
      std::snprintf(line, sizeof(line),
                    "worst element (m, n) = (%" PRId64 ", %" PRId64
                    "): d = %.6g, emulated = %.6g, |diff| = %.3g > "
                    "tolerance %.3g",
                    wm, wn, dValue, emu.value, std::fabs(dValue - emu.value),
                    tolerance);
      result.notes.push_back(line);
    }
    if (std::fabs(hostRatio - total.maxRatio) >
        1e-6 * std::max(1.0, total.maxRatio)) {
      result.passed = false;
      std::snprintf(line, sizeof(line),
                    "reference bug: GPU emulation ratio %.6g but host %.6g "
                    "at (%" PRId64 ", %" PRId64 ")",
                    total.maxRatio, hostRatio, wm, wn);
      result.notes.push_back(line);
    }
  }

  // Spot-check the FP32 reference GEMM against FP64 on the host, with the
  // worst-case bound of K sequential FP32 roundings.
  const int64_t samples[][2] = {
      {0, 0}, {m - 1, n - 1}, {m / 2, n / 2}, {m - 1, 0}, {0, n - 1}};
  for (const auto &sample : samples) {
    int64_t sm = sample[0], sn = sample[1];
    double exact = 0, sumAbs = 0;
    for (int64_t i = 0; i < k; ++i) {
      double p =
          double(a.input.values[sm * k + i]) * b.input.values[sn * k + i];
      exact += p;
      sumAbs += std::fabs(p);
    }
    float gpu = 0;
    FGEMM_RETURN_IF_ERROR(ref->copyToHost(&gpu, 4, size_t(sm * n + sn) * 4));
    if (std::fabs(gpu - exact) > double(k) * 0x1p-24 * sumAbs + 1e-6) {
      result.passed = false;
      std::snprintf(line, sizeof(line),
                    "reference bug: FP32 reference %.6g but FP64 %.6g at "
                    "(%" PRId64 ", %" PRId64 ")",
                    double(gpu), exact, sm, sn);
      result.notes.push_back(line);
    }
  }
  return Status::success();
}

Status Bench::time(const DenseGemm::Prepared &prepared, ShapeResult &result) {
  Expected<double> us =
      medianLaunchTime(cu, stream.get(), flush.get(), options.iters,
                       [&] { return gemm.launch(prepared, stream.get()); });
  if (!us.ok())
    return us.takeStatus();
  result.timeUs = *us;
  return Status::success();
}

void printHeader() {
  std::printf("%7s %7s %7s  %-44s %9s %8s %9s %9s %8s  %s\n", "M", "N", "K",
              "kernel(block_m x block_n, stages)", "time_us", "TFLOPS", "GB/s",
              "diff", "maxerr", "result");
}

void printRow(const Shape &shape, const ShapeResult &result) {
  auto number = [](const std::optional<double> &v, const char *format) {
    char text[32] = "-";
    if (v)
      std::snprintf(text, sizeof(text), format, *v);
    return std::string(text);
  };
  std::optional<double> tflops, gbps;
  if (result.timeUs && *result.timeUs > 0) {
    double seconds = *result.timeUs * 1e-6;
    const double m = double(shape.m), n = double(shape.n), k = double(shape.k);
    double bytes = m * k + n * k +
                   double(alignedSfaRows(shape.m) * scaleBlocks(shape.k)) * 4 +
                   double(scaleBlocks(shape.n) * scaleBlocks(shape.k)) * 4 +
                   m * n * 2;
    tflops = 2 * m * n * k / seconds * 1e-12;
    gbps = bytes / seconds * 1e-9;
  }
  const char *verdict = !result.passed   ? "FAIL"
                        : result.checked ? "PASS"
                                         : "UNCHECKED";
  if (result.passed && !result.checked && result.kernel == "-")
    verdict = "PASS"; // an empty output has nothing to check
  std::printf("%7" PRId64 " %7" PRId64 " %7" PRId64 "  %-44s %9s %8s %9s %9s "
              "%8s  %s\n",
              shape.m, shape.n, shape.k, result.kernel.c_str(),
              number(result.timeUs, "%.1f").c_str(),
              number(tflops, "%.1f").c_str(), number(gbps, "%.1f").c_str(),
              number(result.diff, "%.2e").c_str(),
              number(result.maxRatio, "%.3f").c_str(), verdict);
  for (const std::string &note : result.notes)
    std::printf("    %s\n", note.c_str());
  std::fflush(stdout);
}

int listDevicesMain() {
  // No driver or no GPU: print nothing, so lit sees no device.
  Expected<const Driver *> driver = Driver::get();
  if (!driver.ok())
    return 0;
  Expected<std::vector<DeviceInfo>> devices = listDevices(**driver);
  if (!devices.ok())
    return 0;
  for (const DeviceInfo &device : *devices)
    std::printf("device %d: %s %s\n", device.ordinal, device.name.c_str(),
                smName(device.major, device.minor).c_str());
  return 0;
}

/// --describe: what the runtime reads from each description.
int describeMain(const std::vector<std::string> &files) {
  int status = 0;
  for (const std::string &file : files) {
    Expected<KernelMeta> meta = readKernelMeta(file);
    if (!meta.ok()) {
      std::fprintf(stderr, "fgemm-bench: error: %s\n",
                   meta.status().message().c_str());
      status = 1;
      continue;
    }
    std::printf(
        "%s: kernel=%s variant=%s config=%s threads=%u smem=%u cluster=%u "
        "args=%zu params=%zu tiles=",
        file.c_str(), meta->kernel.c_str(), meta->variant.c_str(),
        meta->configName().c_str(), meta->threads, meta->smemBytes,
        meta->cluster, meta->args.size(), meta->params.size());
    for (size_t i = 0; i < meta->tiles.size(); ++i)
      std::printf("%s%s/%u", i ? "," : "", meta->tiles[i].dim.c_str(),
                  meta->tiles[i].block);
    std::printf("\n");
  }
  return status;
}

int fail(const Status &status) {
  std::fprintf(stderr, "fgemm-bench: error: %s\n", status.message().c_str());
  return 1;
}

/// --explain: the model's ranking of every kernel that runs the shape's N
/// and K, best first: its estimate, tiles and waves, and what else weighed.
static void explainChoice(const std::vector<KernelMeta> &metas,
                          const std::vector<std::string> &names,
                          const Shape &shape, int sms, DenseEpilogue epilogue) {
  std::vector<DenseCandidate> ranked =
      rankDenseKernels(metas, shape.m, shape.n, shape.k, sms, epilogue);
  for (size_t place = 0; place < ranked.size(); ++place) {
    const DenseCandidate &c = ranked[place];
    std::string notes;
    auto note = [&](const std::string &text) {
      notes += (notes.empty() ? "" : ", ") + text;
    };
    if (c.scaleReadFloor)
      note("A-scale read floor");
    if (c.wastedRows)
      note("tile at least half empty");
    if (c.demotedBy)
      note(std::string("after the others: ") + c.demotedBy);
    std::printf("    %3zu. %10.1f  %s  %lld tiles, %lld wave(s)%s%s\n",
                place + 1, c.estimate, names[c.index].c_str(),
                (long long)c.tiles, (long long)c.waves,
                notes.empty() ? "" : "; ", notes.c_str());
  }
}

/// --choose: the runtime's model (selectDenseKernel) over the directory's
/// kernel descriptions, per shape; what a GPU of `--sms` SMs would launch
/// without a tuning file. Replays a model change against timed candidates
/// (scripts/choice-regret.py) without a GPU.
int chooseMain(const Options &options) {
  Expected<DenseKernelDescriptions> found =
      readDenseKernelDescriptions(options.kernels, options.recipe);
  if (!found.ok())
    return fail(found.status());
  const std::string variant = denseVariant(options.recipe);
  const std::vector<KernelMeta> &metas = found->metas;
  const std::vector<std::string> &names = found->stems;
  if (metas.empty())
    return fail(Status::error("no " + variant + " kernels in '" +
                              options.kernels + "'"));
  int sms = options.sms ? options.sms : kChoiceSmsWithoutGpu;
  DenseEpilogue epilogue = denseEpilogue(options.recipe, options.cInPlace);
  std::printf("fgemm-bench: the runtime's model over %zu %s kernel(s) from "
              "%s, planning for %d SMs\n",
              metas.size(), variant.c_str(), options.kernels.c_str(), sms);
  int failures = 0;
  for (const Shape &shape : options.shapes) {
    std::printf("%7lld %7lld %7lld  ", (long long)shape.m, (long long)shape.n,
                (long long)shape.k);
    if (Status valid = validateDenseGemmShape(shape.m, shape.n, shape.k);
        !valid.ok()) {
      std::printf("error: %s\n", valid.message().c_str());
      ++failures;
      continue;
    }
    if (shape.m == 0 || shape.n == 0) {
      std::printf("- (empty output: nothing is launched)\n");
      continue;
    }
    Expected<size_t> chosen =
        selectDenseKernel(metas, shape.m, shape.n, shape.k, sms, epilogue);
    if (!chosen.ok()) {
      std::printf("error: %s\n", chosen.status().message().c_str());
      ++failures;
      continue;
    }
    std::printf("%s  %s\n", names[*chosen].c_str(),
                describeKernel(metas[*chosen]).c_str());
    if (options.explain)
      explainChoice(metas, names, shape, sms, epilogue);
  }
  return failures ? 1 : 0;
}

/// --autotune: per shape, the runtime's own choice, then every kernel that
/// accepts the shape run through DenseGemm::setTunedKernel, each checked and
/// timed like any row; the fastest that passed is merged into the tuning
/// file. A shape no kernel passed on counts as failed.
int autotuneShapes(const Driver &cu, DenseGemm &gemm, const Options &options,
                   Bench &bench) {
  Expected<TunedChoices> table = TunedChoices::read(options.autotune);
  if (!table.ok())
    return fail(table.status());
  const std::string variant = denseVariant(options.recipe);
  int tuned = 0, failed = 0;
  // Runs one row; false once the CUDA context is unusable.
  auto runRow = [&](const Shape &shape, ShapeResult &result,
                    const std::string &note) {
    Status status = bench.runShape(shape, result);
    if (!status.ok()) {
      result.passed = false;
      result.notes.push_back("error: " + status.message());
    }
    result.notes.push_back(note);
    printRow(shape, result);
    return status.ok() || cu.cuCtxSynchronize() == CUDA_SUCCESS;
  };
  for (const Shape &shape : options.shapes) {
    if (shape.m == 0 || shape.n == 0)
      continue; // nothing is launched: nothing to tune
    Status cleared = gemm.setTunedKernel(shape.m, shape.n, shape.k, "");
    if (!cleared.ok())
      return fail(cleared);
    ShapeResult model;
    if (!runRow(shape, model, "the runtime's model"))
      return fail(Status::error("the CUDA context is unusable"));
    std::optional<std::pair<double, size_t>> best;
    for (size_t i = 0; i < gemm.kernels().size(); ++i) {
      if (!gemm.kernels()[i].runsNK(shape.n, shape.k))
        continue;
      Status chosen =
          gemm.setTunedKernel(shape.m, shape.n, shape.k, gemm.kernelName(i));
      if (!chosen.ok())
        return fail(chosen);
      ShapeResult result;
      if (!runRow(shape, result, "candidate " + gemm.kernelName(i)))
        return fail(Status::error("the CUDA context is unusable"));
      if (result.passed && result.timeUs &&
          (!best || *result.timeUs < best->first))
        best = std::make_pair(*result.timeUs, i);
    }
    Status restored = gemm.setTunedKernel(shape.m, shape.n, shape.k, "");
    if (!restored.ok())
      return fail(restored);
    std::string name = std::to_string(shape.m) + "x" + std::to_string(shape.n) +
                       "x" + std::to_string(shape.k);
    if (!best) {
      std::printf("autotune %s: no kernel passed\n", name.c_str());
      ++failed;
      continue;
    }
    table->set(variant, shape.m, shape.n, shape.k,
               gemm.kernelName(best->second));
    char modelTime[32] = "-";
    if (model.timeUs)
      std::snprintf(modelTime, sizeof modelTime, "%.1f", *model.timeUs);
    std::printf("autotune %s: %s %.1f us (the runtime's model: %s %s us)\n",
                name.c_str(), gemm.kernelName(best->second).c_str(),
                best->first, model.kernel.c_str(), modelTime);
    ++tuned;
  }
  if (Status written = table->write(options.autotune); !written.ok())
    return fail(written);
  std::printf("fgemm-bench: %zu tuned choice(s) in %s\n",
              table->entries().size(), options.autotune.c_str());
  std::printf("%d passed, %d failed\n", tuned, failed);
  return failed ? 1 : 0;
}

int benchMain(const Options &options) {
  Expected<const Driver *> driver = Driver::get();
  if (!driver.ok())
    return fail(driver.status());
  const Driver &cu = **driver;
  Expected<PrimaryContext> context = PrimaryContext::retain(cu, options.device);
  if (!context.ok())
    return fail(context.status());
  std::vector<char> image(kReferenceCubin,
                          kReferenceCubin + kReferenceCubinSize);
  Expected<Module> reference =
      Module::loadData(cu, image, "fgemm-bench reference kernels");
  if (!reference.ok())
    return fail(reference.status());
  Expected<CUfunction> refGemm = reference->function("fgemm_ref_gemm_bf16");
  Expected<CUfunction> refCheck = reference->function("fgemm_ref_check");
  if (!refGemm.ok() || !refCheck.ok())
    return fail(!refGemm.ok() ? refGemm.status() : refCheck.status());
  Expected<Stream> stream = Stream::create(cu);
  if (!stream.ok())
    return fail(stream.status());
  Expected<DeviceBuffer> flush = DeviceBuffer::allocate(
      cu, options.time && !options.warmL2 ? kFlushBytes : 0);
  if (!flush.ok())
    return fail(flush.status());

  if (options.grouped != GroupedMode::None)
    return runGroupedBench(cu, options, *refGemm, *refCheck, stream->get(),
                           flush->get());
  Expected<DenseGemm> gemm = DenseGemm::create(options.kernels, options.recipe);
  if (!gemm.ok())
    return fail(gemm.status());
  if (Status limited = gemm->setSmLimit(options.sms); !limited.ok())
    return fail(std::move(limited).withContext("--sms"));
  gemm->setRasterGroup(options.rasterGroup);
  const DeviceInfo &device = gemm->device();
  std::printf("fgemm-bench: device %d: %s %s, %d SMs, driver CUDA %s\n",
              device.ordinal, device.name.c_str(),
              smName(device.major, device.minor).c_str(), device.smCount,
              formatCudaVersion(cu.version()).c_str());
  std::printf("fgemm-bench: %zu kernel(s) from %s:", gemm->kernels().size(),
              options.kernels.c_str());
  for (const KernelMeta &meta : gemm->kernels())
    std::printf(" %s", describeKernel(meta).c_str());
  // Other variants' kernels may share the directory; DenseGemm skips them.
  if (!gemm->skipped().empty())
    std::printf(" (skipped %zu kernel(s) of other variants)",
                gemm->skipped().size());
  std::printf("\nfgemm-bench: %zu shape(s), seed %" PRIu64 ", %s, %s\n",
              options.shapes.size(), options.seed,
              options.check ? "checked" : "not checked",
              describeTiming(options).c_str());
  printHeader();

  Bench bench(cu, *gemm, options, std::move(*reference), *refGemm, *refCheck,
              std::move(*stream), std::move(*flush));
  if (!options.autotune.empty())
    return autotuneShapes(cu, *gemm, options, bench);
  return runShapes(cu, options.shapes.size(), [&](size_t i) {
    const Shape &shape = options.shapes[i];
    ShapeResult result;
    Status status = bench.runShape(shape, result);
    if (!status.ok()) {
      result.passed = false;
      result.notes.push_back("error: " + status.message());
    }
    printRow(shape, result);
    return ShapeOutcome{!status.ok(), result.passed,
                        result.checked || result.kernel == "-"};
  });
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  Expected<Options> options = parseOptions(args);
  if (!options.ok()) {
    std::fprintf(stderr, "fgemm-bench: %s\n\n%s",
                 options.status().message().c_str(), usage().c_str());
    return 2;
  }
  if (options->help) {
    std::printf("%s", usage().c_str());
    return 0;
  }
  if (options->listDevices)
    return listDevicesMain();
  if (!options->describe.empty())
    return describeMain(options->describe);
  if (options->choose)
    return options->grouped != GroupedMode::None
               ? chooseGroupedKernels(*options)
               : chooseMain(*options);
  return benchMain(*options);
}
