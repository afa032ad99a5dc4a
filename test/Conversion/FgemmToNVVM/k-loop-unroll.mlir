// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=64 block-n=32 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=FOUR
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=64 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=FOUR
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=32 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=TWO
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=96 stages=4" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=TWO
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=192 stages=4 schedule=persistent cluster=2 multicast=b fixed-n=4096 fixed-k=7168" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=CONSTANT-STAGES
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=64 block-n=128 stages=8 fixed-n=4096 fixed-k=2048" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=EIGHT-STAGES
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=64 stages=8 fixed-n=2112 fixed-k=7168" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=ALIGNED
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=32 stages=10 fixed-n=2112 fixed-k=7168" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=UNMARKED
// How far convert-fgemm-to-nvvm unrolls the producer's and the math
// threads' K loops: by four where the math threads' sums are small (64-row
// tiles up to 64 columns, two warpgroups of 64 columns), by two for larger
// sums and for two warpgroups of at most 32 columns; the blocks a trip does
// not cover run one by one after.

// FOUR: arith.remsi %{{.*}}, %c4 : index
// FOUR: scf.for %{{.*}} = %c0 to %{{.*}} step %c4 {
// FOUR: scf.for %{{.*}} step %c1 {
// FOUR: arith.remsi %{{.*}}, %c4 : index
// FOUR: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4 iter_args(
// FOUR: scf.for %{{.*}} step %c1 iter_args(

// TWO: arith.remsi %{{.*}}, %c2 : index
// TWO: scf.for %{{.*}} = %c0 to %{{.*}} step %c2 {
// TWO: scf.for %{{.*}} step %c1 {
// TWO: arith.remsi %{{.*}}, %c2 : index
// TWO: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2 iter_args(
// TWO: scf.for %{{.*}} step %c1 iter_args(

// With K compiled in, larger sums unroll by four too; with four stages each
// copy's ring stage is a constant, and each block pins its address bases. A
// grouped tile's count select(has rows, 56, 0) is 56 where it runs blocks:
// the math threads' first block is peeled, the next three follow it
// unrolled, and the loop runs the last 52 in whole trips (a pair's
// cut-tile path holds a second copy of it). The producer's count stays a
// select: its blocks a trip does not cover run one by one after.
// CONSTANT-STAGES: nvvm.setmaxregister decrease 40
// CONSTANT-STAGES: scf.for %{{.*}} = %c0 to %{{.*}} step %c4 {
// CONSTANT-STAGES-NEXT: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// CONSTANT-STAGES: scf.for %{{.*}} step %c1 {
// CONSTANT-STAGES-NEXT: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// CONSTANT-STAGES: nvvm.setmaxregister increase 232
// CONSTANT-STAGES-COUNT-4: nvvm.wgmma.wait.group.sync.aligned 0
// CONSTANT-STAGES-NOT: nvvm.wgmma.wait.group.sync.aligned
// CONSTANT-STAGES: scf.for %{{.*}} = %c0 to %c52 step %c4 iter_args(
// CONSTANT-STAGES-NEXT: arith.addi
// CONSTANT-STAGES-NEXT: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// CONSTANT-STAGES-COUNT-4: nvvm.wgmma.wait.group.sync.aligned 0
// CONSTANT-STAGES-NOT: scf.for %{{.*}} step %c1 iter_args(

// Eight stages keep the unroll by three (four copies would each see two
// stages) and no pinned bases in the K loops: the producer pins only the
// count of a partial A tile's row patterns, on that tile's path
// (row-boxes.mlir).
// EIGHT-STAGES: scf.for %{{.*}} = %c0 to %{{.*}} step %c3 {
// EIGHT-STAGES-NOT: llvm.inline_asm
// EIGHT-STAGES: } else {
// EIGHT-STAGES-NEXT: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// EIGHT-STAGES: scf.for %{{.*}} step %c1 {
// EIGHT-STAGES: scf.for %{{.*}} = %c0 to %{{.*}} step %c3 iter_args(
// EIGHT-STAGES: scf.for %{{.*}} step %c1 iter_args(

// Aligned trips (KernelConfig::hasAlignedKLoopTrips: K compiled in, 4 copies
// over 8 stages): both roles' loops carry fgemm.aligned_trips for
// fgemm-loop-counters; the math role runs blocks 1-3 after the peeled block
// 0, so that its 13 trips start at multiples of 4 (no remainder loop).
// ALIGNED: nvvm.setmaxregister decrease 40
// ALIGNED: scf.for %{{.*}} = %c0 to %c56 step %c4 {
// ALIGNED: } {fgemm.aligned_trips}
// ALIGNED: nvvm.setmaxregister increase 232
// ALIGNED-COUNT-4: nvvm.wgmma.wait.group.sync.aligned 0
// ALIGNED-NOT: scf.for
// ALIGNED: scf.for %{{.*}} = %c0 to %c52 step %c4 iter_args(
// ALIGNED: } {fgemm.aligned_trips}
// ALIGNED-NOT: scf.for %{{.*}} step %c1 iter_args(
// Two copies (128x32) are not marked: they measured slower so.
// UNMARKED-NOT: fgemm.aligned_trips
