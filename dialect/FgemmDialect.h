//===- FgemmDialect.h - fgemm dialect, types, attributes ---------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_DIALECT_FGEMMDIALECT_H
#define FGEMM_DIALECT_FGEMMDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "dialect/KernelConfig.h"

#include "dialect/FgemmDialect.h.inc"
#include "dialect/FgemmEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/FgemmAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/FgemmTypes.h.inc"

namespace mlir::fgemm {
/// Unit attribute of an scf.for whose trips, once unrolled, start at a
/// multiple of the step (KernelConfig::hasAlignedKLoopTrips): set by
/// convert-fgemm-to-nvvm, read (and removed) by fgemm-loop-counters, which
/// gives such a loop's copies one counter where that is exact.
constexpr llvm::StringLiteral kAlignedTripsAttrName = "fgemm.aligned_trips";
} // namespace mlir::fgemm

#endif // FGEMM_DIALECT_FGEMMDIALECT_H
