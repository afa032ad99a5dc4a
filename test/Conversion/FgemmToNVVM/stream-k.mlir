// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=stream_k" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// The stream-K schedule lowered: a workspace parameter after the pointers
// (128 flag bytes + a 128 x 128 f32 partial tile per CTA), the math
// warpgroups' piece loop, and fgemm.combine_k_pieces: a piece past K block 0
// stores its fragments (16-byte vectors) to its CTA's slot and releases the
// slot's flag; the owner's thread 0 acquires each contributor's flag and
// clears it, and after a math barrier every thread adds the contributors'
// slots; the tile's store runs on its owner only.

// CHECK: llvm.func @sm90_fp8_gemm_1d2d(
// CHECK-SAME: %[[WS:arg13]]: !llvm.ptr<1> {llvm.noalias}, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK-SAME: fgemm.params = [{{.*}}#fgemm.pointer_param<arg = 3>, #fgemm.workspace_param<bytes_per_cta = 65664>, #fgemm.dim_param<"m">
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: %[[PUBLISH:.*]] = arith.cmpi ne, %{{.*}}, %c0 : index
// CHECK: scf.if %[[PUBLISH]] -> (!llvm.struct
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-NEXT: scf.if
// CHECK-NEXT: %[[FLAG:.*]] = llvm.getelementptr %[[WS]]
// CHECK-NEXT: llvm.inline_asm has_side_effects "st.release.gpu.global.b32 [$0], $1;", "l,r" %[[FLAG]], %c1_i32
// CHECK: } else {
// CHECK: scf.for
// CHECK: scf.while
// CHECK-NEXT: llvm.inline_asm has_side_effects "ld.acquire.gpu.global.b32 $0, [$1];"
// CHECK: llvm.inline_asm has_side_effects "st.relaxed.gpu.global.b32 [$0], $1;", "l,r" %{{.*}}, %c0_i32
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-NEXT: scf.for
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.fadd
// The owner (first K block 0, canonicalized from `not publishes`) stores,
// by TMA as the persistent schedule's store does.
// CHECK: %[[OWNER:.*]] = arith.cmpi eq, %[[FIRST:.*]], %c0 : index
// CHECK-NEXT: scf.if %[[OWNER]] {
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
