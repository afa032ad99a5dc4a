//===- Passes.td - fgemm passes ----------------------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef FGEMM_PASSES_TD
#define FGEMM_PASSES_TD

include "mlir/Pass/PassBase.td"

def FgemmSpecializePass : Pass<"fgemm-specialize", "::mlir::ModuleOp"> {
  let summary = "Binds block sizes, pipeline depth and known shapes; checks resources";
  let description = [{
    Attaches `#fgemm.config` to every `fgemm.kernel` and rejects configurations
    the hardware cannot run, with a diagnostic that says what is allowed:
    `block_m` must be 64 or 128 (64 rows per math warpgroup: WGMMA's M),
    `block_n` a multiple of 8 in [8, 192] (WGMMA's N; wider accumulators do
    not fit in registers), shared memory (stages x tiles + output tile +
    barriers) at most 227 KiB, `stages` in [1, 16] (0 picks the deepest
    pipeline that fits); `fixed-n` must be a multiple of 8 and `fixed-k` a
    multiple of 16 (TMA's 16-byte stride rule).

    Options: one per knob of `dialect/KernelConfig.def` (`block-m`,
    `block-n`, `stages`, `math-warpgroups`, `cluster`, `multicast`,
    `schedule`, `raster-group`, `fixed-n`, `fixed-k`, `overlap-promotion`,
    `sass-policy`, ...), declared in Specialize.cpp from that list. Every
    later pass reads its decisions from `#fgemm.config`, not from options.

    Before: `fgemm.kernel @k(...) attributes {dims = [...]}`
    After:  `fgemm.kernel @k(...) attributes {config = #fgemm.config<block_m = 128, ...>, dims = [...]}`
  }];
}

def FgemmScheduleTilesPass : Pass<"fgemm-schedule-tiles", "::mlir::ModuleOp"> {
  let summary = "Maps the tiles of fgemm.tile_space onto CTAs of the launch grid";
  let description = [{
    Replaces `fgemm.tile_space` by its body, with the tile indices computed
    in the IR from the kernel's `#fgemm.config` (`schedule`, `cluster`,
    `multicast`, `raster_group`); the lowering translates these ops one to
    one and decides nothing about the schedule.

    Plain: one CTA per tile. Grid x runs along the tiles a cluster does not
    share (N tiles when A is multicast, M tiles when B is), so CTAs launched
    together share the other operand in L2 and a cluster's CTAs share it
    through TMA multicast; such loads get the `multicast` unit attribute.
    ```mlir
    fgemm.tile_space dense over %d {        %tn = fgemm.program_id x
    ^bb0(%tm, %tn):                  ==>    %tm = fgemm.program_id y
      body                                  body
    }
    ```
    Persistent: at most one CTA per SM loops over linear tile indices
    (`fgemm.tile_loop`); the body starts with the index arithmetic of the
    tile order: row-major, or with `raster_group = G` groups of G tile rows
    walked column by column, so that CTAs working at the same time share
    B tiles in L2.
    ```mlir
    %tiles = arith.muli %tiles_m, %tiles_n
    fgemm.tile_loop %tiles {
    ^bb0(%iter: index, %tile: index):
      %tm = arith.divui %tile, %tiles_n
      %tn = arith.remui %tile, %tiles_n
      body
    }
    ```
    With a cluster of two, consecutive linear indices form one unit of the
    order (two tiles along the index the pair splits), so the CTAs of a
    cluster share the multicast tile and run the same number of tiles.
    The kernel gets `grid = #fgemm.tile_grid<dense, ["n", "m"]>`: the
    dimensions whose tile counts size the launch grid (the split one
    first). Grouped tile spaces add the tile's group and rows
    (lib/Transforms/ScheduleTiles.cpp).

    Limitations: grouped tile spaces multicast A only.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FgemmWarpSpecializePass : Pass<"fgemm-warp-specialize", "::mlir::ModuleOp"> {
  let summary = "Splits the K loop into a TMA producer warpgroup and math warpgroups";
  let description = [{
    Finds the `fgemm.k_loop` that feeds `fgemm.scaled_dot`, moves the loads
    that TMA can do (operand tiles, MN-major per-row scales) into a producer
    loop that puts them into an `fgemm.ring`, and leaves the math (ring.get,
    the remaining loads, scaled_dot, ring.release) and the epilogue in the
    consumer region. Steps: (1) classify the loop's loads; (2) create the ring;
    (3) clone the loop into the producer with only the TMA loads; (4) rewrite
    the consumer loop to get them from the ring; (5) wrap the rest in the
    consumer region.

    Before:
    ```mlir
    %acc = fgemm.k_loop "k" init(%z : ...) {
      %ta = fgemm.load %a[...]
      ...
    }
    fgemm.store %acc, %d[...]
    ```
    After:
    ```mlir
    %ring = fgemm.ring.create : !fgemm.ring
    fgemm.warp_specialize {...} producer {
      fgemm.k_loop "k" { %ta = fgemm.load ... fgemm.ring.put %ring[%kb] (%ta, ...) }
    } consumer {
      %acc = fgemm.k_loop "k" init(...) { %ta, ... = fgemm.ring.get %ring[%kb] ... }
      fgemm.store %acc, %d[...]
    }
    ```
    Not applied (warning) when the kernel has no K loop with a scaled_dot or
    already has warp roles.
  }];
  let options = [
    Option<"producerRegs", "producer-regs", "int64_t", /*default=*/"0", "setmaxnreg of the producer warpgroup (0: 40, or 24 beside three math warpgroups)">,
    Option<"consumerRegs", "consumer-regs", "int64_t", /*default=*/"0", "setmaxnreg of the math warpgroups (0: 232, or 160 for three)">,
  ];
}

def FgemmPipelineTmaPass : Pass<"fgemm-pipeline-tma", "::mlir::ModuleOp"> {
  let summary = "Turns a ring into shared-memory stages with full/empty mbarriers";
  let description = [{
    Plans the dynamic shared memory (one slot per stage for every tile the
    producer puts, 1024-byte aligned for the 128-byte swizzle; the epilogue
    tile; the mbarrier arrays) and rewrites every ring access of K block `kb`
    to name its stage `kb mod stages` and phase parity `(kb / stages) mod 2`.

    Before: `fgemm.ring.put %ring[%kb] (%ta, %tb, %sa) : ...`
    After:
    ```mlir
    %s = arith.remui %kb, %c4 : index
    %q = arith.divui %kb, %c4 : index
    %p = arith.andi %q, %c1 : index
    fgemm.ring.put %ring[%kb] stage(%s, %p) (%ta, %tb, %sa) : ...
    ```
    with `%ring = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 4, offsets = [...], ...>}`.
    Fails (error) when the plan exceeds 227 KiB.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ConvertFgemmToNVVMPass : Pass<"convert-fgemm-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lowers pipelined, warp-specialized fgemm kernels to LLVM + NVVM";
  let description = [{
    Each `fgemm.kernel` becomes an `llvm.func` kernel (`nvvm.kernel`,
    `nvvm.reqntid`, `nvvm.maxnreg`) taking its TMA descriptors by value
    (`nvvm.grid_constant`) in the order of docs/ABI.md, over one external
    1024-byte-aligned dynamic shared-memory buffer. Ring puts become mbarrier
    waits, `expect_tx` arrivals and `cp.async.bulk.tensor` loads; ring gets
    become parity waits; `fgemm.scaled_dot` becomes `wgmma.mma_async`
    m64nNk32 e4m3 (descriptors built here: +32 bytes per k32 step for A and
    B) then FFMA promotion with `scale_a * scale_b`; `fgemm.store` becomes a
    BF16 conversion, shared-memory stores and a TMA store.

    Every K loop (producer and math) is unrolled after lowering, by four
    where the math threads' partial and promoted sums take at most 64
    registers and by two otherwise, so that ptxas overlaps one block's
    barrier-wait set-up with the previous block's promotion or TMA issue.
    With K compiled in (`fixed_k`) larger tiles are unrolled by four too, or
    by three where four divides the stage count. The math loop carries its
    last wgmma partial sum into the next block's first wgmma (an input that
    scale-d 0 ignores), so that every unrolled copy's partial sum is tied to
    one set of registers.

    With `overlap_promotion` in the configuration (and at least 2 stages) the math loop is
    software-pipelined by one K block: the wgmmas of block kb + 1 run on the
    tensor cores while the FFMAs promote block kb (two partial sums in
    registers, the loop unrolled by two so they keep their registers). It is
    applied when the three accumulator sets (3 x block_n / 2 registers) plus
    88 fit in the math warpgroups' setmaxnreg count: block_n <= 96 at 232.
    Off by default: on the H100 it measured within +-4% of the serial loop
    (docs/PERF.md).

    Needs the IR produced by fgemm-specialize, fgemm-schedule-tiles,
    fgemm-warp-specialize and fgemm-pipeline-tma; anything else is an error.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def FgemmLoopCountersPass : Pass<"fgemm-loop-counters", "::mlir::ModuleOp"> {
  let summary = "Carries div/rem of a loop index by a constant as loop counters";
  let description = [{
    In every `scf.for` with a constant step, `arith.remui` and `arith.divui`
    of `iv` or `iv + invariant` by a constant that is not a power of two
    become two values carried by the loop (remainder and quotient), updated
    with an add, a compare and two selects at the end of each iteration.
    Runs after convert-fgemm-to-nvvm: the ring's stage and phase (`kb mod S`,
    `kb div S`) were a multiply-high, shifts and multiplies on the path from
    one K block's promotion to the next block's barrier wait; as counters
    they are ready an iteration early. Assumes the dividend does not wrap.
    In a loop marked `fgemm.aligned_trips` (an unrolled K loop whose trips
    start at a multiple of its step s), the copies `x + j` (j < s, x known
    to be a multiple of s, the divisor a multiple of s) share x's counter:
    their remainders are it plus j, their quotients its quotient. The mark
    is removed.

    Before:
    ```mlir
    scf.for %kb = %c0 to %n step %c1 {
      %s = arith.remui %kb, %c3 : index
      %q = arith.divui %kb, %c3 : index
    ```
    After:
    ```mlir
    %r0 = arith.remui %c0, %c3 : index   // folded by the canonicalizer
    %q0 = arith.divui %c0, %c3 : index
    scf.for %kb = %c0 to %n step %c1 iter_args(%s = %r0, %q = %q0) {
      ... // %s, %q used directly; next values yielded
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

#endif // FGEMM_PASSES_TD
