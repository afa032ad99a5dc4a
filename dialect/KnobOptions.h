//===- KnobOptions.h - command-line options from KernelConfig.def -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Options of a pass, of a pass pipeline and of fgemmc are all generated from
// dialect/KernelConfig.def with these wrappers, which add the value names of
// enum knobs (schedule=persistent) to the option's parser.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_DIALECT_KNOBOPTIONS_H
#define FGEMM_DIALECT_KNOBOPTIONS_H

#include "dialect/KernelConfig.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/Support/CommandLine.h"

#include <type_traits>

namespace mlir::fgemm {

/// Registers the names of an enum knob's values with `option`'s parser.
template <typename T, typename OptionT>
void addKnobValueNames(OptionT &option) {
  if constexpr (std::is_enum_v<T>)
    for (const auto &[value, name] : KnobValues<T>::list)
      option.getParser().addLiteralOption(name, value, name);
}

/// A knob as a pass option.
template <typename T>
struct KnobOption : Pass::Option<T> {
  KnobOption(Pass &pass, llvm::StringRef flag, llvm::StringRef help, T init)
      : Pass::Option<T>(pass, flag, llvm::cl::desc(help),
                        llvm::cl::init(init)) {
    addKnobValueNames<T>(*this);
  }
  using Pass::Option<T>::operator=;
};

/// A knob as a pass-pipeline option.
template <typename T>
struct KnobPipelineOption : ::mlir::detail::PassOptions::Option<T> {
  KnobPipelineOption(::mlir::detail::PassOptions &options, llvm::StringRef flag,
                     llvm::StringRef help, T init)
      : ::mlir::detail::PassOptions::Option<T>(
            options, flag, llvm::cl::desc(help), llvm::cl::init(init)) {
    addKnobValueNames<T>(*this);
  }
  using ::mlir::detail::PassOptions::Option<T>::operator=;
};

} // namespace mlir::fgemm

#endif // FGEMM_DIALECT_KNOBOPTIONS_H
