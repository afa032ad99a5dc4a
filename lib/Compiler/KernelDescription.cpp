//===- KernelDescription.cpp - the kernel's ABI description ------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Writes the text the runtime launches a kernel from (docs/ABI.md, version
// 2): launch keys from #fgemm.config and the ring plan, the kernel's logical
// arguments, its parameter list and the grid rule, all read from the typed
// attributes convert-fgemm-to-nvvm leaves on the lowered function:
//
//   fgemm.config  #fgemm.config       fgemm.grid    #fgemm.tile_grid
//   fgemm.dims    ["m", "n", "k"]     fgemm.args    [!fgemm.tensor<...>, ...]
//   fgemm.params  [#fgemm.tensor_map_param<...>, #fgemm.pointer_param<...>,
//                  #fgemm.dim_param<...>]          fgemm.smem_bytes  N
//
//===----------------------------------------------------------------------===//

#include "Compiler/Compiler.h"
#include "dialect/FgemmOps.h"
#include "dialect/Transforms.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fgemm;

/// The description's version; bump it on any change of the format (the
/// runtime refuses versions it does not know). 4: the raster_group
/// parameter.
static constexpr int kAbiVersion = 4;

static llvm::Error describeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot describe the kernel: " + message);
}

/// e4m3, e5m2, bf16, f32 or i32; "" for anything else.
static StringRef elementName(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return "e4m3";
  if (isa<Float8E5M2Type>(type))
    return "e5m2";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  if (type.isInteger(32))
    return "i32";
  return "";
}

static std::string joinDims(ArrayRef<StringAttr> dims) {
  std::string s;
  for (StringAttr d : dims)
    s += (s.empty() ? "" : ",") + d.getValue().str();
  return s;
}

llvm::Expected<std::string>
mlir::fgemm::takeKernelDescription(ModuleOp module) {
  SmallVector<LLVM::LLVMFuncOp> kernels;
  module.walk([&](LLVM::LLVMFuncOp f) {
    if (f->hasAttr("fgemm.config"))
      kernels.push_back(f);
  });
  if (kernels.size() != 1)
    return describeError("a cubin holds exactly one fgemm kernel; found " +
                         llvm::Twine(kernels.size()));
  LLVM::LLVMFuncOp func = kernels.front();
  auto config = func->getAttrOfType<ConfigAttr>("fgemm.config");
  auto grid = func->getAttrOfType<TileGridAttr>("fgemm.grid");
  auto smem = func->getAttrOfType<IntegerAttr>("fgemm.smem_bytes");
  auto dims = func->getAttrOfType<ArrayAttr>("fgemm.dims");
  auto args = func->getAttrOfType<ArrayAttr>("fgemm.args");
  auto params = func->getAttrOfType<ArrayAttr>("fgemm.params");
  // The kernel's own variant name, else its tile space's kind.
  std::string variant;
  if (auto named = func->getAttrOfType<StringAttr>("fgemm.variant"))
    variant = named.str();
  else if (grid)
    variant = stringifyTileSpaceKind(grid.getKind()).str();
  if (!grid || !smem || !dims || !args || !params)
    return describeError(
        "the lowered kernel lacks fgemm.grid, fgemm.smem_bytes, "
        "fgemm.dims, fgemm.args or fgemm.params");

  std::string text;
  llvm::raw_string_ostream os(text);
  os << "# fgemm kernel description (docs/ABI.md)\n"
     << "# config: " << config << "\n"
     << "abi_version=" << kAbiVersion << "\n"
     << "kernel=" << func.getSymName() << "\n"
     << "variant=" << variant << "\n"
     << "block_m=" << config.getBlockM() << "\nblock_n=" << config.getBlockN()
     << "\nblock_k=" << config.getBlockK() << "\nstages=" << config.getStages()
     << "\nmath_warpgroups=" << config.getMathWarpgroups()
     << "\nthreads=" << config.getNumThreads()
     << "\nsmem_bytes=" << smem.getInt() << "\ncluster=" << config.getCluster()
     << (config.getKSplit() > 1
             ? "\nk_split=" + std::to_string(config.getKSplit())
             : std::string())
     << "\nschedule=" << getKnobValueName(config.getSchedule())
     << "\nfixed_n=" << config.getFixedN() << "\nfixed_k=" << config.getFixedK()
     << "\n";

  os << "dims=";
  llvm::interleave(dims.getAsValueRange<StringAttr>(), os, ",");
  os << "\n";
  for (auto [i, attr] : llvm::enumerate(args)) {
    Type type = cast<TypeAttr>(attr).getValue();
    os << "arg." << i << "=";
    if (auto tensor = dyn_cast<GlobalTensorType>(type)) {
      StringRef element = elementName(tensor.getElementType());
      if (element.empty())
        return describeError("argument #" + llvm::Twine(i) +
                             " has an element type the ABI "
                             "cannot describe");
      os << "tensor " << element << " " << joinDims(tensor.getDims()) << "\n";
    } else if (auto scales = dyn_cast<ScalesType>(type)) {
      ArrayRef<int64_t> block = scales.getBlock();
      os << "scales " << elementName(scales.getElementType()) << " "
         << joinDims(scales.getDims());
      if (scales.isPerTensor())
        os << " per_tensor";
      else
        os << " block=" << block[0] << "x" << block[1];
      os << (scales.getMnMajor() ? " mn_major" : "") << "\n";
    } else {
      return describeError("argument #" + llvm::Twine(i) +
                           " is neither a tensor nor scales");
    }
  }
  for (auto [i, attr] : llvm::enumerate(params)) {
    os << "param." << i << "=";
    if (auto map = dyn_cast<TensorMapParamAttr>(attr)) {
      ArrayRef<int64_t> box = map.getBox();
      if (box.size() != 2)
        return describeError("tensor map parameters have a 2-D box");
      os << "tensor_map arg=" << map.getArg() << " box=" << box[0] << "x"
         << box[1] << " swizzle="
         << (map.getSwizzle() ? std::to_string(map.getSwizzle()) + "b" : "none")
         << "\n";
    } else if (auto pointer = dyn_cast<PointerParamAttr>(attr)) {
      os << "pointer arg=" << pointer.getArg() << "\n";
    } else if (auto workspace = dyn_cast<WorkspaceParamAttr>(attr)) {
      os << "workspace bytes_per_cta=" << workspace.getBytesPerCta() << "\n";
    } else if (auto raster = dyn_cast<RasterGroupParamAttr>(attr)) {
      os << "raster_group default=" << raster.getDefaultGroup() << "\n";
    } else {
      os << "dim " << cast<DimParamAttr>(attr).getDim().getValue() << "\n";
    }
  }
  os << "tiles=";
  llvm::interleave(
      grid.getDims(), os,
      [&](StringAttr dim) {
        // A group dimension has no block size: one group per tile.
        int64_t block = getTileDimExtent(("b" + dim.getValue()).str(), config);
        os << dim.getValue() << "/" << std::max<int64_t>(block, 1);
      },
      ",");
  os << "\n";

  for (StringRef name : {"fgemm.config", "fgemm.grid", "fgemm.smem_bytes",
                         "fgemm.dims", "fgemm.args", "fgemm.params"})
    func->removeAttr(name);
  return text;
}
