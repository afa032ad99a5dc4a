// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent timeline=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=OFF
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_contiguous_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent prefetch-scales=true timeline=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm | FileCheck %s --check-prefix=PF
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=64 stages=8 timeline=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=PLAIN
// The timeline knob (docs/TIMELINE.md): a zeroed u64 global of 1024 CTAs x
// 4 roles x 62 slots and its shape; the producer's thread stamps its entry
// (slot 0 of row 4 * cta, cta = ctaid.x + nctaid.x (ctaid.y + nctaid.y
// ctaid.z)), each tile's start (slot 2 + 4 t, tiles t < 15),
// ready (3 + 4 t: its K loop's start) and end (5 + 4 t), and its exit; a math
// warpgroup's first thread (row 4 * cta + 1 + its warpgroup) stamps its
// entry, each tile's start, ready (before the first full-barrier wait),
// first wgmmas issued (4 + 4 t, after the commit, before the wait) and end
// (after the TMA store), and its exit (slot 1) after the last store's read.
// CTAs from 1024 on stamp nothing. Without the knob: no global, no stamp.

// CHECK: llvm.mlir.global external @fgemm_timeline() {addr_space = 1 : i32, alignment = 8 : i64} : !llvm.array<253952 x i64> {
// CHECK-NEXT: llvm.mlir.zero : !llvm.array<253952 x i64>
// CHECK: llvm.mlir.global external constant @fgemm_timeline_shape(dense<[1024, 4, 62]> : tensor<3xi32>) {addr_space = 1 : i32, alignment = 4 : i64} : !llvm.array<3 x i32>
// CHECK: %[[STAMPS:.*]] = llvm.mlir.addressof @fgemm_timeline : !llvm.ptr<1>
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK-NEXT: %[[NY:.*]] = nvvm.read.ptx.sreg.nctaid.y : i32
// CHECK-NEXT: %[[ZNY:.*]] = arith.muli %[[NY]], %[[Z]] : i32
// CHECK-NEXT: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-NEXT: %[[YZ:.*]] = arith.addi %[[Y]], %[[ZNY]] : i32
// CHECK-NEXT: %[[NX:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-NEXT: %[[YZNX:.*]] = arith.muli %[[NX]], %[[YZ]] : i32
// CHECK-NEXT: %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT: %[[CTA:.*]] = arith.addi %[[X]], %[[YZNX]] : i32
// CHECK-NEXT: %[[STAMPED:.*]] = arith.cmpi ult, %[[CTA]], %c1024_i32 : i32
// CHECK-NEXT: scf.if %[[STAMPED]] {
// CHECK-NEXT: %[[ENTRY:.*]] = arith.muli %[[CTA]], %c248_i32 : i32
// CHECK-NEXT: %[[ENTRY64:.*]] = arith.extui %[[ENTRY]] : i32 to i64
// CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %[[STAMPS]][%[[ENTRY64]]]
// CHECK-NEXT: %[[NOW:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT: llvm.store %[[NOW]], %[[AT]] : i64, !llvm.ptr<1>
// CHECK: scf.for
// CHECK: %[[ITER:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK-NEXT: %[[INTILES:.*]] = arith.cmpi ult, %[[ITER]], %c15_i32 : i32
// CHECK-NEXT: %[[TILESTAMPED:.*]] = arith.andi %[[STAMPED]], %[[INTILES]] : i1
// CHECK-NEXT: %[[FOUR:.*]] = arith.muli %[[ITER]], %c4_i32 : i32
// CHECK-NEXT: %[[START:.*]] = arith.addi %[[FOUR]], %c2_i32 : i32
// CHECK-NEXT: scf.if %[[TILESTAMPED]] {
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: arith.addi %[[FOUR]], %c3_i32 : i32
// CHECK-NEXT: scf.if %[[TILESTAMPED]] {
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: arith.addi %[[FOUR]], %c5_i32 : i32
// CHECK-NEXT: scf.if %[[TILESTAMPED]] {
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64
// The producer's exit, then the math warpgroups.
// CHECK: arith.addi %{{.*}}, %c1_i32 : i32
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: nvvm.setmaxregister increase 232
// CHECK: %[[WG:.*]] = nvvm.shfl.sync idx
// CHECK: %[[ROLE:.*]] = arith.addi %[[WG]], %c1_i32 : i32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32 : i32
// CHECK-NEXT: %[[MATHSTAMPED:.*]] = arith.andi %{{.*}}, %[[FIRST]] : i1
// CHECK-NEXT: scf.if %[[MATHSTAMPED]] {
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %{{.*}}, %c4_i32 : i32
// CHECK-NEXT: arith.addi %[[ROW]], %[[ROLE]] : i32
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: %[[READY:.*]] = arith.addi %{{.*}}, %c3_i32 : i32
// CHECK-NEXT: scf.if
// CHECK: arith.addi %{{.*}}, %[[READY]] : i32
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: %[[WGMMASLOT:.*]] = arith.addi %{{.*}}, %c4_i32 : i32
// CHECK-NEXT: scf.if
// CHECK: arith.addi %{{.*}}, %[[WGMMASLOT]] : i32
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: %[[ENDSLOT:.*]] = arith.addi %{{.*}}, %c5_i32 : i32
// CHECK-NEXT: scf.if
// CHECK: arith.addi %{{.*}}, %[[ENDSLOT]] : i32
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: arith.addi %{{.*}}, %c1_i32 : i32
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64

// OFF-NOT: fgemm_timeline
// OFF-NOT: globaltimer

// With prefetch_scales the next tile's order is lowered in the tile before;
// its stamps stay the tile loop's own.
// PF: llvm.func @sm90_m_grouped_fp8_gemm_contiguous_1d2d
// PF-COUNT-12: nvvm.read.ptx.sreg.globaltimer
// PF-NOT: nvvm.read.ptx.sreg.globaltimer

// A plain grid (two-dimensional, no tile loop) stamps by the linear CTA index
// and its one tile as tile 0: the producer's start (slot 2) and ready (3: its
// K loop's start) after its entry, its end (5) before its exit; a math
// warpgroup's start, ready, first wgmmas (4) and end likewise.
// PLAIN: nvvm.setmaxregister decrease 40
// PLAIN: nvvm.read.ptx.sreg.nctaid.x : i32
// PLAIN-NEXT: arith.muli
// PLAIN-NEXT: %[[CTA:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// PLAIN-NEXT: %[[STAMPED:.*]] = arith.cmpi ult, %[[CTA]], %c1024_i32 : i32
// PLAIN-NEXT: scf.if %[[STAMPED]] {
// PLAIN-NEXT: %[[ROW:.*]] = arith.muli %[[CTA]], %c248_i32 : i32
// PLAIN-NEXT: arith.extui %[[ROW]]
// PLAIN: nvvm.read.ptx.sreg.globaltimer : i64
// PLAIN: scf.if %[[STAMPED]] {
// PLAIN-NEXT: %[[ROW2:.*]] = arith.muli %[[CTA]], %c248_i32 : i32
// PLAIN-NEXT: arith.addi %[[ROW2]], %c2_i32 : i32
// PLAIN: nvvm.read.ptx.sreg.globaltimer : i64
// PLAIN: arith.addi %{{.*}}, %c3_i32 : i32
// PLAIN: nvvm.read.ptx.sreg.globaltimer : i64
// PLAIN: nvvm.cp.async.bulk.tensor.shared.cluster.global
// PLAIN: arith.addi %{{.*}}, %c5_i32 : i32
// PLAIN: nvvm.read.ptx.sreg.globaltimer : i64
// PLAIN: arith.addi %{{.*}}, %c1_i32 : i32
// PLAIN: nvvm.read.ptx.sreg.globaltimer : i64
// PLAIN: nvvm.setmaxregister increase
// PLAIN: arith.addi %{{.*}}, %c2_i32 : i32
// PLAIN: nvvm.read.ptx.sreg.globaltimer : i64
// PLAIN: arith.addi %{{.*}}, %c3_i32 : i32
// PLAIN: nvvm.read.ptx.sreg.globaltimer : i64
// PLAIN: nvvm.mbarrier.try_wait.parity
// PLAIN: nvvm.wgmma.commit.group.sync.aligned
// PLAIN-NEXT: scf.if
// PLAIN: arith.addi %{{.*}}, %c4_i32 : i32
// PLAIN: nvvm.read.ptx.sreg.globaltimer : i64
// PLAIN: nvvm.cp.async.bulk.tensor.global.shared.cta
// PLAIN: arith.addi %{{.*}}, %c5_i32 : i32
// PLAIN: nvvm.read.ptx.sreg.globaltimer : i64
// PLAIN: arith.addi %{{.*}}, %c1_i32 : i32
// PLAIN: nvvm.read.ptx.sreg.globaltimer : i64
