//===- FgemmDialect.cpp - fgemm dialect registration ------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "dialect/FgemmOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fgemm;

#include "dialect/FgemmDialect.cpp.inc"
#include "dialect/FgemmEnums.cpp.inc"

void FgemmDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/FgemmOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

/// Discardable attributes the fgemm passes leave on the lowered kernel
/// function for the compile library (Compiler/KernelDescription.cpp).
LogicalResult FgemmDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError("attribute '")
           << name << "' must be " << what << ", got " << value;
  };
  if (name == "fgemm.config")
    return expect(isa<ConfigAttr>(value), "a #fgemm.config");
  if (name == "fgemm.grid")
    return expect(isa<TileGridAttr>(value), "a #fgemm.tile_grid");
  if (name == "fgemm.smem_bytes")
    return expect(isa<IntegerAttr>(value), "an integer");
  if (name == "fgemm.variant")
    return expect(isa<StringAttr>(value), "a string");
  if (name == "fgemm.dims") {
    auto array = dyn_cast<ArrayAttr>(value);
    return expect(array && llvm::all_of(array, llvm::IsaPred<StringAttr>),
                  "an array of dimension names");
  }
  if (name == "fgemm.args") {
    auto array = dyn_cast<ArrayAttr>(value);
    return expect(
        array && llvm::all_of(array,
                              [](Attribute a) {
                                auto t = dyn_cast<TypeAttr>(a);
                                return t && isa<GlobalTensorType, ScalesType>(
                                                t.getValue());
                              }),
        "an array of !fgemm.tensor / !fgemm.scales types");
  }
  if (name == kAlignedTripsAttrName)
    return expect(op->getName().getStringRef() == "scf.for" &&
                      isa<UnitAttr>(value),
                  "a unit attribute of an scf.for");
  if (name == "fgemm.params") {
    auto array = dyn_cast<ArrayAttr>(value);
    return expect(
        array && llvm::all_of(
                     array, llvm::IsaPred<TensorMapParamAttr, PointerParamAttr,
                                          WorkspaceParamAttr, DimParamAttr,
                                          RasterGroupParamAttr>),
        "an array of #fgemm.*_param attributes");
  }
  return op->emitError("unknown fgemm attribute '") << name << "'";
}
