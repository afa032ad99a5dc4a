//===- KernelMeta.cpp - The .meta description of a kernel -------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/KernelMeta.h"
#include "Runtime/TensorMap.h"

#include <array>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

using namespace fgemm;

uint32_t fgemm::elementBytes(ElementType type) {
  switch (type) {
  case ElementType::E4M3:
  case ElementType::E5M2:
    return 1;
  case ElementType::BF16:
    return 2;
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  }
  return 0;
}

const char *fgemm::elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::E4M3:
    return "e4m3";
  case ElementType::E5M2:
    return "e5m2";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F32:
    return "f32";
  case ElementType::I32:
    return "i32";
  }
  return "?";
}

static const char *swizzleName(CUtensorMapSwizzle swizzle) {
  switch (swizzle) {
  case CU_TENSOR_MAP_SWIZZLE_32B:
    return "32b";
  case CU_TENSOR_MAP_SWIZZLE_64B:
    return "64b";
  case CU_TENSOR_MAP_SWIZZLE_128B:
    return "128b";
  default:
    return "none";
  }
}

static std::string joinList(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ",") + item;
  return text;
}

int KernelMeta::dimIndex(std::string_view name) const {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == name)
      return static_cast<int>(i);
  return -1;
}

std::string KernelMeta::configName() const {
  std::string name = "bm" + std::to_string(blockM) + "_bn" +
                     std::to_string(blockN) + "_s" + std::to_string(stages);
  if (streamK())
    name += "_stream_k";
  else if (persistent())
    name += "_persistent";
  if (cluster > 1)
    name += "_cluster" + std::to_string(cluster) + (clusterAlongM() ? "b" : "");
  if (kSplit > 1)
    name += "_ksplit" + std::to_string(kSplit);
  if (fixedN)
    name += "_n" + std::to_string(fixedN);
  if (fixedK)
    name += "_k" + std::to_string(fixedK);
  return name;
}

std::string fgemm::formatKernelArg(const KernelArg &arg) {
  std::string text =
      arg.kind == KernelArg::Kind::Tensor ? "tensor " : "scales ";
  text += std::string(elementTypeName(arg.element)) + " " + joinList(arg.dims);
  if (arg.kind == KernelArg::Kind::Scales) {
    text += arg.perTensor ? std::string(" per_tensor")
                          : " block=" + std::to_string(arg.block[0]) + "x" +
                                std::to_string(arg.block[1]);
    if (arg.mnMajor)
      text += " mn_major";
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Lexical helpers
//===----------------------------------------------------------------------===//

static std::string_view trim(std::string_view s) {
  const char *space = " \t\r\n";
  size_t first = s.find_first_not_of(space);
  if (first == std::string_view::npos)
    return {};
  size_t last = s.find_last_not_of(space);
  return s.substr(first, last - first + 1);
}

/// Splits at `separator`, keeping empty pieces (so "m,,k" is an error).
static std::vector<std::string_view> split(std::string_view text,
                                           char separator) {
  std::vector<std::string_view> pieces;
  while (true) {
    size_t at = text.find(separator);
    pieces.push_back(text.substr(0, at));
    if (at == std::string_view::npos)
      return pieces;
    text = text.substr(at + 1);
  }
}

/// Whitespace-separated words.
static std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> result;
  const char *space = " \t";
  while (true) {
    size_t first = text.find_first_not_of(space);
    if (first == std::string_view::npos)
      return result;
    text = text.substr(first);
    size_t end = text.find_first_of(space);
    result.push_back(text.substr(0, end));
    if (end == std::string_view::npos)
      return result;
    text = text.substr(end);
  }
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

/// An index of `arg.I`/`param.I`: decimal without leading zeros, so that
/// `arg.1` and `arg.01` cannot both name argument 1.
static bool parseIndex(std::string_view text, uint32_t &value) {
  if (text.size() > 1 && text[0] == '0')
    return false;
  return parseUnsigned(text, value);
}

/// A cubin symbol (PTX identifiers also allow $ and .).
static bool isSymbolName(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9'))
    return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.'))
      return false;
  return true;
}

/// A variant or dimension name: [A-Za-z_][A-Za-z0-9_]*.
static bool isIdentifier(std::string_view name) {
  return isSymbolName(name) &&
         name.find_first_of("$.") == std::string_view::npos;
}

/// "AxB" with two decimal uint32 values (the caller checks their range).
static bool parsePair(std::string_view text, uint32_t pair[2]) {
  std::vector<std::string_view> parts = split(text, 'x');
  return parts.size() == 2 && parseUnsigned(parts[0], pair[0]) &&
         parseUnsigned(parts[1], pair[1]);
}

static std::optional<ElementType> parseElementType(std::string_view text) {
  for (ElementType type :
       {ElementType::E4M3, ElementType::E5M2, ElementType::BF16,
        ElementType::F32, ElementType::I32})
    if (text == elementTypeName(type))
      return type;
  return std::nullopt;
}

/// A comma list of identifiers ("m,n,k"); "" or an error.
static std::string parseSymbolList(std::string_view text,
                                   std::vector<std::string> &symbols) {
  symbols.clear();
  for (std::string_view piece : split(text, ',')) {
    if (!isIdentifier(piece))
      return "'" + std::string(piece) +
             "' is not a dimension name (allowed: [A-Za-z_][A-Za-z0-9_]*, "
             "comma-separated)";
    symbols.emplace_back(piece);
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Values of the keys. Each parser returns "" or what is wrong with the value.
//===----------------------------------------------------------------------===//

static std::string parseArg(std::string_view value, KernelArg &arg) {
  std::vector<std::string_view> tokens = words(value);
  if (tokens.size() < 3)
    return "expected 'tensor ELEM DIMS' or 'scales ELEM DIMS "
           "block=B0xB1|per_tensor [mn_major]', got '" +
           std::string(value) + "'";
  if (tokens[0] == "tensor")
    arg.kind = KernelArg::Kind::Tensor;
  else if (tokens[0] == "scales")
    arg.kind = KernelArg::Kind::Scales;
  else
    return "unknown argument kind '" + std::string(tokens[0]) +
           "' (allowed: tensor, scales)";
  std::optional<ElementType> element = parseElementType(tokens[1]);
  if (!element)
    return "unknown element type '" + std::string(tokens[1]) +
           "' (allowed: e4m3, e5m2, bf16, f32, i32)";
  arg.element = *element;
  std::string error = parseSymbolList(tokens[2], arg.dims);
  if (!error.empty())
    return error;
  bool tensor = arg.kind == KernelArg::Kind::Tensor;
  size_t minRank = tensor ? 1 : 2;
  if (arg.dims.size() < minRank || arg.dims.size() > 3)
    return std::string(tokens[0]) + " of " + std::to_string(arg.dims.size()) +
           " dimensions (allowed: " + (tensor ? "1 to 3" : "2 or 3") +
           "; a third is a leading group dimension)";
  bool haveBlock = false, haveMnMajor = false;
  for (size_t i = 3; i < tokens.size(); ++i) {
    std::string_view token = tokens[i];
    if (tensor)
      return "unexpected '" + std::string(token) +
             "' after a tensor's dimensions";
    if (token == "mn_major" && !haveMnMajor) {
      arg.mnMajor = haveMnMajor = true;
    } else if (token == "per_tensor" && !haveBlock) {
      arg.perTensor = haveBlock = true;
    } else if (token.substr(0, 6) == "block=" && !haveBlock) {
      haveBlock = true;
      if (!parsePair(token.substr(6), arg.block) || arg.block[0] == 0 ||
          arg.block[1] == 0)
        return "'" + std::string(token) +
               "' needs two positive integers (block=B0xB1)";
    } else {
      return "unexpected or repeated '" + std::string(token) +
             "' (scales take block=B0xB1 or per_tensor, and optionally "
             "mn_major)";
    }
  }
  if (!tensor && !haveBlock)
    return "scales need block=B0xB1 or per_tensor";
  if (arg.perTensor && arg.mnMajor)
    return "per_tensor scales have no mn_major layout";
  return "";
}

static std::string parseParam(std::string_view value, KernelParam &param) {
  std::vector<std::string_view> tokens = words(value);
  if (tokens.empty())
    return "expected 'tensor_map arg=J box=INNERxOUTER swizzle=S', "
           "'pointer arg=J', 'workspace bytes_per_cta=N', 'raster_group "
           "default=G' or 'dim NAME'";
  if (tokens[0] == "dim") {
    param.kind = KernelParam::Kind::Dim;
    if (tokens.size() != 2 || !isIdentifier(tokens[1]))
      return "expected 'dim NAME', got '" + std::string(value) + "'";
    param.dim = std::string(tokens[1]);
    return "";
  }
  if (tokens[0] == "workspace") {
    param.kind = KernelParam::Kind::Workspace;
    constexpr std::string_view key = "bytes_per_cta=";
    if (tokens.size() != 2 || tokens[1].substr(0, key.size()) != key ||
        !parseUnsigned(tokens[1].substr(key.size()), param.bytesPerCta) ||
        param.bytesPerCta == 0 || param.bytesPerCta % 16 != 0)
      return "expected 'workspace bytes_per_cta=N' (N a positive multiple of "
             "16), got '" +
             std::string(value) + "'";
    return "";
  }
  if (tokens[0] == "raster_group") {
    param.kind = KernelParam::Kind::RasterGroup;
    constexpr std::string_view key = "default=";
    if (tokens.size() != 2 || tokens[1].substr(0, key.size()) != key ||
        !parseUnsigned(tokens[1].substr(key.size()),
                       param.defaultRasterGroup) ||
        param.defaultRasterGroup == 0)
      return "expected 'raster_group default=G' (G >= 1), got '" +
             std::string(value) + "'";
    return "";
  }
  if (tokens[0] == "pointer")
    param.kind = KernelParam::Kind::Pointer;
  else if (tokens[0] == "tensor_map")
    param.kind = KernelParam::Kind::TensorMap;
  else
    return "unknown parameter kind '" + std::string(tokens[0]) +
           "' (allowed: tensor_map, pointer, workspace, raster_group, dim)";
  bool map = param.kind == KernelParam::Kind::TensorMap;
  std::set<std::string_view> seen;
  for (size_t i = 1; i < tokens.size(); ++i) {
    std::string_view token = tokens[i];
    size_t equals = token.find('=');
    std::string_view name = token.substr(0, equals);
    bool known =
        equals != std::string_view::npos &&
        (name == "arg" || (map && (name == "box" || name == "swizzle")));
    if (!known)
      return "unexpected '" + std::string(token) + "' in a " +
             std::string(tokens[0]) + " parameter";
    if (!seen.insert(name).second)
      return "repeated '" + std::string(name) + "='";
    std::string_view text = token.substr(equals + 1);
    if (name == "arg") {
      if (!parseIndex(text, param.arg))
        return "'" + std::string(token) + "' needs an argument index";
    } else if (name == "box") {
      if (!parsePair(text, param.box))
        return "'" + std::string(token) +
               "' needs two integers (box=INNERxOUTER, in elements)";
    } else if (text == "none") {
      param.swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
    } else if (text == "32b") {
      param.swizzle = CU_TENSOR_MAP_SWIZZLE_32B;
    } else if (text == "64b") {
      param.swizzle = CU_TENSOR_MAP_SWIZZLE_64B;
    } else if (text == "128b") {
      param.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
    } else {
      return "unknown swizzle '" + std::string(text) +
             "' (allowed: none, 32b, 64b, 128b)";
    }
  }
  for (const char *required :
       map ? std::vector<const char *>{"arg", "box", "swizzle"}
           : std::vector<const char *>{"arg"})
    if (!seen.count(required))
      return std::string(tokens[0]) + " parameter without " + required + "=";
  return "";
}

static std::string parseTiles(std::string_view value,
                              std::vector<TileFactor> &tiles) {
  tiles.clear();
  std::vector<std::string_view> factors = split(value, ',');
  if (factors.size() > 3)
    return "tiles has " + std::to_string(factors.size()) +
           " factors (allowed: 1 to 3, for grid x, y, z)";
  for (std::string_view factor : factors) {
    size_t slash = factor.find('/');
    TileFactor tile;
    if (slash == std::string_view::npos ||
        !isIdentifier(factor.substr(0, slash)) ||
        !parseUnsigned(factor.substr(slash + 1), tile.block) || tile.block == 0)
      return "tile factor '" + std::string(factor) +
             "' is not DIM/BLOCK with a positive integer BLOCK";
    tile.dim = std::string(factor.substr(0, slash));
    tiles.push_back(std::move(tile));
  }
  return "";
}

//===----------------------------------------------------------------------===//
// The key table
//===----------------------------------------------------------------------===//

namespace {
/// One scalar key of the file and how its value is stored.
struct KeySpec {
  const char *name;
  std::string (*parse)(std::string_view value, KernelMeta &meta);
  /// Written only where it differs from its default (an older runtime
  /// refuses such a kernel: "unknown key").
  bool optional = false;
};

template <uint32_t KernelMeta::*Field>
std::string parseNumberField(std::string_view value, KernelMeta &meta) {
  return parseUnsigned(value, meta.*Field)
             ? ""
             : "needs a non-negative decimal integer below 2^32, got '" +
                   std::string(value) + "'";
}

template <std::string KernelMeta::*Field>
std::string parseTextField(std::string_view value, KernelMeta &meta) {
  meta.*Field = std::string(value);
  return "";
}

/// Where keys were set, for "FILE:LINE: " prefixes; empty for a KernelMeta
/// built in code (validateKernelMeta), whose messages have no prefix.
class Locator {
public:
  Locator() = default;
  Locator(std::string source, std::map<std::string, int> lines)
      : source(std::move(source)), lines(std::move(lines)) {}

  std::string operator()(const std::string &key) const {
    auto it = lines.find(key);
    if (it != lines.end())
      return source + ":" + std::to_string(it->second) + ": ";
    return source.empty() ? "" : source + ": ";
  }

private:
  std::string source;
  std::map<std::string, int> lines;
};
} // namespace

static const std::array<KeySpec, 17> kKeys = {{
    {"abi_version", parseNumberField<&KernelMeta::abiVersion>},
    {"kernel", parseTextField<&KernelMeta::kernel>},
    {"variant", parseTextField<&KernelMeta::variant>},
    {"block_m", parseNumberField<&KernelMeta::blockM>},
    {"block_n", parseNumberField<&KernelMeta::blockN>},
    {"block_k", parseNumberField<&KernelMeta::blockK>},
    {"stages", parseNumberField<&KernelMeta::stages>},
    {"math_warpgroups", parseNumberField<&KernelMeta::mathWarpgroups>},
    {"threads", parseNumberField<&KernelMeta::threads>},
    {"smem_bytes", parseNumberField<&KernelMeta::smemBytes>},
    {"cluster", parseNumberField<&KernelMeta::cluster>},
    {"k_split", parseNumberField<&KernelMeta::kSplit>, /*optional=*/true},
    {"schedule", parseTextField<&KernelMeta::schedule>},
    {"fixed_n", parseNumberField<&KernelMeta::fixedN>},
    {"fixed_k", parseNumberField<&KernelMeta::fixedK>},
    {"dims",
     [](std::string_view value, KernelMeta &meta) {
       return parseSymbolList(value, meta.dims);
     }},
    {"tiles", [](std::string_view value,
                 KernelMeta &meta) { return parseTiles(value, meta.tiles); }},
}};

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

/// The checks of validateKernelMeta; `where(key)` prefixes messages about
/// `key` with its location.
static Status validate(const KernelMeta &meta, const Locator &where) {
  auto fail = [&](const std::string &key, const std::string &what) {
    return Status::error(where(key) + what);
  };
  if (meta.abiVersion < kOldestKernelAbiVersion ||
      meta.abiVersion > kKernelAbiVersion)
    return fail("abi_version",
                "abi_version=" + std::to_string(meta.abiVersion) +
                    " but this runtime reads abi_version=" +
                    std::to_string(kOldestKernelAbiVersion) + " to " +
                    std::to_string(kKernelAbiVersion) +
                    "; recompile the kernel with a matching fgemmc");
  if (!isSymbolName(meta.kernel))
    return fail("kernel", "kernel='" + meta.kernel + "' is not a symbol name");
  if (!isIdentifier(meta.variant))
    return fail("variant", "variant='" + meta.variant +
                               "' is not an identifier (dense, "
                               "grouped_masked, ...)");
  if (meta.blockK != 128)
    return fail("block_k", "block_k=" + std::to_string(meta.blockK) +
                               " but the 1x128/128x128 scaling needs "
                               "block_k=128");
  if (meta.mathWarpgroups < 1 || meta.mathWarpgroups > 3)
    return fail("math_warpgroups",
                "math_warpgroups=" + std::to_string(meta.mathWarpgroups) +
                    " (allowed: 1, 2 or 3)");
  // Three math warpgroups own one m64 wave each (block_m 192).
  if (meta.blockM != 64 * meta.mathWarpgroups &&
      (meta.blockM != 128 * meta.mathWarpgroups || meta.mathWarpgroups == 3))
    return fail("block_m", "block_m=" + std::to_string(meta.blockM) +
                               " does not match math_warpgroups=" +
                               std::to_string(meta.mathWarpgroups) +
                               " (block_m must be 64 or 128 * "
                               "math_warpgroups: one or two m64 waves; 192 "
                               "with three)");
  if (meta.threads != 128 * (1 + meta.mathWarpgroups))
    return fail("threads", "threads=" + std::to_string(meta.threads) + " but " +
                               std::to_string(meta.mathWarpgroups) +
                               " math warpgroup(s) plus the producer need " +
                               std::to_string(128 * (1 + meta.mathWarpgroups)));
  // The output's TMA box is block_n bf16 wide: 16-byte multiple, at most 256.
  if (meta.blockN < 8 || meta.blockN > 256 || meta.blockN % 8 != 0)
    return fail("block_n", "block_n=" + std::to_string(meta.blockN) +
                               " (allowed: a multiple of 8 in [8, 256])");
  if (meta.stages == 0)
    return fail("stages", "stages=0 (need at least one pipeline stage)");
  if (meta.smemBytes == 0 || meta.smemBytes > kMaxSharedMemoryBytes)
    return fail("smem_bytes", "smem_bytes=" + std::to_string(meta.smemBytes) +
                                  " (allowed: 1 to " +
                                  std::to_string(kMaxSharedMemoryBytes) +
                                  ", Hopper's opt-in limit)");
  if (meta.cluster != 1 && meta.cluster != 2)
    return fail("cluster", "cluster=" + std::to_string(meta.cluster) +
                               " (allowed: 1, or 2 = pairs of CTAs along "
                               "grid x sharing a tile by multicast)");
  if (meta.kSplit != 1 && meta.kSplit != 2 && meta.kSplit != 4)
    return fail("k_split", "k_split=" + std::to_string(meta.kSplit) +
                               " (allowed: 1, 2 or 4 CTAs sharing a tile's "
                               "K blocks)");
  if (meta.kSplit > 1 && (meta.cluster != 1 || meta.schedule != "plain"))
    return fail("k_split", "k_split=" + std::to_string(meta.kSplit) +
                               " needs cluster=1 and schedule=plain (its "
                               "cluster is the tile's K shares), got "
                               "cluster=" +
                               std::to_string(meta.cluster) +
                               ", schedule=" + meta.schedule);
  if (meta.kSplit > 1 && meta.variant.rfind("dense", 0) != 0)
    return fail("k_split", "k_split=" + std::to_string(meta.kSplit) +
                               " splits dense tiles only (variant dense*), "
                               "got variant=" +
                               meta.variant);
  if (meta.schedule != "plain" && meta.schedule != "persistent" &&
      meta.schedule != "stream_k")
    return fail("schedule", "schedule='" + meta.schedule +
                                "' (allowed: plain, persistent or stream_k)");
  if (meta.fixedN % 8 != 0)
    return fail("fixed_n", "fixed_n=" + std::to_string(meta.fixedN) +
                               " is not a multiple of 8");
  if (meta.fixedK % 16 != 0)
    return fail("fixed_k", "fixed_k=" + std::to_string(meta.fixedK) +
                               " is not a multiple of 16");

  // Dimension symbols and their users.
  std::string dimList = joinList(meta.dims);
  if (meta.dims.empty())
    return fail("dims", "dims is empty (the kernel needs its dimension "
                        "symbols)");
  std::set<std::string> unique;
  for (const std::string &name : meta.dims) {
    if (!isIdentifier(name))
      return fail("dims", "'" + name + "' in dims is not an identifier");
    if (!unique.insert(name).second)
      return fail("dims", "dims names '" + name + "' twice");
  }
  const std::pair<const char *, uint32_t> fixedDims[] = {{"n", meta.fixedN},
                                                         {"k", meta.fixedK}};
  for (const auto &[name, value] : fixedDims)
    if (value && meta.dimIndex(name) < 0)
      return fail(std::string("fixed_") + name,
                  std::string("fixed_") + name + "=" + std::to_string(value) +
                      " but there is no dimension '" + name + "' in dims (" +
                      dimList + ")");
  if (meta.tiles.empty() || meta.tiles.size() > 3)
    return fail("tiles", "tiles has " + std::to_string(meta.tiles.size()) +
                             " factors (allowed: 1 to 3, for grid x, y, z)");
  for (const TileFactor &tile : meta.tiles) {
    if (meta.dimIndex(tile.dim) < 0)
      return fail("tiles", "tile factor '" + tile.dim + "/" +
                               std::to_string(tile.block) +
                               "' names no dimension in dims (" + dimList +
                               ")");
    if (tile.block == 0)
      return fail("tiles", "tile factor '" + tile.dim + "/0' divides by 0");
  }
  for (size_t i = 0; i < meta.args.size(); ++i) {
    const KernelArg &arg = meta.args[i];
    std::string key = "arg." + std::to_string(i);
    size_t minRank = arg.kind == KernelArg::Kind::Tensor ? 1 : 2;
    if (arg.dims.size() < minRank || arg.dims.size() > 3)
      return fail(key, key + " has " + std::to_string(arg.dims.size()) +
                           " dimensions (allowed: " +
                           (minRank == 1 ? "1 to 3" : "2 or 3") + ")");
    for (const std::string &name : arg.dims)
      if (meta.dimIndex(name) < 0)
        return fail(key, key + " '" + formatKernelArg(arg) +
                             "' uses dimension '" + name +
                             "', which is not in dims (" + dimList + ")");
    if (arg.kind == KernelArg::Kind::Scales &&
        (arg.block[0] == 0 || arg.block[1] == 0))
      return fail(key, key + " has an empty scale block");
  }
  // A stream-K kernel combines its pieces through the workspace: it needs
  // exactly one.
  if (meta.streamK()) {
    size_t workspaces = 0;
    for (const KernelParam &param : meta.params)
      workspaces += param.kind == KernelParam::Kind::Workspace;
    if (workspaces != 1)
      return fail("", "schedule=stream_k needs exactly one 'workspace' "
                      "parameter; the kernel has " +
                          std::to_string(workspaces));
  }
  if (meta.params.empty())
    return fail("", "the kernel has no parameters (missing param.0?)");
  int rasterGroups = 0;
  for (size_t i = 0; i < meta.params.size(); ++i) {
    const KernelParam &param = meta.params[i];
    std::string key = "param." + std::to_string(i);
    if (param.kind == KernelParam::Kind::Workspace) {
      if (!meta.streamK())
        return fail(key, key + " is a workspace, which only schedule=stream_k "
                               "kernels take");
      continue;
    }
    if (param.kind == KernelParam::Kind::RasterGroup) {
      if (meta.abiVersion < 4)
        return fail(key, key + " is a raster_group, which abi_version=" +
                             std::to_string(meta.abiVersion) +
                             " does not have (added in 4)");
      if (++rasterGroups > 1)
        return fail(key, key + " is a second raster_group parameter (a "
                               "kernel has at most one)");
      continue;
    }
    if (param.kind == KernelParam::Kind::Dim) {
      if (meta.dimIndex(param.dim) < 0)
        return fail(key, key + " passes dimension '" + param.dim +
                             "', which is not in dims (" + dimList + ")");
      continue;
    }
    if (param.arg >= meta.args.size())
      return fail(key,
                  key + " refers to arg." + std::to_string(param.arg) +
                      ", but the kernel has " +
                      std::to_string(meta.args.size()) + " argument(s)" +
                      (meta.args.empty()
                           ? std::string()
                           : " (arg.0 to arg." +
                                 std::to_string(meta.args.size() - 1) + ")"));
    if (param.kind != KernelParam::Kind::TensorMap)
      continue;
    const KernelArg &arg = meta.args[param.arg];
    Status rule = checkTensorMapParam(arg, param);
    if (!rule.ok())
      return fail(key, key + " (tensor_map over arg." +
                           std::to_string(param.arg) + " '" +
                           formatKernelArg(arg) +
                           "', box=" + std::to_string(param.box[0]) + "x" +
                           std::to_string(param.box[1]) + " swizzle=" +
                           swizzleName(param.swizzle) + "): " + rule.message());
  }
  return Status::success();
}

Status fgemm::validateKernelMeta(const KernelMeta &meta) {
  return validate(meta, Locator());
}

//===----------------------------------------------------------------------===//
// The parser
//===----------------------------------------------------------------------===//

namespace {
/// One `key=value` line.
struct Entry {
  std::string_view key, value;
  int line;
};
} // namespace

/// Moves the entries of `indexed` (index -> (line, T)) into `out`, checking
/// that the indices run 0, 1, ... without gaps.
template <typename T>
static Status takeContiguous(std::map<uint32_t, std::pair<int, T>> &indexed,
                             const char *prefix, const std::string &source,
                             std::vector<T> &out) {
  uint32_t expected = 0;
  for (auto &[index, entry] : indexed) {
    if (index != expected)
      return Status::error(source + ":" + std::to_string(entry.first) + ": " +
                           prefix + "." + std::to_string(index) + " without " +
                           prefix + "." + std::to_string(expected) +
                           " (indices run from 0 "
                           "without gaps)");
    out.push_back(std::move(entry.second));
    ++expected;
  }
  return Status::success();
}

Expected<KernelMeta> fgemm::parseKernelMeta(std::string_view text,
                                            const std::string &source) {
  // Split into key=value entries first: the version decides how to read the
  // rest, so it is checked before any other complaint (a v1 file lacks half
  // the keys, a future one may have keys this runtime does not know).
  std::vector<Entry> entries;
  std::string syntaxError;
  int lineNumber = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view()
                                         : text.substr(end + 1);
    ++lineNumber;
    if (size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    line = trim(line);
    if (line.empty())
      continue;
    size_t equals = line.find('=');
    if (equals == std::string_view::npos) {
      if (syntaxError.empty())
        syntaxError = source + ":" + std::to_string(lineNumber) +
                      ": expected key=value, got '" + std::string(line) + "'";
      continue;
    }
    entries.push_back({trim(line.substr(0, equals)),
                       trim(line.substr(equals + 1)), lineNumber});
  }

  std::string versionText = std::to_string(kOldestKernelAbiVersion) + " to " +
                            std::to_string(kKernelAbiVersion);
  const Entry *version = nullptr;
  for (const Entry &entry : entries)
    if (entry.key == "abi_version") {
      version = &entry;
      break;
    }
  if (!version)
    return Status::error(
        source +
        ": no abi_version key: the file predates kernel description "
        "version 2, but this runtime reads abi_version=" +
        versionText + " only; recompile the kernel with a matching fgemmc");
  uint32_t versionNumber = 0;
  if (!parseUnsigned(version->value, versionNumber) ||
      versionNumber < kOldestKernelAbiVersion ||
      versionNumber > kKernelAbiVersion)
    return Status::error(source + ":" + std::to_string(version->line) +
                         ": abi_version=" + std::string(version->value) +
                         ", but this runtime reads abi_version=" + versionText +
                         " only; recompile the kernel with a matching fgemmc "
                         "(or use the runtime that matches it)");
  if (!syntaxError.empty())
    return Status::error(syntaxError);

  KernelMeta meta;
  std::map<std::string, int> lines; // every key's line, for validation
  std::map<uint32_t, std::pair<int, KernelArg>> args;
  std::map<uint32_t, std::pair<int, KernelParam>> params;
  for (const Entry &entry : entries) {
    std::string where = source + ":" + std::to_string(entry.line) + ": ";
    std::string key(entry.key);
    if (auto [it, inserted] = lines.emplace(key, entry.line); !inserted)
      return Status::error(where + "duplicate key '" + key +
                           "' (first set on line " +
                           std::to_string(it->second) + ")");
    if (entry.value.empty())
      return Status::error(where + "empty value for '" + key + "'");

    // arg.I and param.I.
    bool isArg = key.rfind("arg.", 0) == 0;
    bool isParam = key.rfind("param.", 0) == 0;
    if (isArg || isParam) {
      uint32_t index;
      if (!parseIndex(entry.key.substr(isArg ? 4 : 6), index))
        return Status::error(where + "'" + key +
                             "' needs a decimal index without leading zeros");
      std::string error;
      if (isArg) {
        KernelArg arg;
        error = parseArg(entry.value, arg);
        args[index] = {entry.line, std::move(arg)};
      } else {
        KernelParam param;
        error = parseParam(entry.value, param);
        params[index] = {entry.line, std::move(param)};
      }
      if (!error.empty())
        return Status::error(where + key + ": " + error);
      continue;
    }

    const KeySpec *spec = nullptr;
    for (const KeySpec &candidate : kKeys)
      if (key == candidate.name)
        spec = &candidate;
    if (!spec) {
      std::string known;
      for (const KeySpec &candidate : kKeys)
        known += (known.empty() ? "" : ", ") + std::string(candidate.name);
      return Status::error(where + "unknown key '" + key +
                           "' (known keys: " + known +
                           ", arg.I, param.I); is the runtime older "
                           "than the compiler?");
    }
    std::string error = spec->parse(entry.value, meta);
    if (!error.empty())
      return Status::error(where + "'" + key + "' " + error);
  }

  std::string missing;
  for (const KeySpec &spec : kKeys)
    if (!spec.optional && !lines.count(spec.name))
      missing += (missing.empty() ? "" : ", ") + std::string(spec.name);
  for (const char *indexed : {"arg.0", "param.0"})
    if (!lines.count(indexed))
      missing += (missing.empty() ? "" : ", ") + std::string(indexed);
  if (!missing.empty())
    return Status::error(source + ": missing key(s): " + missing);
  FGEMM_RETURN_IF_ERROR(takeContiguous(args, "arg", source, meta.args));
  FGEMM_RETURN_IF_ERROR(takeContiguous(params, "param", source, meta.params));
  FGEMM_RETURN_IF_ERROR(validate(meta, Locator(source, std::move(lines))));
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
