//===- KernelMeta.cpp - The .meta launch description of a cubin -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/KernelMeta.h"

#include <array>
#include <fstream>
#include <sstream>

using namespace fgemm;

std::string KernelMeta::configName() const {
  std::string name = "bm" + std::to_string(blockM) + "_bn" +
                     std::to_string(blockN) + "_s" + std::to_string(stages);
  if (persistent())
    name += "_persistent";
  if (fixedN)
    name += "_n" + std::to_string(fixedN);
  if (fixedK)
    name += "_k" + std::to_string(fixedK);
  return name;
}

namespace {
/// One key of the file: its name and where the parsed value goes.
struct KeySpec {
  const char *name;
  std::string KernelMeta::*text;
  uint32_t KernelMeta::*number;
  bool required;
};
} // namespace

static const std::array<KeySpec, 13> kKeys = {{
    {"kernel", &KernelMeta::kernel, nullptr, true},
    {"variant", &KernelMeta::variant, nullptr, true},
    {"block_m", nullptr, &KernelMeta::blockM, true},
    {"block_n", nullptr, &KernelMeta::blockN, true},
    {"block_k", nullptr, &KernelMeta::blockK, true},
    {"stages", nullptr, &KernelMeta::stages, true},
    {"math_warpgroups", nullptr, &KernelMeta::mathWarpgroups, true},
    {"threads", nullptr, &KernelMeta::threads, true},
    {"smem_bytes", nullptr, &KernelMeta::smemBytes, true},
    {"cluster", nullptr, &KernelMeta::cluster, true},
    {"schedule", &KernelMeta::schedule, nullptr, false},
    {"fixed_n", nullptr, &KernelMeta::fixedN, true},
    {"fixed_k", nullptr, &KernelMeta::fixedK, true},
}};

static std::string_view trim(std::string_view s) {
  const char *space = " \t\r\n";
  size_t first = s.find_first_not_of(space);
  if (first == std::string_view::npos)
    return {};
  size_t last = s.find_last_not_of(space);
  return s.substr(first, last - first + 1);
}

/// Parses a decimal uint32 with nothing else around it.
static bool parseUnsigned(std::string_view text, uint32_t &value) {
  if (text.empty() || text.size() > 10)
    return false;
  uint64_t result = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    result = result * 10 + static_cast<uint64_t>(c - '0');
  }
  if (result > UINT32_MAX)
    return false;
  value = static_cast<uint32_t>(result);
  return true;
}

static bool isIdentifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9'))
    return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.'))
      return false;
  return true;
}

Expected<KernelMeta> fgemm::parseKernelMeta(std::string_view text,
                                            const std::string &source) {
  KernelMeta meta;
  std::array<int, kKeys.size()> seenOnLine{};
  int lineNumber = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view()
                                         : text.substr(end + 1);
    ++lineNumber;
    std::string where = source + ":" + std::to_string(lineNumber) + ": ";
    if (size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    line = trim(line);
    if (line.empty())
      continue;

    size_t equals = line.find('=');
    if (equals == std::string_view::npos)
      return Status::error(where + "expected key=value, got '" +
                           std::string(line) + "'");
    std::string_view key = trim(line.substr(0, equals));
    std::string_view value = trim(line.substr(equals + 1));

    size_t index = 0;
    while (index < kKeys.size() && key != kKeys[index].name)
      ++index;
    if (index == kKeys.size()) {
      std::string known;
      for (const KeySpec &spec : kKeys)
        known += (known.empty() ? "" : ", ") + std::string(spec.name);
      return Status::error(where + "unknown key '" + std::string(key) +
                           "' (known keys: " + known +
                           "); is the runtime older than the compiler?");
    }
    const KeySpec &spec = kKeys[index];
    if (seenOnLine[index])
      return Status::error(where + "duplicate key '" + spec.name +
                           "' (first set on line " +
                           std::to_string(seenOnLine[index]) + ")");
    seenOnLine[index] = lineNumber;

    if (spec.text) {
      if (value.empty())
        return Status::error(where + "empty value for '" + spec.name + "'");
      meta.*spec.text = std::string(value);
      continue;
    }
    if (!parseUnsigned(value, meta.*spec.number))
      return Status::error(where + "'" + spec.name +
                           "' needs a non-negative decimal integer below "
                           "2^32, got '" +
                           std::string(value) + "'");
  }

  std::string missing;
  for (size_t i = 0; i < kKeys.size(); ++i)
    if (!seenOnLine[i] && kKeys[i].required)
      missing += (missing.empty() ? "" : ", ") + std::string(kKeys[i].name);
  if (!missing.empty())
    return Status::error(source + ": missing key(s): " + missing);
  Status valid = validateKernelMeta(meta);
  if (!valid.ok())
    return std::move(valid).withContext(source);
  return meta;
}

Expected<KernelMeta> fgemm::readKernelMeta(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Status::error("cannot open kernel description '" + path + "'");
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad())
    return Status::error("cannot read kernel description '" + path + "'");
  return parseKernelMeta(contents.str(), path);
}

Status fgemm::validateKernelMeta(const KernelMeta &meta) {
  auto fail = [](const std::string &what) { return Status::error(what); };
  if (!isIdentifier(meta.kernel))
    return fail("kernel='" + meta.kernel + "' is not a symbol name");
  if (meta.variant != "dense")
    return fail("variant='" + meta.variant +
                "' is not supported; this runtime launches 'dense' kernels");
  if (meta.blockK != 128)
    return fail("block_k=" + std::to_string(meta.blockK) +
                " but the 1x128/128x128 scaling needs block_k=128");
  if (meta.mathWarpgroups != 1 && meta.mathWarpgroups != 2)
    return fail("math_warpgroups=" + std::to_string(meta.mathWarpgroups) +
                " (allowed: 1 or 2)");
  if (meta.blockM != 64 * meta.mathWarpgroups)
    return fail("block_m=" + std::to_string(meta.blockM) +
                " does not match math_warpgroups=" +
                std::to_string(meta.mathWarpgroups) +
                " (block_m must be 64 * math_warpgroups)");
  if (meta.threads != 128 * (1 + meta.mathWarpgroups))
    return fail("threads=" + std::to_string(meta.threads) + " but " +
                std::to_string(meta.mathWarpgroups) +
                " math warpgroup(s) plus the producer need " +
                std::to_string(128 * (1 + meta.mathWarpgroups)));
  // D's TMA box is block_n bf16 wide: 16-byte multiple, at most 256 entries.
  if (meta.blockN < 8 || meta.blockN > 256 || meta.blockN % 8 != 0)
    return fail("block_n=" + std::to_string(meta.blockN) +
                " (allowed: a multiple of 8 in [8, 256])");
  if (meta.stages == 0)
    return fail("stages=0 (need at least one pipeline stage)");
  if (meta.smemBytes == 0 || meta.smemBytes > kMaxSharedMemoryBytes)
    return fail("smem_bytes=" + std::to_string(meta.smemBytes) +
                " (allowed: 1 to " + std::to_string(kMaxSharedMemoryBytes) +
                ", Hopper's opt-in limit)");
  if (meta.cluster != 1 && meta.cluster != 2)
    return fail("cluster=" + std::to_string(meta.cluster) +
                " (allowed: 1, or 2 = pairs of CTAs along N sharing A by multicast)");
  if (meta.cluster > 1 && meta.schedule == "persistent")
    return fail("cluster=" + std::to_string(meta.cluster) +
                " needs schedule=plain (allowed: clusters of plain grids)");
  if (meta.schedule != "plain" && meta.schedule != "persistent")
    return fail("schedule='" + meta.schedule +
                "' (allowed: plain or persistent)");
  if (meta.fixedN % 8 != 0)
    return fail("fixed_n=" + std::to_string(meta.fixedN) +
                " is not a multiple of 8");
  if (meta.fixedK % 16 != 0)
    return fail("fixed_k=" + std::to_string(meta.fixedK) +
                " is not a multiple of 16");
  return Status::success();
}
