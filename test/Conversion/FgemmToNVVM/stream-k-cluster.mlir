// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=256 block-n=128 stages=3 schedule=stream_k cluster=2 multicast=a" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// The stream-K schedule in clusters of two (256x128 pairs sharing A): the
// piece rule runs over clusters (ctaid / 2 of nctaid / 2) and units of two
// tiles (count / 2), so both CTAs of a cluster run the same pieces; the
// producer drains the cluster's ring after its piece loop (the peer's
// arrivals and multicasts into this CTA end before it exits); a CTA's
// workspace slot is cluster x 2 + rank, and an owner waits for the slots of
// its own rank in the clusters that follow.

// CHECK: llvm.func @sm90_fp8_gemm_1d2d(
// CHECK-SAME: %[[WS:arg14]]: !llvm.ptr<1> {llvm.noalias}
// CHECK-SAME: #fgemm.workspace_param<bytes_per_cta = 131200>
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// The producer's piece loop.
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: %[[CTA:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: %[[CTAS:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK-NEXT: %[[RANK:.*]] = arith.remui %[[CTA]], %c2 : index
// CHECK-NEXT: %[[CLUSTER:.*]] = arith.divui %[[CTA]], %c2 : index
// CHECK-NEXT: %[[CLUSTERS:.*]] = arith.divui %[[CTAS]], %c2 : index
// CHECK-NEXT: %[[UNITS:.*]] = arith.divui %{{.*}}, %c2 : index
// CHECK-NEXT: arith.remui %[[UNITS]], %[[CLUSTERS]] : index
// CHECK: %[[BLOCKS:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %c0) -> (index) {
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: scf.yield
// CHECK-NEXT: }
// The drain: each of the 3 slots released once more after the last put.
// CHECK-COUNT-3: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister  increase 232
// The math warpgroups: publish to slot (cluster x 2 + rank).
// CHECK: %[[MRANK:.*]] = arith.remui %{{.*}}, %c2 : index
// CHECK-NEXT: %[[MCLUSTER:.*]] = arith.divui %{{.*}}, %c2 : index
// CHECK: %[[SLOT0:.*]] = arith.muli %[[MCLUSTER]], %c2 : index
// CHECK-NEXT: %[[SLOT:.*]] = arith.addi %[[SLOT0]], %[[MRANK]] : index
// CHECK-NEXT: %[[SLOT64:.*]] = arith.index_cast %[[SLOT]] : index to i64
// CHECK-NEXT: arith.muli %[[SLOT64]], %c131200_i64 : i64
// CHECK: llvm.inline_asm has_side_effects "st.release.gpu.global.b32 [$0], $1;"
// The owner: the flags of its rank in the following clusters.
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK-NEXT: %[[CS:.*]] = arith.muli %[[C]], %c2 : index
// CHECK-NEXT: arith.addi %[[CS]], %[[MRANK]] : index
// CHECK: llvm.inline_asm has_side_effects "ld.acquire.gpu.global.b32 $0, [$1];"
