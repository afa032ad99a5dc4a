//===- FgemmAttrs.cpp - fgemm attribute syntax and verifiers ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// #fgemm.config is generated from dialect/KernelConfig.def: one `key = value`
// field per knob. #fgemm.ring_plan's verifier keeps every later reader of the
// plan (the lowering) inside the shared memory it describes.
//
//===----------------------------------------------------------------------===//

#include "dialect/FgemmOps.h"
#include "dialect/Transforms.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fgemm;

#define GET_ATTRDEF_CLASSES
#include "dialect/FgemmAttrs.cpp.inc"

void FgemmDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/FgemmAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ConfigAttr
//===----------------------------------------------------------------------===//

static ParseResult parseKnob(AsmParser &parser, int64_t &value) {
  return parser.parseInteger(value);
}
static ParseResult parseKnob(AsmParser &parser, bool &value) {
  if (succeeded(parser.parseOptionalKeyword("true")))
    return value = true, success();
  if (succeeded(parser.parseOptionalKeyword("false")))
    return value = false, success();
  return parser.emitError(parser.getCurrentLocation(),
                          "expected true or false");
}
template <typename E>
static ParseResult parseKnob(AsmParser &parser, E &value) {
  std::string name;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeywordOrString(&name))
    return failure();
  std::optional<E> parsed = parseKnobValue<E>(name);
  if (!parsed)
    return parser.emitError(loc, "unknown value '")
           << name << "'; allowed: " << listKnobValues<E>();
  value = *parsed;
  return success();
}

static void printKnob(AsmPrinter &printer, int64_t value) { printer << value; }
static void printKnob(AsmPrinter &printer, bool value) {
  printer << (value ? "true" : "false");
}
template <typename E>
static void printKnob(AsmPrinter &printer, E value) {
  printer.printKeywordOrString(getKnobValueName(value));
}

Attribute ConfigAttr::parse(AsmParser &parser, Type) {
  KernelConfig knobs;
  llvm::StringSet<> seen;
  static const StringRef kKeys[] = {
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP) KEY,
#include "dialect/KernelConfig.def"
  };
  auto parseField = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(loc, "field '") << key << "' is given twice";
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  if (key == KEY)                                                              \
    return parseKnob(parser, knobs.NAME);
#include "dialect/KernelConfig.def"
    return parser.emitError(loc, "unknown field '")
           << key << "'; #fgemm.config has: "
           << llvm::join(ArrayRef<StringRef>(kKeys), ", ");
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                     parseField))
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), knobs);
}

void ConfigAttr::print(AsmPrinter &printer) const {
  const KernelConfig &knobs = getKnobs();
  StringRef separator = "";
  printer << "<";
#define FGEMM_KNOB(TYPE, NAME, ACCESSOR, FLAG, KEY, DEFAULT, HELP)             \
  printer << separator << KEY << " = ";                                        \
  printKnob(printer, knobs.NAME);                                              \
  separator = ", ";
#include "dialect/KernelConfig.def"
  printer << ">";
}

LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 KernelConfig knobs) {
  std::string problem = checkKernelConfig(knobs, /*resolved=*/true);
  if (!problem.empty())
    return emitError() << "invalid #fgemm.config: " << problem;
  return success();
}

//===----------------------------------------------------------------------===//
// RingPlanAttr
//===----------------------------------------------------------------------===//

LogicalResult RingPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t stages, ArrayRef<int64_t> offsets,
                                   ArrayRef<int64_t> slotStrides,
                                   ArrayRef<int64_t> slotBytes,
                                   int64_t outputOffset, int64_t barriers,
                                   int64_t scales, int64_t scaleBytes,
                                   int64_t smemBytes, bool) {
  if (stages < 1 || stages > kMaxStages)
    return emitError() << "ring plan: stages must be in [1, " << kMaxStages
                       << "], got " << stages;
  if (offsets.empty() || offsets.size() != slotStrides.size() ||
      offsets.size() != slotBytes.size())
    return emitError() << "ring plan: offsets, slot_strides and slot_bytes "
                          "need one entry per "
                          "ring value (at least one), got "
                       << offsets.size() << ", " << slotStrides.size()
                       << " and " << slotBytes.size();
  if (smemBytes < 0 || smemBytes > kMaxSharedMemoryBytes)
    return emitError() << "ring plan: smem_bytes must be in [0, "
                       << kMaxSharedMemoryBytes << "] (sm_90's 227 KiB), got "
                       << smemBytes;
  // Every region must lie inside the allocation: the lowering addresses
  // them without further checks.
  auto inside = [&](int64_t offset, int64_t bytes) {
    return offset >= 0 && bytes >= 0 && offset <= smemBytes &&
           bytes <= smemBytes - offset;
  };
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (slotBytes[i] <= 0 || slotStrides[i] < slotBytes[i])
      return emitError() << "ring plan: value " << i << " has slot_bytes "
                         << slotBytes[i] << " and slot_stride "
                         << slotStrides[i]
                         << " (need 0 < slot_bytes <= slot_stride)";
    if (!inside(offsets[i], slotStrides[i] * stages))
      return emitError() << "ring plan: the " << stages << " slots of value "
                         << i << " at offset " << offsets[i]
                         << " do not fit in smem_bytes " << smemBytes;
  }
  if (!inside(outputOffset, 0) || !inside(barriers, 16 * stages))
    return emitError() << "ring plan: output_offset " << outputOffset
                       << " or the " << 2 * stages << " mbarriers at "
                       << barriers << " lie outside smem_bytes " << smemBytes;
  if (!inside(scales, scaleBytes) || scales % 16 != 0)
    return emitError() << "ring plan: the " << scaleBytes
                       << " bytes of staged scales at " << scales
                       << " must be 16-byte aligned and lie inside smem_bytes "
                       << smemBytes;
  if (barriers % 8 != 0)
    return emitError()
           << "ring plan: mbarriers must be 8-byte aligned, got offset "
           << barriers;
  return success();
}
