//===- GroupedBench.cpp - fgemm-bench's M-grouped runs -----------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "GroupedBench.h"

#include "BenchCommon.h"
#include "Inputs.h"

#include "Runtime/Device.h"
#include "Runtime/GroupedGemm.h"
#include "Runtime/Numerics.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

using namespace fgemm;
using namespace fgemm::bench;

namespace {

/// The outcome of one grouped shape, for its table row.
struct GroupedResult {
  std::string kernel = "-";
  int64_t validRows = 0;
  std::optional<double> timeUs, diff, maxRatio;
  bool checked = false, passed = true;
  std::vector<std::string> notes;
};

GroupedLayout layoutOf(GroupedMode mode) {
  switch (mode) {
  case GroupedMode::ContiguousPsum:
    return GroupedLayout::ContiguousPsum;
  case GroupedMode::ContiguousUnpadded:
    return GroupedLayout::ContiguousUnpadded;
  case GroupedMode::Masked:
    return GroupedLayout::Masked;
  default:
    return GroupedLayout::Contiguous;
  }
}

/// The sizes of `shape`'s problem with its rows `rows` (no pointers yet).
GroupedGemmProblem groupedProblem(GroupedMode mode, const GroupedShape &shape,
                                  const GroupRows &rows) {
  const bool masked = mode == GroupedMode::Masked;
  GroupedGemmProblem problem;
  problem.layout = layoutOf(mode);
  problem.m = masked ? rows.capacity : rows.totalRows;
  problem.n = shape.n;
  problem.k = shape.k;
  problem.groups = shape.groups;
  problem.expectedM = masked ? shape.m : 0;
  return problem;
}

Expected<DeviceBuffer> upload(const Driver &cu, const void *data,
                              size_t bytes) {
  Expected<DeviceBuffer> buffer = DeviceBuffer::allocate(cu, bytes);
  if (!buffer.ok() || bytes == 0)
    return buffer;
  FGEMM_RETURN_IF_ERROR(buffer->copyFromHost(data, bytes));
  return buffer;
}

/// Rows of D past an unpadded output, poisoned with it and checked untouched
/// (a tile of the last group reaches up to 127 rows past the output).
constexpr int64_t kUnpaddedTailRows = 128;

/// Rows of D's buffer: the output's and, unpadded, the poisoned tail.
int64_t bufferRows(GroupedMode mode, const GroupRows &rows) {
  return rows.totalRows +
         (mode == GroupedMode::ContiguousUnpadded ? kUnpaddedTailRows : 0);
}

/// One grouped shape's inputs on the host and the GPU.
struct GroupedInputs {
  GroupRows rows;
  OperandData a;
  std::vector<OperandData> b; // one per group
  DeviceBuffer aValues, aScales, aInput, bValues, bScales, bInput, groupRows, d;
  int64_t sfaRows = 0; // the M-major scale layout's row stride (floats)
};

class GroupedBench {
public:
  GroupedBench(const Driver &cu, const GroupedGemm &gemm,
               const Options &options, CUfunction refGemm, CUfunction refCheck,
               CUstream stream, CUdeviceptr flush)
      : cu(cu), gemm(gemm), options(options), refGemm(refGemm),
        refCheck(refCheck), stream(stream), flush(flush) {}

  Status runShape(const GroupedShape &shape, GroupedResult &result);

private:
  Status makeInputs(const GroupedShape &shape, GroupedInputs &in);
  Status checkGroups(const GroupedShape &shape, const GroupedInputs &in,
                     GroupedResult &result);
  Status checkUnwrittenRows(const GroupedShape &shape, const GroupedInputs &in,
                            GroupedResult &result);

  const Driver &cu;
  const GroupedGemm &gemm;
  const Options &options;
  CUfunction refGemm, refCheck;
  CUstream stream;
  CUdeviceptr flush;
};

Status GroupedBench::makeInputs(const GroupedShape &shape, GroupedInputs &in) {
  const int64_t g = shape.groups, n = shape.n, k = shape.k;
  const bool masked = options.grouped == GroupedMode::Masked;
  in.rows = drawGroupRows(shape, options.grouped, options.capacity,
                          options.seed, options.groupRows);
  const int64_t total = in.rows.totalRows, kBlocks = scaleBlocks(k);
  // A: every row (padding rows too) random and quantized per token; SFA's
  // padding rows (past align(rows, 4)) NaN, so a kernel that stores a value
  // it read from them fails the check.
  in.a =
      makeOperand(options.seed, Operand::A, total, k, Quantization::kPerToken);
  std::vector<float> sfa;
  if (!masked) {
    sfa = toSfaLayout(in.a.quantized, std::nanf(""));
    in.sfaRows = alignedSfaRows(total);
  } else {
    // Per group: [ceil(K/128), align(capacity, 4)], M-major.
    const int64_t cap = in.rows.capacity;
    in.sfaRows = alignedSfaRows(cap);
    sfa.assign(size_t(g * kBlocks * in.sfaRows), std::nanf(""));
    for (int64_t group = 0; group < g; ++group)
      for (int64_t r = 0; r < cap; ++r)
        for (int64_t kb = 0; kb < kBlocks; ++kb)
          sfa[size_t((group * kBlocks + kb) * in.sfaRows + r)] =
              in.a.quantized.scales[size_t((group * cap + r) * kBlocks + kb)];
  }
  // B: each group's own data, quantized per 128x128 block of the group.
  std::vector<uint8_t> bValues;
  std::vector<float> bScales;
  std::vector<uint16_t> bInput;
  for (int64_t group = 0; group < g; ++group) {
    in.b.push_back(makeOperand(options.seed + uint64_t(group) * 0x1000193 + 1,
                               Operand::B, n, k, Quantization::kPerBlock));
    const QuantizedMatrix &q = in.b.back().quantized;
    bValues.insert(bValues.end(), q.values.begin(), q.values.end());
    bScales.insert(bScales.end(), q.scales.begin(), q.scales.end());
    if (options.check)
      bInput.insert(bInput.end(), in.b.back().input.bits.begin(),
                    in.b.back().input.bits.end());
  }
  // The group of each row (-1 on padding), each group's end, or masked_m.
  std::vector<int32_t> groupRows;
  if (options.grouped == GroupedMode::Contiguous) {
    groupRows.assign(size_t(total), -1);
    for (int64_t group = 0; group < g; ++group)
      std::fill_n(groupRows.begin() + in.rows.starts[size_t(group)],
                  in.rows.rows[size_t(group)], int32_t(group));
  } else {
    for (int64_t group = 0; group < g; ++group)
      groupRows.push_back(int32_t(masked ? in.rows.rows[size_t(group)]
                                         : in.rows.starts[size_t(group)] +
                                               in.rows.rows[size_t(group)]));
  }
  struct Upload {
    DeviceBuffer &to;
    const void *data;
    size_t bytes;
  } uploads[] = {
      {in.aValues, in.a.quantized.values.data(), in.a.quantized.values.size()},
      {in.aScales, sfa.data(), sfa.size() * 4},
      {in.aInput, in.a.input.bits.data(),
       options.check ? in.a.input.bits.size() * 2 : 0},
      {in.bValues, bValues.data(), bValues.size()},
      {in.bScales, bScales.data(), bScales.size() * 4},
      {in.bInput, bInput.data(), bInput.size() * 2},
      {in.groupRows, groupRows.data(), groupRows.size() * 4}};
  for (Upload &u : uploads) {
    Expected<DeviceBuffer> buffer = upload(cu, u.data, u.bytes);
    if (!buffer.ok())
      return buffer.takeStatus();
    u.to = std::move(*buffer);
  }
  Expected<DeviceBuffer> d = DeviceBuffer::allocate(
      cu, size_t(bufferRows(options.grouped, in.rows) * n) * 2);
  if (!d.ok())
    return d.takeStatus();
  in.d = std::move(*d);
  // Pageable copies may return before their DMA lands; our stream does not
  // wait for the legacy stream.
  FGEMM_CU_CHECK(cu.cuCtxSynchronize());
  return Status::success();
}

Status GroupedBench::runShape(const GroupedShape &shape,
                              GroupedResult &result) {
  GroupedInputs in;
  FGEMM_RETURN_IF_ERROR(makeInputs(shape, in));
  for (int64_t rows : in.rows.rows)
    result.validRows += rows;
  GroupedGemmProblem problem = groupedProblem(options.grouped, shape, in.rows);
  problem.a = in.aValues.get();
  problem.sfa = in.aScales.get();
  problem.b = in.bValues.get();
  problem.sfb = in.bScales.get();
  problem.d = in.d.get();
  problem.groupRows = in.groupRows.get();
  Expected<GroupedGemm::Prepared> prepared = gemm.prepare(problem);
  if (!prepared.ok())
    return prepared.takeStatus();
  if (!prepared->launch.empty) {
    const KernelMeta &meta = gemm.kernels()[prepared->kernel];
    result.kernel = meta.kernel + "(" + meta.configName() + ")";
  }
  // One run on D poisoned with bf16 NaNs (0xffff).
  FGEMM_CU_CHECK(cu.cuMemsetD16Async(
      in.d.get(), 0xffff,
      size_t(bufferRows(options.grouped, in.rows) * shape.n), stream));
  FGEMM_RETURN_IF_ERROR(gemm.launch(*prepared, stream));
  FGEMM_CU_CHECK(cu.cuStreamSynchronize(stream));
  if (options.check) {
    FGEMM_RETURN_IF_ERROR(checkGroups(shape, in, result));
    FGEMM_RETURN_IF_ERROR(checkUnwrittenRows(shape, in, result));
  }
  if (options.time) {
    Expected<double> us =
        medianLaunchTime(cu, stream, flush, options.iters,
                         [&] { return gemm.launch(*prepared, stream); });
    if (!us.ok())
      return us.takeStatus();
    result.timeUs = *us;
  }
  if (!options.timeline.empty() && !prepared->launch.empty) {
    std::string label = std::to_string(shape.groups) + "x" +
                        std::to_string(shape.m) + "x" +
                        std::to_string(shape.n) + "x" + std::to_string(shape.k);
    Expected<bool> recorded = recordTimeline(
        cu, stream, flush, prepared->launch.function, options.timeline, label,
        [&] { return gemm.launch(*prepared, stream); });
    if (!recorded.ok())
      return recorded.takeStatus();
    if (!*recorded)
      std::printf("  %s\n", kNoTimelineNote);
  }
  return Status::success();
}

/// Each group's valid rows against the references, as a dense output of
/// rows x N: calc_diff per group (the worst is reported), the emulation
/// bound on every element, every element written and finite.
Status GroupedBench::checkGroups(const GroupedShape &shape,
                                 const GroupedInputs &in,
                                 GroupedResult &result) {
  const int64_t n = shape.n, k = shape.k;
  const bool masked = options.grouped == GroupedMode::Masked;
  int64_t maxRows = 0;
  for (int64_t rows : in.rows.rows)
    maxRows = std::max(maxRows, rows);
  if ((maxRows + 31) / 32 > 65535)
    return Status::error("the reference check handles up to 2097120 rows "
                         "per group");
  Expected<DeviceBuffer> ref =
      DeviceBuffer::allocate(cu, size_t(std::max<int64_t>(maxRows, 1) * n) * 4);
  if (!ref.ok())
    return ref.takeStatus();
  char line[256];
  result.checked = true;
  double worstDiff = 0;
  for (int64_t group = 0; group < shape.groups; ++group) {
    const int64_t rows = in.rows.rows[size_t(group)];
    const int64_t start = in.rows.starts[size_t(group)];
    if (rows == 0)
      continue;
    const uint32_t checkX = uint32_t((n + 31) / 32),
                   checkY = uint32_t((rows + 31) / 32);
    std::vector<CheckPartial> partials(size_t(checkX) * checkY);
    Expected<DeviceBuffer> devicePartials =
        DeviceBuffer::allocate(cu, partials.size() * sizeof(CheckPartial));
    if (!devicePartials.ok())
      return devicePartials.takeStatus();
    const int64_t nBlocks = scaleBlocks(n), kBlocks = scaleBlocks(k);
    CUdeviceptr x = in.aInput.get() + CUdeviceptr(start * k * 2),
                y = in.bInput.get() + CUdeviceptr(group * n * k * 2),
                refPtr = ref->get();
    CUdeviceptr aq = in.aValues.get() + CUdeviceptr(start * k),
                sfa = in.aScales.get() +
                      CUdeviceptr(
                          (masked ? group * kBlocks * in.sfaRows : start) * 4),
                bq = in.bValues.get() + CUdeviceptr(group * n * k),
                sfb = in.bScales.get() +
                      CUdeviceptr(group * nBlocks * kBlocks * 4),
                none = 0, dPtr = in.d.get() + CUdeviceptr(start * n * 2),
                partialPtr = devicePartials->get();
    int mi = int(rows), ni = int(n), ki = int(k), sfaRows = int(in.sfaRows),
        sfbRows = 0, zero = 0;
    double rel = kRelTolerance, absSum = kAbsSumTolerance,
           absolute = kAbsTolerance;
    FGEMM_RETURN_IF_ERROR(launchReference(cu, refGemm, uint32_t((n + 63) / 64),
                                          uint32_t((rows + 63) / 64), stream,
                                          {&x, &y, &refPtr, &mi, &ni, &ki}));
    FGEMM_RETURN_IF_ERROR(launchReference(
        cu, refCheck, checkX, checkY, stream,
        {&aq,     &sfa,        &bq,   &sfb, &none,   &none,    &dPtr,
         &refPtr, &partialPtr, &mi,   &ni,  &ki,     &sfaRows, &sfbRows,
         &zero,   &zero,       &zero, &rel, &absSum, &absolute}));
    FGEMM_CU_CHECK(cu.cuStreamSynchronize(stream));
    FGEMM_RETURN_IF_ERROR(devicePartials->copyToHost(
        partials.data(), partials.size() * sizeof(CheckPartial)));
    CheckPartial total = sumCheckPartials(partials);
    double diff = calcDiffFromSums(total.sumXY, total.sumSquares);
    double limit =
        calcDiffLimit(calcDiffFromSums(total.emuXY, total.emuSquares));
    worstDiff = std::max(worstDiff, std::isnan(diff) ? INFINITY : diff);
    if (!(diff < limit)) {
      result.passed = false;
      std::snprintf(line, sizeof(line),
                    "group %" PRId64 ": calc_diff %.3e (limit %.3e)", group,
                    diff, limit);
      result.notes.push_back(line);
    }
    if (total.nonFinite) {
      result.passed = false;
      std::snprintf(line, sizeof(line),
                    "group %" PRId64 ": %llu of %" PRId64
                    " valid elements are NaN or infinite (unwritten "
                    "elements stay NaN)",
                    group, total.nonFinite, rows * n);
      result.notes.push_back(line);
    }
    if (total.worstIndex >= 0) {
      result.maxRatio = std::max(result.maxRatio.value_or(0), total.maxRatio);
      if (total.maxRatio > 1) {
        result.passed = false;
        std::snprintf(line, sizeof(line),
                      "group %" PRId64 ": element (%lld, %lld) of the group "
                      "is %.3g x the emulation tolerance away",
                      group, total.worstIndex / n, total.worstIndex % n,
                      total.maxRatio);
        result.notes.push_back(line);
      }
    }
  }
  result.diff = worstDiff;
  return Status::success();
}

/// The rows no group owns: m_indices' padding rows (-1) must be zeros; the
/// psum form's gap rows, the masked layout's rows past masked_m and the rows
/// past the unpadded output must still hold the poison (docs/API.md: left
/// untouched).
Status GroupedBench::checkUnwrittenRows(const GroupedShape &shape,
                                        const GroupedInputs &in,
                                        GroupedResult &result) {
  const int64_t n = shape.n;
  const GroupedMode mode = options.grouped;
  const bool untouched = mode != GroupedMode::Contiguous;
  // [begin, end) row ranges: each group's rows past its own up to its block
  // or capacity; unpadded, the tail past the output.
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int64_t group = 0; group < shape.groups; ++group) {
    const int64_t rows = in.rows.rows[size_t(group)];
    const int64_t start = in.rows.starts[size_t(group)];
    if (mode == GroupedMode::Masked)
      ranges.push_back({start + rows, start + in.rows.capacity});
    else if (mode != GroupedMode::ContiguousUnpadded)
      ranges.push_back({start + rows, start + (rows + 127) / 128 * 128});
  }
  if (mode == GroupedMode::ContiguousUnpadded)
    ranges.push_back({in.rows.totalRows, bufferRows(mode, in.rows)});
  int64_t wrong = 0, firstRow = -1;
  std::vector<uint16_t> bits;
  for (auto [begin, end] : ranges) {
    if (begin == end)
      continue;
    bits.resize(size_t((end - begin) * n));
    FGEMM_RETURN_IF_ERROR(
        in.d.copyToHost(bits.data(), bits.size() * 2, size_t(begin * n) * 2));
    for (size_t i = 0; i < bits.size(); ++i) {
      bool good = untouched ? bits[i] == 0xffff : (bits[i] & 0x7fff) == 0;
      if (!good && wrong++ == 0)
        firstRow = begin + int64_t(i) / n;
    }
  }
  if (wrong) {
    result.passed = false;
    const char *what =
        mode == GroupedMode::Masked
            ? "overwritten (rows past masked_m must stay untouched)"
        : mode == GroupedMode::ContiguousPsum
            ? "overwritten (the gap rows before a group's start must stay "
              "untouched)"
        : mode == GroupedMode::ContiguousUnpadded
            ? "overwritten (rows past the output: out of bounds)"
            : "not zero (padding rows are written as zeros)";
    char line[256];
    std::snprintf(line, sizeof(line),
                  "%" PRId64 " elements of rows no group owns are %s (the "
                  "first in row %" PRId64 ")",
                  wrong, what, firstRow);
    result.notes.push_back(line);
  }
  return Status::success();
}

void printRow(const GroupedShape &shape, const GroupedResult &result) {
  auto number = [](const std::optional<double> &v, const char *format) {
    char text[32] = "-";
    if (v)
      std::snprintf(text, sizeof(text), format, *v);
    return std::string(text);
  };
  std::optional<double> tflops;
  if (result.timeUs && *result.timeUs > 0)
    tflops = 2.0 * double(result.validRows) * double(shape.n) *
             double(shape.k) / (*result.timeUs * 1e-6) * 1e-12;
  char name[64];
  std::snprintf(name, sizeof(name),
                "%" PRId64 "x%" PRId64 ",%" PRId64 ",%" PRId64, shape.groups,
                shape.m, shape.n, shape.k);
  const char *verdict = !result.passed   ? "FAIL"
                        : result.checked ? "PASS"
                                         : "UNCHECKED";
  std::printf(
      "%-22s %8" PRId64 "  %-52s %9s %8s %9s %8s  %s\n", name, result.validRows,
      result.kernel.c_str(), number(result.timeUs, "%.1f").c_str(),
      number(tflops, "%.1f").c_str(), number(result.diff, "%.2e").c_str(),
      number(result.maxRatio, "%.3f").c_str(), verdict);
  for (const std::string &note : result.notes)
    std::printf("    %s\n", note.c_str());
  std::fflush(stdout);
}

} // namespace

int fgemm::bench::chooseGroupedKernels(const Options &options) {
  auto fail = [](const Status &status) {
    std::fprintf(stderr, "fgemm-bench: error: %s\n", status.message().c_str());
    return 1;
  };
  Expected<GroupedKernelDescriptions> found =
      readGroupedKernelDescriptions(options.kernels);
  if (!found.ok())
    return fail(found.status());
  // selectGroupedKernel takes the layout's own kernels among them all.
  const std::vector<KernelMeta> &metas = found->metas;
  const char *variant = groupedVariant(layoutOf(options.grouped));
  const auto ofLayout =
      std::count_if(metas.begin(), metas.end(), [&](const KernelMeta &meta) {
        return meta.variant == variant;
      });
  if (ofLayout == 0)
    return fail(Status::error(std::string("no ") + variant + " kernels in '" +
                              options.kernels + "'"));
  const int sms = options.sms ? options.sms : kChoiceSmsWithoutGpu;
  std::printf("fgemm-bench: the runtime's choice over %td %s kernel(s) from "
              "%s, planning for %d SMs, rows drawn with seed %" PRIu64 "\n",
              ofLayout, variant, options.kernels.c_str(), sms, options.seed);
  const bool masked = options.grouped == GroupedMode::Masked;
  int failures = 0;
  for (const GroupedShape &shape : options.groupedShapes) {
    GroupedGemmProblem problem =
        groupedProblem(options.grouped, shape,
                       drawGroupRows(shape, options.grouped, options.capacity,
                                     options.seed, options.groupRows));
    std::printf("%" PRId64 "x%" PRId64 ",%" PRId64 ",%" PRId64 "  %s %" PRId64
                "  ",
                shape.groups, shape.m, shape.n, shape.k,
                masked ? "capacity" : "rows", problem.m);
    if (Status valid = validateGroupedGemmShape(problem); !valid.ok()) {
      std::printf("error: %s\n", valid.message().c_str());
      ++failures;
      continue;
    }
    Expected<size_t> chosen = selectGroupedKernel(metas, problem, sms);
    if (!chosen.ok()) {
      std::printf("error: %s\n", chosen.status().message().c_str());
      ++failures;
      continue;
    }
    const KernelMeta &meta = metas[*chosen];
    std::printf("%s  %s(%s)\n", found->stems[*chosen].c_str(),
                meta.kernel.c_str(), meta.configName().c_str());
  }
  return failures ? 1 : 0;
}

int fgemm::bench::runGroupedBench(const Driver &cu, const Options &options,
                                  CUfunction refGemm, CUfunction refCheck,
                                  CUstream stream, CUdeviceptr flush) {
  Expected<GroupedGemm> gemm = GroupedGemm::create(options.kernels);
  if (gemm.ok())
    if (Status limited = gemm->setSmLimit(options.sms); !limited.ok())
      gemm = std::move(limited).withContext("--sms");
  if (gemm.ok())
    gemm->setRasterGroup(options.rasterGroup);
  if (!gemm.ok()) {
    std::fprintf(stderr, "fgemm-bench: error: %s\n",
                 gemm.status().message().c_str());
    return 1;
  }
  const GroupedLayout layout = layoutOf(options.grouped);
  int ofLayout = 0;
  for (const KernelMeta &meta : gemm->kernels())
    ofLayout += meta.variant == groupedVariant(layout);
  std::printf("fgemm-bench: %d %s kernel(s) from %s; %zu shape(s), seed "
              "%" PRIu64 ", %s, %s\n",
              ofLayout, groupedVariant(layout), options.kernels.c_str(),
              options.groupedShapes.size(), options.seed,
              options.check ? "checked" : "not checked",
              describeTiming(options).c_str());
  std::printf("%-22s %8s  %-52s %9s %8s %9s %8s  %s\n", "GxM,N,K", "rows",
              "kernel(configuration)", "time_us", "TFLOPS", "diff", "maxerr",
              "result");
  GroupedBench bench(cu, *gemm, options, refGemm, refCheck, stream, flush);
  return runShapes(cu, options.groupedShapes.size(), [&](size_t i) {
    const GroupedShape &shape = options.groupedShapes[i];
    GroupedResult result;
    Status status = bench.runShape(shape, result);
    if (!status.ok()) {
      result.passed = false;
      result.notes.push_back("error: " + status.message());
    }
    printRow(shape, result);
    return ShapeOutcome{!status.ok(), result.passed, result.checked};
  });
}
