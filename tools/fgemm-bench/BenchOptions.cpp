//===- BenchOptions.cpp - fgemm-bench command line and shapes ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "BenchOptions.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <random>
#include <utility>

using namespace fgemm;
using namespace fgemm::bench;

std::string fgemm::bench::usage() {
  return "usage: fgemm-bench --kernels DIR [--shapes "
         "dense|sweep|random:C|M,N,K;...]\n"
         "                   [--iters N] [--seed S] [--device N] [--sms N]\n"
         "                   [--raster-group G]\n"
         "                   [--no-check] [--no-time] [--time] [--warm-l2]\n"
         "                   [--checksum] [--host-latency] "
         "[--recipe 1d2d|1d1d|bias|per-tensor|e5m2-a|e5m2-b]\n"
         "                   [--c-in-place] [--autotune FILE] [--timeline "
         "FILE]\n"
         "       fgemm-bench --kernels DIR --grouped "
         "contiguous|psum|unpadded|masked\n"
         "                   [--shapes grouped|random:C|G,M,N,K;...] "
         "[--capacity C]\n"
         "                   [--group-rows L]\n"
         "                   [--iters N] [--seed S] [--device N] [--sms N]\n"
         "                   [--raster-group G] [--no-check] [--no-time]\n"
         "                   [--timeline FILE]\n"
         "       fgemm-bench --list-devices\n"
         "       fgemm-bench --describe FILE.meta [--describe ...]\n"
         "       fgemm-bench --kernels DIR --choose [--explain] [--shapes S] "
         "[--sms N]\n"
         "                   [--recipe R] [--c-in-place]\n"
         "       fgemm-bench --kernels DIR --choose --grouped L [--shapes S]\n"
         "                   [--capacity C] [--group-rows L] [--seed S] "
         "[--sms N]\n"
         "\n"
         "  --kernels DIR    compiled kernels: NAME.cubin + NAME.meta pairs\n"
         "  --shapes S       'dense' (DESIGN.md §5, default), 'sweep' (edge\n"
         "                   cases, checked but not timed unless --time),\n"
         "                   'random:C' (C shapes drawn from --seed, likewise\n"
         "                   untimed: M log-uniform in 1-8192, N = 8 x "
         "1-2048,\n"
         "                   K = 16 x 1-1024; --grouped: G 1-16, M 1-2048,\n"
         "                   N = 8 x 1-1024, K = 16 x 1-512), or a list\n"
         "                   'M,N,K;M,N,K'\n"
         "  --iters N        timed runs per shape, median reported (30)\n"
         "  --seed S         input generator seed (0)\n"
         "  --device N       CUDA device ordinal (0)\n"
         "  --sms N          plan launches for N SMs (DeepGEMM's set_num_sms;\n"
         "                   0 = all): few SMs make each CTA of a persistent\n"
         "                   grid run many tiles, e.g. under "
         "compute-sanitizer\n"
         "  --raster-group G launches of kernels whose tile order is a launch\n"
         "                   parameter walk groups of G tile rows (1 =\n"
         "                   row-major) instead of the runtime's choice (0)\n"
         "  --recipe R       1d2d (default): D bf16 = A B^T, 128x128 scales on "
         "B;\n"
         "                   1d1d: D f32 = C + A B^T, 1x128 scales on B, C\n"
         "                   random f32 (the dense_1d1d kernels);\n"
         "                   bias: the 1d2d recipe plus a random bf16 bias\n"
         "                   per column (dense_bias); per-tensor: one scale\n"
         "                   per operand (dense_per_tensor); e5m2-a / e5m2-b:\n"
         "                   the 1d2d recipe with A / B in e5m2\n"
         "                   (dense_e5m2_e4m3 / dense_e4m3_e5m2)\n"
         "  --c-in-place     1d1d: C and D are one tensor (accumulate in "
         "place)\n"
         "  --autotune FILE  dense: run and time every loaded kernel that\n"
         "                   accepts each shape (checked unless --no-check),\n"
         "                   then record the fastest that passed in FILE\n"
         "                   (merged into its entries); the runtime takes\n"
         "                   DIR/fgemm-tuning.txt's choices over its model\n"
         "  --grouped L      the M-grouped kernels of layout L: contiguous\n"
         "                   (m_indices), psum (group ends), unpadded (group\n"
         "                   ends, groups at any row) or masked (masked_m);\n"
         "                   --shapes then lists G groups of about M rows,\n"
         "                   N, K ('grouped': DESIGN.md §5), each group's\n"
         "                   rows drawn from 0.7-1.3 M (padded to 128 in\n"
         "                   contiguous and psum); checked per group;\n"
         "                   m_indices' padding rows must be zeros, psum\n"
         "                   gaps, masked rows past masked_m and 128 rows\n"
         "                   past the unpadded output untouched\n"
         "  --capacity C     masked: rows per group of A and D (default\n"
         "                   align(1.3 M, 128); the rows drawn are clamped)\n"
         "  --group-rows L   each group's rows, L = R,R,..., instead of drawn\n"
         "                   ones (every shape has that many groups; masked:\n"
         "                   clamped to the capacity), e.g. to rerun the\n"
         "                   rows of scripts/compare_grouped.py's draws\n"
         "  --no-check       skip the accuracy checks\n"
         "  --host-latency   print the host time of one DenseGemm::run call,\n"
         "                   first (prepares) and warm (reuses the prepared\n"
         "                   launch), and the prepared launch alone\n"
         "  --checksum       print an FNV-1a hash of D's bits per shape (same\n"
         "                   seed + same math = same hash: SASS-pass checks)\n"
         "  --timeline FILE  after the timed launches, one more (L2 flushed)\n"
         "                   whose %globaltimer stamps, of kernels compiled\n"
         "                   with the timeline knob, go to FILE as CSV\n"
         "                   (docs/TIMELINE.md; scripts/timeline_summary.py)\n"
         "  --no-time        skip timing\n"
         "  --time           time even the sweep shapes\n"
         "  --warm-l2        no L2 flush between timed runs (operands stay in\n"
         "                   L2: the kernel's own chain, without DRAM; under\n"
         "                   ncu use --cache-control none)\n"
         "  --describe FILE  parse a kernel description (docs/ABI.md) and "
         "print\n"
         "                   what the runtime would launch; no GPU needed\n"
         "  --choose         per dense shape, the kernel the runtime's model\n"
         "                   picks among DIR's descriptions (its tuning file\n"
         "                   aside); no GPU needed, --sms 0 plans for 132;\n"
         "                   with --grouped, per grouped shape and its rows\n"
         "                   as the run would draw them (--seed,\n"
         "                   --group-rows, --capacity)\n"
         "  --explain        with --choose: every kernel the model ranked,\n"
         "                   best first: its estimate (the model's units),\n"
         "                   tiles, waves and what else ranked it\n"
         "  --list-devices   print 'device I: NAME sm_XY' per GPU and exit;\n"
         "                   prints nothing without a driver or GPU\n";
}

/// Parses a whole decimal integer in [min, max].
static bool parseInteger(const std::string &text, int64_t min, int64_t max,
                         int64_t &value) {
  if (text.empty() || text.size() > 19)
    return false;
  for (size_t i = 0; i < text.size(); ++i)
    if ((text[i] < '0' || text[i] > '9') && !(i == 0 && text[i] == '-'))
      return false;
  errno = 0;
  char *end = nullptr;
  long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || parsed < min || parsed > max)
    return false;
  value = parsed;
  return true;
}

std::vector<Shape> fgemm::bench::denseShapes() {
  const int64_t nk[][2] = {{2112, 7168},  {24576, 1536}, {32768, 512},
                           {7168, 16384}, {4096, 7168},  {7168, 2048}};
  std::vector<Shape> shapes;
  for (const auto &pair : nk)
    for (int64_t m : {64, 128, 4096})
      shapes.push_back({m, pair[0], pair[1]});
  return shapes;
}

std::vector<Shape> fgemm::bench::sweepShapes() {
  std::vector<Shape> shapes;
  for (int64_t n : {64, 128, 192, 576, 2112})
    for (int64_t k : {128, 256, 384, 7168})
      for (int64_t m : {1, 7, 63, 65, 127, 129, 1000})
        shapes.push_back({m, n, k});
  return shapes;
}

/// A log-uniform integer in [lo, hi] from one draw (portable: no standard
/// distribution, whose algorithms differ between libraries).
static int64_t logUniform(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  double unit = double(rng() >> 11) * 0x1p-53;
  double value = std::exp(std::log(double(lo)) +
                          unit * (std::log(double(hi)) - std::log(double(lo))));
  return std::clamp<int64_t>(std::llround(value), lo, hi);
}

/// The COUNT of a "random:COUNT" spec; 0 when `spec` is not one, -1 when
/// COUNT is not an integer in [1, 100000].
static int64_t randomShapeCount(const std::string &spec) {
  const std::string prefix = "random:";
  if (spec.rfind(prefix, 0) != 0)
    return 0;
  int64_t count;
  return parseInteger(spec.substr(prefix.size()), 1, 100000, count) ? count
                                                                    : -1;
}

static Status malformedRandom(const std::string &spec) {
  return Status::error("malformed '" + spec +
                       "' in --shapes (expected random:COUNT with COUNT in "
                       "[1, 100000])");
}

std::vector<Shape> fgemm::bench::randomShapes(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < count; ++i) {
    int64_t m = logUniform(rng, 1, 8192);
    int64_t n = 8 * logUniform(rng, 1, 2048);
    shapes.push_back({m, n, 16 * logUniform(rng, 1, 1024)});
  }
  return shapes;
}

std::vector<GroupedShape> fgemm::bench::randomGroupedShapes(int64_t count,
                                                            uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<GroupedShape> shapes;
  for (int64_t i = 0; i < count; ++i) {
    int64_t groups = 1 + int64_t(rng() % 16);
    int64_t m = logUniform(rng, 1, 2048);
    int64_t n = 8 * logUniform(rng, 1, 1024);
    shapes.push_back({groups, m, n, 16 * logUniform(rng, 1, 512)});
  }
  return shapes;
}

/// Splits `text` at every `separator` (n separators give n + 1 fields).
static std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t at; (at = text.find(separator, start)) != std::string::npos;
       start = at + 1)
    fields.push_back(text.substr(start, at - start));
  fields.push_back(text.substr(start));
  return fields;
}

Expected<std::vector<Shape>> fgemm::bench::parseShapes(const std::string &spec,
                                                       uint64_t seed) {
  if (spec == "dense")
    return denseShapes();
  if (spec == "sweep")
    return sweepShapes();
  int64_t count = randomShapeCount(spec);
  if (count < 0)
    return malformedRandom(spec);
  if (count > 0)
    return randomShapes(count, seed);
  std::vector<std::string> items = split(spec, ';');
  // One trailing ';' is harmless.
  if (items.size() > 1 && items.back().empty())
    items.pop_back();
  std::vector<Shape> shapes;
  for (const std::string &item : items) {
    std::vector<std::string> fields = split(item, ',');
    int64_t dims[3];
    bool good = fields.size() == 3;
    for (size_t i = 0; good && i < 3; ++i)
      good = parseInteger(fields[i], 0, int64_t(1) << 40, dims[i]);
    if (!good)
      return Status::error("malformed shape '" + item +
                           "' in --shapes (expected 'dense', 'sweep', "
                           "'random:COUNT' or M,N,K;M,N,K;... with "
                           "non-negative integers)");
    shapes.push_back({dims[0], dims[1], dims[2]});
  }
  return shapes;
}

Expected<std::vector<GroupedShape>>
fgemm::bench::parseGroupedShapes(const std::string &spec, GroupedMode mode,
                                 uint64_t seed) {
  int64_t count = randomShapeCount(spec);
  if (count < 0)
    return malformedRandom(spec);
  if (count > 0)
    return randomGroupedShapes(count, seed);
  if (spec == "grouped" && mode == GroupedMode::Masked)
    return std::vector<GroupedShape>{
        {1, 1024, 4096, 7168}, {1, 1024, 7168, 2048}, {2, 512, 4096, 7168},
        {2, 512, 7168, 2048},  {4, 256, 4096, 7168},  {4, 256, 7168, 2048}};
  if (spec == "grouped")
    return std::vector<GroupedShape>{{4, 8192, 4096, 7168},
                                     {4, 8192, 7168, 2048},
                                     {8, 4096, 4096, 7168},
                                     {8, 4096, 7168, 2048}};
  std::vector<std::string> items = split(spec, ';');
  if (items.size() > 1 && items.back().empty())
    items.pop_back();
  std::vector<GroupedShape> shapes;
  for (const std::string &item : items) {
    std::vector<std::string> fields = split(item, ',');
    int64_t dims[4];
    bool good = fields.size() == 4;
    for (size_t i = 0; good && i < 4; ++i)
      good = parseInteger(fields[i], i < 2 ? 1 : 0, int64_t(1) << 31, dims[i]);
    if (!good)
      return Status::error("malformed grouped shape '" + item +
                           "' in --shapes (expected 'grouped', "
                           "'random:COUNT' or G,M,N,K;... with G, M >= 1 "
                           "and N, K >= 0)");
    shapes.push_back({dims[0], dims[1], dims[2], dims[3]});
  }
  return shapes;
}

Expected<Options>
fgemm::bench::parseOptions(const std::vector<std::string> &args) {
  Options options;
  bool timeGiven = false, noTime = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool hasValue = false;
    if (size_t equals = flag.find('=');
        flag.rfind("--", 0) == 0 && equals != std::string::npos) {
      value = flag.substr(equals + 1);
      flag = flag.substr(0, equals);
      hasValue = true;
    }
    auto takeValue = [&]() -> bool {
      if (hasValue)
        return true;
      if (i + 1 >= args.size())
        return false;
      value = args[++i];
      return true;
    };
    auto needsValue = [&]() {
      return Status::error("option '" + flag + "' needs a value");
    };
    auto noValue = [&]() -> Status {
      if (hasValue)
        return Status::error("option '" + flag + "' takes no value");
      return Status::success();
    };
    int64_t number = 0;
    if (flag == "--kernels") {
      if (!takeValue())
        return needsValue();
      options.kernels = value;
    } else if (flag == "--shapes") {
      if (!takeValue())
        return needsValue();
      options.shapeSpec = value;
    } else if (flag == "--iters") {
      if (!takeValue())
        return needsValue();
      if (!parseInteger(value, 1, 100000, number))
        return Status::error("--iters needs an integer in [1, 100000], got '" +
                             value + "'");
      options.iters = static_cast<int>(number);
    } else if (flag == "--seed") {
      if (!takeValue())
        return needsValue();
      if (!parseInteger(value, 0, INT64_MAX, number))
        return Status::error("--seed needs a non-negative integer, got '" +
                             value + "'");
      options.seed = static_cast<uint64_t>(number);
    } else if (flag == "--device") {
      if (!takeValue())
        return needsValue();
      if (!parseInteger(value, 0, 1023, number))
        return Status::error("--device needs a device ordinal, got '" + value +
                             "'");
      options.device = static_cast<int>(number);
    } else if (flag == "--sms") {
      if (!takeValue())
        return needsValue();
      if (!parseInteger(value, 0, 1024, number))
        return Status::error("--sms needs an SM count (0 = all), got '" +
                             value + "'");
      options.sms = static_cast<int>(number);
    } else if (flag == "--raster-group") {
      if (!takeValue())
        return needsValue();
      if (!parseInteger(value, 0, 65535, number))
        return Status::error("--raster-group needs a group of tile rows in "
                             "[0, 65535] (0 = the runtime's choice), got '" +
                             value + "'");
      options.rasterGroup = static_cast<uint32_t>(number);
    } else if (flag == "--recipe") {
      if (!takeValue())
        return needsValue();
      static const std::pair<const char *, DenseRecipe> recipes[] = {
          {"1d2d", DenseRecipe::k1D2D},
          {"1d1d", DenseRecipe::k1D1D},
          {"bias", DenseRecipe::kBias1D2D},
          {"per-tensor", DenseRecipe::kPerTensor},
          {"e5m2-a", DenseRecipe::kE5M2xE4M3},
          {"e5m2-b", DenseRecipe::kE4M3xE5M2}};
      auto it = std::find_if(std::begin(recipes), std::end(recipes),
                             [&](const auto &r) { return value == r.first; });
      if (it == std::end(recipes))
        return Status::error("--recipe is 1d2d, 1d1d, bias, per-tensor, "
                             "e5m2-a or e5m2-b, got '" +
                             value + "'");
      options.recipe = it->second;
    } else if (flag == "--grouped") {
      if (!takeValue())
        return needsValue();
      static const std::pair<const char *, GroupedMode> modes[] = {
          {"contiguous", GroupedMode::Contiguous},
          {"psum", GroupedMode::ContiguousPsum},
          {"unpadded", GroupedMode::ContiguousUnpadded},
          {"masked", GroupedMode::Masked}};
      auto it = std::find_if(std::begin(modes), std::end(modes),
                             [&](const auto &m) { return value == m.first; });
      if (it == std::end(modes))
        return Status::error("--grouped is contiguous, psum, unpadded or "
                             "masked, got '" +
                             value + "'");
      options.grouped = it->second;
    } else if (flag == "--capacity") {
      if (!takeValue())
        return needsValue();
      if (!parseInteger(value, 1, int64_t(1) << 31, number))
        return Status::error("--capacity needs a positive row count, got '" +
                             value + "'");
      options.capacity = number;
    } else if (flag == "--group-rows") {
      if (!takeValue())
        return needsValue();
      options.groupRows.clear();
      for (const std::string &item : split(value, ',')) {
        if (!parseInteger(item, 0, int64_t(1) << 31, number))
          return Status::error("--group-rows needs row counts (>= 0) "
                               "separated by commas, got '" +
                               value + "'");
        options.groupRows.push_back(number);
      }
    } else if (flag == "--autotune") {
      if (!takeValue())
        return needsValue();
      options.autotune = value;
    } else if (flag == "--timeline") {
      if (!takeValue())
        return needsValue();
      options.timeline = value;
    } else if (flag == "--c-in-place") {
      FGEMM_RETURN_IF_ERROR(noValue());
      options.cInPlace = true;
    } else if (flag == "--describe") {
      if (!takeValue())
        return needsValue();
      options.describe.push_back(value);
    } else if (flag == "--checksum") {
      options.checksum = true;
    } else if (flag == "--host-latency") {
      options.hostLatency = true;
    } else if (flag == "--warm-l2") {
      FGEMM_RETURN_IF_ERROR(noValue());
      options.warmL2 = true;
    } else if (flag == "--choose") {
      FGEMM_RETURN_IF_ERROR(noValue());
      options.choose = true;
    } else if (flag == "--explain") {
      FGEMM_RETURN_IF_ERROR(noValue());
      options.explain = true;
    } else if (flag == "--list-devices" || flag == "--no-check" ||
               flag == "--no-time" || flag == "--time" || flag == "--help" ||
               flag == "-h") {
      FGEMM_RETURN_IF_ERROR(noValue());
      options.listDevices |= flag == "--list-devices";
      options.check &= flag != "--no-check";
      noTime |= flag == "--no-time";
      timeGiven |= flag == "--time";
      options.help |= flag == "--help" || flag == "-h";
    } else {
      return Status::error("unknown option '" + args[i] + "'");
    }
  }
  if (noTime && timeGiven)
    return Status::error("--time and --no-time contradict each other");
  if (options.cInPlace && options.recipe != DenseRecipe::k1D1D)
    return Status::error("--c-in-place needs --recipe 1d1d (the 1d2d recipe "
                         "has no C)");
  if (options.help || options.listDevices || !options.describe.empty())
    return options;
  if (options.kernels.empty())
    return Status::error("--kernels DIR is required");
  if (options.explain && !options.choose)
    return Status::error("--explain lists the ranking of --choose: give "
                         "--choose too");
  if (options.choose && !options.autotune.empty())
    return Status::error("--choose prints the runtime's choices: not with "
                         "--autotune");
  if (options.explain && options.grouped != GroupedMode::None)
    return Status::error("--explain ranks the dense model's candidates: not "
                         "with --grouped");
  if (!options.autotune.empty() && options.grouped != GroupedMode::None)
    return Status::error("--autotune tunes dense shapes (the grouped "
                         "layouts' choice is not tunable yet)");
  if (!options.autotune.empty() && (noTime || options.warmL2))
    return Status::error("--autotune times the candidates: --no-time and "
                         "--warm-l2 are not allowed with it");
  if (options.capacity && options.grouped != GroupedMode::Masked)
    return Status::error("--capacity is for --grouped masked");
  if (!options.groupRows.empty() && options.grouped == GroupedMode::None)
    return Status::error("--group-rows is for --grouped runs");
  if (options.grouped != GroupedMode::None) {
    if (options.recipe != DenseRecipe::k1D2D || options.cInPlace ||
        options.checksum || options.hostLatency)
      return Status::error("--grouped runs the 1d2d grouped kernels: "
                           "--recipe, --c-in-place, --checksum and "
                           "--host-latency are for dense runs");
    if (options.shapeSpec == "dense")
      options.shapeSpec = "grouped";
    Expected<std::vector<GroupedShape>> grouped =
        parseGroupedShapes(options.shapeSpec, options.grouped, options.seed);
    if (!grouped.ok())
      return grouped.takeStatus();
    options.groupedShapes = std::move(*grouped);
    const auto givenGroups = int64_t(options.groupRows.size());
    for (const GroupedShape &shape : options.groupedShapes)
      if (givenGroups && shape.groups != givenGroups)
        return Status::error(
            "--group-rows gives " + std::to_string(options.groupRows.size()) +
            " group(s), but shape " + std::to_string(shape.groups) + "x" +
            std::to_string(shape.m) + "," + std::to_string(shape.n) + "," +
            std::to_string(shape.k) + " has " + std::to_string(shape.groups));
    options.time =
        timeGiven || (!noTime && randomShapeCount(options.shapeSpec) == 0);
    return options;
  }
  Expected<std::vector<Shape>> shapes =
      parseShapes(options.shapeSpec, options.seed);
  if (!shapes.ok())
    return shapes.takeStatus();
  options.shapes = std::move(*shapes);
  // The sweep and random shapes are for checking: untimed unless asked.
  bool checkingSet =
      options.shapeSpec == "sweep" || randomShapeCount(options.shapeSpec) != 0;
  options.time =
      timeGiven || (!noTime && !checkingSet) || !options.autotune.empty();
  return options;
}

std::string fgemm::bench::describeTiming(const Options &options) {
  if (!options.time)
    return "not timed";
  return "timed (median of " + std::to_string(options.iters) +
         (options.warmL2 ? ", L2 warm)" : ")");
}
