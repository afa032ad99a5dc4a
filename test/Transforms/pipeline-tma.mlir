// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=64 block-n=64 stages=6" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s --check-prefix=SMALL
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s --check-prefix=DECOUPLED
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="schedule=persistent overlap-epilogue=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s --check-prefix=SHARED
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="schedule=persistent couple-math-warpgroups=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s --check-prefix=SHARED
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_bias_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 stages=4 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s --check-prefix=SHARED
// RUN: fgemm-opt %s --split-input-file --fgemm-pipeline-tma --verify-diagnostics
// fgemm-pipeline-tma: the shared-memory plan of the ring and the stage/phase
// of every access.

// Slots: A at 0 (4 x 16 KiB), B at 64 KiB (4 x 16 KiB), A scales at 128 KiB
// (4 x 512 B); epilogue tile at 133120 (1024-aligned); 8 barriers after it;
// the staged B scales, one 512-byte copy the math warpgroups share.
// With block 64x64 and 6 stages the A scales end at 99840, so the epilogue
// tile starts at 100352.
// CHECK: %[[RING:.*]] = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 4, offsets = [0, 65536, 131072], slot_strides = [16384, 16384, 512], slot_bytes = [16384, 16384, 512], output_offset = 133120, barriers = 165888, scales = 165952, scale_bytes = 512, smem_bytes = 166464>}
// A persistent tile loop whose math warpgroups share nothing else per tile
// decouples them: the plan says so and holds a copy of the staged scales
// per math warpgroup. With the deferred store (overlap_epilogue), staged
// epilogue vectors (the bias kernel) or couple_math_warpgroups they share one.
// DECOUPLED: scales = 165952, scale_bytes = 1024, smem_bytes = 166976, decoupled_warpgroups = true>}
// SHARED: fgemm.ring.create {plan = #fgemm.ring_plan<
// SHARED-NOT: decoupled_warpgroups
// SHARED-SAME: >}
// CHECK: producer {
// CHECK: ^bb0(%[[KB:.*]]: index):
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[S:.*]] = arith.remui %[[KB]], %[[C4]] : index
// CHECK-NEXT: %[[R:.*]] = arith.divui %[[KB]], %[[C4]] : index
// CHECK-NEXT: %[[P:.*]] = arith.andi %[[R]], %[[C1]] : index
// CHECK: fgemm.ring.put %[[RING]][%[[KB]]] stage(%[[S]], %[[P]])
// CHECK: consumer {
// CHECK: ^bb0(%[[KB2:.*]]: index, %{{.*}}: !fgemm.tile<[bm, bn], f32>):
// CHECK: %[[S2:.*]] = arith.remui %[[KB2]]
// CHECK: %[[P2:.*]] = arith.andi
// CHECK: fgemm.ring.get %[[RING]][%[[KB2]]] stage(%[[S2]], %[[P2]])
// CHECK: fgemm.ring.release %[[RING]][%[[KB2]]] stage(%[[S2]], %[[P2]])

// SMALL: fgemm.ring.create {plan = #fgemm.ring_plan<stages = 6, offsets = [0, 49152, 98304], slot_strides = [8192, 8192, 256], slot_bytes = [8192, 8192, 256], output_offset = 100352, barriers = 108544, scales = 108640, scale_bytes = 512, smem_bytes = 109152>}

// -----

// expected-error @below {{fgemm-pipeline-tma needs a specialized kernel (run fgemm-specialize first)}}
fgemm.kernel @unspecialized(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  fgemm.return
}

// -----

// expected-warning @below {{fgemm-pipeline-tma: not applied: no fgemm.ring (run fgemm-warp-specialize first)}}
fgemm.kernel @no_ring(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"], config = #fgemm.config<math_warpgroups = 2>} {
  fgemm.return
}
