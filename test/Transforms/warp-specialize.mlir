// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize --fgemm-schedule-tiles --fgemm-warp-specialize | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize --fgemm-schedule-tiles --fgemm-warp-specialize="producer-regs=24 consumer-regs=240" | FileCheck %s --check-prefix=REGS
// fgemm-warp-specialize: TMA loads (A, B tiles and the MN-major A scales) move
// to the producer; the per-block B scale, the dot and the epilogue stay with
// the math warpgroups. Negative cases are in warp-specialize-invalid.mlir.

// CHECK-LABEL: fgemm.kernel @sm90_fp8_gemm_1d2d
// CHECK: %[[TN:.*]] = fgemm.program_id x
// CHECK: %[[TM:.*]] = fgemm.program_id y
// CHECK: %[[ZERO:.*]] = fgemm.zeros
// CHECK: %[[RING:.*]] = fgemm.ring.create : !fgemm.ring
// CHECK: fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64} producer {
// CHECK-NEXT: fgemm.k_loop "k" {
// CHECK-NEXT: ^bb0(%[[KB:.*]]: index):
// CHECK-NEXT: %[[A:.*]] = fgemm.load %{{.*}}[%[[TM]], %[[KB]]]
// CHECK-NEXT: %[[B:.*]] = fgemm.load %{{.*}}[%[[TN]], %[[KB]]]
// CHECK-NEXT: %[[SA:.*]] = fgemm.load_scales %{{.*}}[%[[TM]], %[[KB]]] {{.*}}mn_major
// CHECK-NEXT: fgemm.ring.put %[[RING]][%[[KB]]] (%[[A]], %[[B]], %[[SA]])
// CHECK: } consumer {
// CHECK-NEXT: %[[ACC:.*]] = fgemm.k_loop "k" init(%[[ZERO]]
// CHECK-NEXT: ^bb0(%[[KB2:.*]]: index, %[[C:.*]]: !fgemm.tile<[bm, bn], f32>):
// CHECK-NEXT: %[[GOT:.*]]:3 = fgemm.ring.get %[[RING]][%[[KB2]]]
// CHECK-NEXT: %[[SB:.*]] = fgemm.load_scales %{{.*}}[%[[TN]], %[[KB2]]] : <[n, k], f32, block = [128, 128]>
// CHECK-NEXT: %[[DOT:.*]] = fgemm.scaled_dot %[[GOT]]#0, %[[GOT]]#1 scales(%[[GOT]]#2, %[[SB]]) acc(%[[C]])
// CHECK-NEXT: fgemm.ring.release %[[RING]][%[[KB2]]]
// CHECK-NEXT: fgemm.yield %[[DOT]]
// CHECK: fgemm.store %[[ACC]]
// CHECK: fgemm.yield
// CHECK-NEXT: }
// CHECK-NEXT: fgemm.return

// REGS: consumer_regs = 240 : i64, math_warpgroups = 2 : i64, producer_regs = 24 : i64
