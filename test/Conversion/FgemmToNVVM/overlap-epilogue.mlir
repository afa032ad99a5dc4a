// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent overlap-epilogue=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_m_grouped_fp8_gemm_masked_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent overlap-epilogue=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=MASKED
// overlap_epilogue: the math role's tile loop carries the finished tile (its
// accumulator, its row and column, and whether one is pending) and stores it
// in the next tile's first K block, between that block's wgmma commit and
// its wait; the scale loads of the new tile follow the store (whose
// barriers order the previous tile's reads of the staging first). The last
// tile is stored after the loop, before the wait for its TMA read.

// CHECK: %[[LOOP:.*]]:5 = scf.for %{{.*}} iter_args(%[[COUNT:.*]] = %c0, %[[ACC:.*]] = %{{.*}}, %[[ROW:.*]] = %c0, %[[COL:.*]] = %c0, %[[PENDING:.*]] = %false) -> (index, !llvm.struct<(f32,
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: scf.if %[[PENDING]] {
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: %[[WG_BARRIER:.*]] = arith.addi %{{.*}}, %c2_i32 : i32
// CHECK-NEXT: nvvm.barrier id = %[[WG_BARRIER]] number_of_threads = %c128_i32
// CHECK-COUNT-8: nvvm.stmatrix
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.commit.group
// The first block's scale loads, then its wait, the slot's release, the
// scales' staging and the promotion.
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier id = %c1_i32
// CHECK: llvm.fmul
// The loop yields this tile for the next one.
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %true :
// After the loop: the last tile, then the wait for its TMA read.
// CHECK: scf.if %[[LOOP]]#4 {
// CHECK-COUNT-8: nvvm.stmatrix
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}

// A grouped tile of no K blocks (no rows) still stores the pending tile, and
// yields no zeros for its own (its rows-bounded store writes nothing): the
// carried accumulator's undefined init. (The masked store's constant first
// row, 0, is not carried.)
// MASKED: %[[UNDEF:.*]] = llvm.mlir.undef : !llvm.struct<(f32,
// MASKED: scf.for %{{.*}} iter_args(%{{.*}} = %c0, %{{.*}} = %c0, %{{.*}} = %[[UNDEF]], %{{.*}} = %c0, %{{.*}} = %c0, %{{.*}} = %c0, %{{.*}} = %c0, %[[PENDING:.*]] = %false)
// MASKED: scf.if %{{.*}} -> (!llvm.struct<(f32,
// MASKED: nvvm.wgmma.commit.group.sync.aligned
// MASKED-NEXT: scf.if %[[PENDING]] {
// The else branch (no K blocks): the pending store, then the undefined
// result.
// MASKED: scf.if %[[PENDING]] {
// MASKED: scf.yield %[[UNDEF]] : !llvm.struct<(f32,
