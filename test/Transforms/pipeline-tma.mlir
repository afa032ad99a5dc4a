// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=64 block-n=64 stages=6" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma | FileCheck %s --check-prefix=SMALL
// RUN: fgemm-opt %s --split-input-file --fgemm-pipeline-tma --verify-diagnostics
// fgemm-pipeline-tma: the shared-memory plan of the ring and the stage/phase
// of every access.

// Slots: A at 0 (4 x 16 KiB), B at 64 KiB (4 x 16 KiB), A scales at 128 KiB
// (4 x 512 B), the B scale (a word, in 16 bytes) at 133120; epilogue tile at
// 134144 (1024-aligned); 8 barriers after it. With block 64x64 and 6 stages
// the B scales end at 99936, so the epilogue tile starts at 100352.
// CHECK: %[[RING:.*]] = fgemm.ring.create {plan = #fgemm.ring_plan<stages = 4, offsets = [0, 65536, 131072, 133120], slot_strides = [16384, 16384, 512, 16], slot_bytes = [16384, 16384, 512, 4], output_offset = 134144, barriers = 166912, scales = 166976, scale_bytes = 0, smem_bytes = 166976>}
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

// SMALL: fgemm.ring.create {plan = #fgemm.ring_plan<stages = 6, offsets = [0, 49152, 98304, 99840], slot_strides = [8192, 8192, 256, 16], slot_bytes = [8192, 8192, 256, 4], output_offset = 100352, barriers = 108544, scales = 108640, scale_bytes = 0, smem_bytes = 108640>}

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

// -----

// The ring carries the producer's loads of the K block only: per-block
// scales of another block are not a slot the plan knows how to fill.
fgemm.kernel @put_other_block(%a: !fgemm.tensor<[m, k], f8E4M3FN>, %sfb: !fgemm.scales<[n, k], f32, block = [128, 128]>, %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"], config = #fgemm.config<block_m = 128, block_n = 128, block_k = 128, stages = 4, math_warpgroups = 2>} {
  %c0 = arith.constant 0 : index
  %r = fgemm.ring.create : !fgemm.ring
  fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64} producer {
    fgemm.k_loop "k" {
    ^bb0(%kb: index):
      %t = fgemm.load %a[%c0, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %s = fgemm.load_scales %sfb[%c0, %c0] : !fgemm.scales<[n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
      // expected-error @below {{the ring carries only the producer's loads (TMA tiles and scales, per-block scales of the K block)}}
      fgemm.ring.put %r[%kb] (%t, %s) : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn], f32>
      fgemm.yield
    }
    fgemm.yield
  } consumer {
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%c0, %c0] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
