// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=64 stages=4 k-split=2" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// A K-split cluster lowered (KSplitLowering.cpp): two barriers past the
// ring's eight (ready: k_split - 1 arrivals, done: 1) and a cluster sync
// after their inits; after the math loop, rank 0 waits for `ready` with
// cluster-scope acquire, adds rank 1's share read through distributed
// shared memory (16-byte vectors from the peer's ring), and after a math
// barrier releases rank 1 (`done`); rank 1, after a math barrier (both
// warpgroups past their last wgmmas), stores its share to its own ring,
// arrives on rank 0's `ready` with cluster-scope release and waits for
// `done` before it ends. No workspace parameter.

// CHECK: llvm.func @sm90_fp8_gemm_1d2d(
// CHECK-NOT: workspace_param
// CHECK-SAME: nvvm.kernel
// CHECK: nvvm.mbarrier.init %{{.*}}, %c8_i32
// CHECK: %[[READY:.*]] = llvm.getelementptr %[[SMEM:.*]][116800]
// CHECK-NEXT: nvvm.mbarrier.init %[[READY]], %c1_i32
// CHECK-NEXT: %[[DONE:.*]] = llvm.getelementptr %[[SMEM]][116808]
// CHECK-NEXT: nvvm.mbarrier.init %[[DONE]], %c1_i32
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: nvvm.cluster.arrive.relaxed
// CHECK-NEXT: nvvm.cluster.wait

// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[OWNER:.*]] = arith.cmpi eq, %[[RANK]], %c0_i32 : i32
// CHECK: scf.if %[[OWNER]]
// CHECK: llvm.inline_asm has_side_effects "{{.*}}mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [$0], 0;
// CHECK: %[[PEER:.*]] = nvvm.mapa %{{.*}}, %c1_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: llvm.load %[[PEER]] {alignment = 16 : i64} : !llvm.ptr<7> -> vector<4xf32>
// CHECK: llvm.fadd
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: %[[PEERDONE:.*]] = nvvm.mapa %{{.*}}, %c1_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[PEERDONE]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// CHECK: } else {
// CHECK-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: %[[RANK0READY:.*]] = nvvm.mapa %{{.*}}, %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[RANK0READY]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %c0_i32
