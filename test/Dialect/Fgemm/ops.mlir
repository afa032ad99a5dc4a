// RUN: fgemm-opt %s --split-input-file | fgemm-opt --split-input-file | FileCheck %s
// RUN: fgemm-opt %s --split-input-file --mlir-print-op-generic | fgemm-opt --split-input-file | FileCheck %s
// Round-trip of the tile-level fgemm ops, types and attributes.

// CHECK-LABEL: fgemm.kernel @dense
// CHECK-SAME: !fgemm.tensor<[m, k], f8E4M3FN>
// CHECK-SAME: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>
// CHECK-SAME: !fgemm.scales<[n, k], f32, block = [128, 128]>
// CHECK-SAME: dims = ["m", "n", "k"]
// CHECK: fgemm.tile_space dense over
// CHECK: fgemm.zeros
// CHECK: fgemm.k_loop "k" init
// CHECK: fgemm.load %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK: fgemm.load_scales
// CHECK: fgemm.scaled_dot %{{.*}}, %{{.*}} scales(%{{.*}}, %{{.*}}) acc(%{{.*}})
// CHECK: fgemm.store
// CHECK: fgemm.return
fgemm.kernel @dense(
    %a: !fgemm.tensor<[m, k], f8E4M3FN>, %b: !fgemm.tensor<[n, k], f8E4M3FN>,
    %sfa: !fgemm.scales<[m, k], f32, block = [1, 128], mn_major>,
    %sfb: !fgemm.scales<[n, k], f32, block = [128, 128]>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %zero = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%zero : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      %ta = fgemm.load %a[%tm, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      %tb = fgemm.load %b[%tn, %kb] : !fgemm.tensor<[n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      %sa = fgemm.load_scales %sfa[%tm, %kb] : !fgemm.scales<[m, k], f32, block = [1, 128], mn_major> -> !fgemm.tile<[bm], f32>
      %sb = fgemm.load_scales %sfb[%tn, %kb] : !fgemm.scales<[n, k], f32, block = [128, 128]> -> !fgemm.tile<[bn], f32>
      %next = fgemm.scaled_dot %ta, %tb scales(%sa, %sb) acc(%c)
          : !fgemm.tile<[bm, bk], f8E4M3FN>, !fgemm.tile<[bn, bk], f8E4M3FN>,
            !fgemm.tile<[bm], f32>, !fgemm.tile<[bn], f32> -> !fgemm.tile<[bm, bn], f32>
      fgemm.yield %next : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// CHECK-LABEL: fgemm.kernel @roles
// CHECK: fgemm.program_id x
// CHECK: fgemm.ring.create
// CHECK: fgemm.warp_specialize
// CHECK-SAME: math_warpgroups = 2
// CHECK: producer
// CHECK: fgemm.ring.put %{{.*}}[%{{.*}}] stage(%{{.*}}, %{{.*}}) (%{{.*}})
// CHECK: consumer
// CHECK: fgemm.ring.get
// CHECK: fgemm.ring.release
fgemm.kernel @roles(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %x = fgemm.program_id x
  %ring = fgemm.ring.create : !fgemm.ring
  fgemm.warp_specialize {consumer_regs = 232 : i64, math_warpgroups = 2 : i64, producer_regs = 40 : i64}
  producer {
    fgemm.k_loop "k" {
    ^bb0(%kb: index):
      %ta = fgemm.load %a[%x, %kb] : !fgemm.tensor<[m, k], f8E4M3FN> -> !fgemm.tile<[bm, bk], f8E4M3FN>
      fgemm.ring.put %ring[%kb] stage(%kb, %kb) (%ta) : !fgemm.tile<[bm, bk], f8E4M3FN>
      fgemm.yield
    }
    fgemm.yield
  } consumer {
    fgemm.k_loop "k" {
    ^bb0(%kb: index):
      %t = fgemm.ring.get %ring[%kb] : !fgemm.tile<[bm, bk], f8E4M3FN>
      fgemm.ring.release %ring[%kb]
      fgemm.yield
    }
    fgemm.yield
  }
  fgemm.return
}

// CHECK-LABEL: fgemm.kernel @row_tiles
// CHECK: fgemm.count_row_tiles %{{.*}} limit %{{.*}} {block = 128 : i64} : <[g], i32>
// CHECK: fgemm.find_row_tile_group %{{.*}}[%{{.*}}] limit %{{.*}} {block = 128 : i64} : <[g], i32>
// CHECK: fgemm.count_row_tiles %{{.*}} limit %{{.*}} pairs(%[[P:.*]], %[[T:.*]]) {block = 128 : i64} : <[g], i32>
// CHECK: fgemm.find_row_tile_group %{{.*}}[%{{.*}}] limit %{{.*}} pairs(%[[P]], %[[T]]) {block = 128 : i64} : <[g], i32>
fgemm.kernel @row_tiles(%sizes: !fgemm.tensor<[g], i32>) attributes {dims = ["g", "m"]} {
  %m = fgemm.dim "m"
  %n = fgemm.count_row_tiles %sizes limit %m {block = 128 : i64} : !fgemm.tensor<[g], i32>
  %g, %t, %r = fgemm.find_row_tile_group %sizes[%n] limit %m {block = 128 : i64} : !fgemm.tensor<[g], i32>
  %pair = arith.constant 6 : index
  %tail = arith.constant 3 : index
  %u = fgemm.count_row_tiles %sizes limit %m pairs(%pair, %tail) {block = 128 : i64} : !fgemm.tensor<[g], i32>
  %ug, %ut, %ur = fgemm.find_row_tile_group %sizes[%u] limit %m pairs(%pair, %tail) {block = 128 : i64} : !fgemm.tensor<[g], i32>
  fgemm.return
}

// -----

// Per-tensor scales, bf16 epilogue vectors and fgemm.cast.
// CHECK-LABEL: fgemm.kernel @epilogue_types
// CHECK-SAME: !fgemm.scales<[m, k], f32, per_tensor>
// CHECK-SAME: !fgemm.tensor<[n], bf16>
// CHECK: fgemm.read_tile %{{.*}}[%{{.*}}] : <[n], bf16> -> <[bn], bf16>
// CHECK: fgemm.cast %{{.*}} : <[bn], bf16> -> <[bn], f32>
// CHECK: fgemm.cast %{{.*}} : <[bm, bn], f32> -> <[bm, bn], bf16>
fgemm.kernel @epilogue_types(%s: !fgemm.scales<[m, k], f32, per_tensor>,
    %bias: !fgemm.tensor<[n], bf16>) attributes {dims = ["m", "n", "k"]} {
  %c0 = arith.constant 0 : index
  %v = fgemm.read_tile %bias[%c0] : !fgemm.tensor<[n], bf16> -> !fgemm.tile<[bn], bf16>
  %f = fgemm.cast %v : !fgemm.tile<[bn], bf16> -> !fgemm.tile<[bn], f32>
  %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  %h = fgemm.cast %z : !fgemm.tile<[bm, bn], f32> -> !fgemm.tile<[bm, bn], bf16>
  fgemm.return
}

// -----

// A stream-K tile loop: pieces of tiles, combined before the owner's store.
// CHECK-LABEL: fgemm.kernel @stream_k
// CHECK: fgemm.tile_loop %{{.*}} split_k(%{{.*}}) {
// CHECK: fgemm.k_loop "k" first(%{{.*}}) blocks(%{{.*}}) init(
// CHECK: %{{.*}}, %[[OWNER:.*]] = fgemm.combine_k_pieces %{{.*}} : <[bm, bn], f32>
// CHECK: fgemm.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] if(%[[OWNER]])
fgemm.kernel @stream_k(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  %n = fgemm.num_blocks "m" by "bm"
  %kb = fgemm.num_blocks "k" by "bk"
  fgemm.tile_loop %n split_k(%kb) {
  ^bb0(%i: index, %t: index, %before: index, %first: index, %blocks: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" first(%first) blocks(%blocks) init(%z : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%k: index, %c: !fgemm.tile<[bm, bn], f32>):
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    %sum, %owner = fgemm.combine_k_pieces %acc : !fgemm.tile<[bm, bn], f32>
    fgemm.store %sum, %d[%t, %t] if(%owner) : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// CHECK-LABEL: fgemm.kernel @k_split
// CHECK: fgemm.k_loop "k" first(%{{.*}}) blocks(%{{.*}}) init(
// CHECK: %{{.*}}, %[[OWNER:.*]] = fgemm.combine_k_split %{{.*}} : <[bm, bn], f32>
// CHECK: fgemm.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] if(%[[OWNER]])
fgemm.kernel @k_split(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"],
    config = #fgemm.config<math_warpgroups = 2, k_split = 2>} {
  %t = fgemm.program_id x
  %kb = fgemm.num_blocks "k" by "bk"
  %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  %acc = fgemm.k_loop "k" first(%t) blocks(%kb) init(%z : !fgemm.tile<[bm, bn], f32>) {
  ^bb0(%k: index, %c: !fgemm.tile<[bm, bn], f32>):
    fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
  } -> !fgemm.tile<[bm, bn], f32>
  %sum, %owner = fgemm.combine_k_split %acc : !fgemm.tile<[bm, bn], f32>
  fgemm.store %sum, %d[%t, %t] if(%owner) : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
  fgemm.return
}
