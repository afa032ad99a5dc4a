//===- FgemmTypes.cpp - fgemm type syntax and verification ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Types with symbolic dimensions: `[m, k]` for global tensors (kernel
// dimension symbols) and `[bm, bk]` for tiles (configuration symbols).
//
//===----------------------------------------------------------------------===//

#include "dialect/FgemmDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fgemm;

#define GET_TYPEDEF_CLASSES
#include "dialect/FgemmTypes.cpp.inc"

void FgemmDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/FgemmTypes.cpp.inc"
      >();
}

/// Parses `[sym, sym, ...]` (possibly empty).
static ParseResult parseSymbolList(AsmParser &parser,
                                   SmallVectorImpl<StringAttr> &dims) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        // Numbers parse too, so the verifier can say that sizes are symbolic.
        StringRef name;
        int64_t number = 0;
        if (succeeded(parser.parseOptionalKeyword(&name))) {
          dims.push_back(StringAttr::get(parser.getContext(), name));
          return success();
        }
        OptionalParseResult parsed = parser.parseOptionalInteger(number);
        if (!parsed.has_value())
          return parser.emitError(parser.getCurrentLocation(),
                                  "expected a dimension symbol");
        if (failed(*parsed))
          return failure();
        dims.push_back(
            StringAttr::get(parser.getContext(), std::to_string(number)));
        return success();
      });
}

static void printSymbolList(AsmPrinter &printer, ArrayRef<StringAttr> dims) {
  printer << "[";
  llvm::interleaveComma(dims, printer,
                        [&](StringAttr d) { printer << d.getValue(); });
  printer << "]";
}

/// Shared syntax of `tensor` and `tile`: `<[d0, d1], elementType>`.
static ParseResult parseDimsAndElement(AsmParser &parser,
                                       SmallVectorImpl<StringAttr> &dims,
                                       Type &elementType) {
  if (parser.parseLess() || parseSymbolList(parser, dims) ||
      parser.parseComma() || parser.parseType(elementType))
    return failure();
  return success();
}

/// `<[d0, d1], elementType>` for the types that are just dimensions and an
/// element type (tensor, tile).
template <typename T>
static Type parseDimsType(AsmParser &parser) {
  SmallVector<StringAttr> dims;
  Type elementType;
  if (parseDimsAndElement(parser, dims, elementType) || parser.parseGreater())
    return {};
  return T::getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                       parser.getContext(), dims, elementType);
}

template <typename T>
static void printDimsType(AsmPrinter &printer, T type) {
  printer << "<";
  printSymbolList(printer, type.getDims());
  printer << ", " << type.getElementType() << ">";
}

static bool isFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

//===----------------------------------------------------------------------===//
// GlobalTensorType
//===----------------------------------------------------------------------===//

Type GlobalTensorType::parse(AsmParser &parser) {
  return parseDimsType<GlobalTensorType>(parser);
}

void GlobalTensorType::print(AsmPrinter &printer) const {
  printDimsType(printer, *this);
}

LogicalResult
GlobalTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<StringAttr> dims, Type elementType) {
  if (dims.empty() || dims.size() > 3)
    return emitError() << "fgemm tensors have 1 to 3 dimensions (row-major; "
                          "with 3 the first is a group dimension); got "
                       << dims.size() << " dimensions";
  for (StringAttr d : dims)
    if (!llvm::isAlpha(d.getValue().front()))
      return emitError() << "tensor dimensions are symbols bound at launch "
                            "(e.g. [m, k]); got '"
                         << d.getValue() << "'";
  for (size_t i = 0; i < dims.size(); ++i)
    for (size_t j = i + 1; j < dims.size(); ++j)
      if (dims[i] == dims[j])
        return emitError()
               << "tensor dimensions must be distinct symbols, got '"
               << dims[i].getValue() << "' twice";
  if (elementType.isInteger(32)) {
    if (dims.size() != 1)
      return emitError() << "i32 tensors are 1-D index arrays read on the "
                            "GPU (fgemm.read, fgemm.zero_rows, the group "
                            "lookups); got "
                         << dims.size() << " dimensions";
    return success();
  }
  if (dims.size() == 1 && !elementType.isF32() && !elementType.isBF16())
    return emitError() << "1-D tensors are i32 index arrays or f32 / bf16 "
                          "vectors (per-row or per-column epilogue "
                          "operands); got "
                       << elementType;
  if (!isFp8(elementType) && !elementType.isBF16() && !elementType.isF32())
    return emitError()
           << "tensor element type must be f8E4M3FN or f8E5M2 (operands), "
              "bf16 or f32 (outputs, epilogue operands) or i32 (1-D index "
              "arrays), got "
           << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// ScalesType
//===----------------------------------------------------------------------===//

Type ScalesType::parse(AsmParser &parser) {
  SmallVector<StringAttr> dims;
  Type elementType;
  SmallVector<int64_t> block;
  if (parseDimsAndElement(parser, dims, elementType) || parser.parseComma())
    return {};
  // `per_tensor` is the empty block: one scale for the whole operand.
  if (failed(parser.parseOptionalKeyword("per_tensor")) &&
      (parser.parseKeyword("block") || parser.parseEqual() ||
       parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
         return parser.parseInteger(block.emplace_back());
       })))
    return {};
  bool mnMajor = succeeded(parser.parseOptionalComma());
  if (mnMajor && parser.parseKeyword("mn_major"))
    return {};
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), dims, elementType, block, mnMajor);
}

void ScalesType::print(AsmPrinter &printer) const {
  printer << "<";
  printSymbolList(printer, getDims());
  printer << ", " << getElementType();
  if (isPerTensor()) {
    printer << ", per_tensor";
  } else {
    printer << ", block = [";
    llvm::interleaveComma(getBlock(), printer);
    printer << "]";
  }
  if (getMnMajor())
    printer << ", mn_major";
  printer << ">";
}

LogicalResult ScalesType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<StringAttr> dims, Type elementType,
                                 ArrayRef<int64_t> block, bool mnMajor) {
  if (dims.size() != 2 && dims.size() != 3)
    return emitError() << "scales describe a 2-D operand, or a 3-D one whose "
                          "first dimension is a group; got "
                       << dims.size() << " dimensions";
  if (!elementType.isF32())
    return emitError() << "scales must be f32, got " << elementType;
  if (block.empty()) {
    if (mnMajor)
      return emitError() << "per_tensor scales are one value, so they have "
                            "no major order: drop mn_major";
    return success();
  }
  if (block.size() != 2 || block[0] <= 0 || block[1] <= 0)
    return emitError()
           << "scale block must be two positive sizes, e.g. [1, 128], or "
              "per_tensor";
  if (block[1] != 128)
    return emitError()
           << "scale blocks must be 128 wide along K (the K block the "
              "promotion works on), got "
           << block[1];
  if (block[0] != 1 && block[0] != 128)
    return emitError()
           << "scale blocks must be 1 (per row) or 128 rows tall, got "
           << block[0];
  return success();
}

//===----------------------------------------------------------------------===//
// TileType
//===----------------------------------------------------------------------===//

Type TileType::parse(AsmParser &parser) {
  return parseDimsType<TileType>(parser);
}

void TileType::print(AsmPrinter &printer) const {
  printDimsType(printer, *this);
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<StringAttr> dims, Type elementType) {
  if (dims.empty() || dims.size() > 2)
    return emitError() << "tiles are 1-D (scales) or 2-D; got " << dims.size()
                       << " dimensions";
  for (StringAttr d : dims)
    if (d.getValue() != "bm" && d.getValue() != "bn" && d.getValue() != "bk")
      return emitError() << "tile dimensions are the configuration symbols bm, "
                            "bn, bk; got '"
                         << d.getValue() << "'";
  return success();
}
