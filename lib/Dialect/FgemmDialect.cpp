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

#define GET_ATTRDEF_CLASSES
#include "dialect/FgemmAttrs.cpp.inc"

void FgemmDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/FgemmOps.cpp.inc"
      >();
  registerTypes();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/FgemmAttrs.cpp.inc"
      >();
}
