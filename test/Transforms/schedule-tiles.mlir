// RUN: fgemm-opt %s --split-input-file --fgemm-schedule-tiles --verify-diagnostics | FileCheck %s
// RUN: fgemm-opt %s --split-input-file --fgemm-schedule-tiles=persistent=true --verify-diagnostics | FileCheck %s --check-prefix=PERSIST
// fgemm-schedule-tiles: the plain grid, one CTA per output tile, x over columns.

// CHECK-LABEL: fgemm.kernel @plain
// CHECK-SAME: fgemm.grid = ["n", "m"]
// CHECK-NOT: fgemm.tile_space
// CHECK: %[[TN:.*]] = fgemm.program_id x
// CHECK-NEXT: %[[TM:.*]] = fgemm.program_id y
// CHECK-NEXT: %[[Z:.*]] = fgemm.zeros
// CHECK-NEXT: fgemm.store %[[Z]], %{{.*}}[%[[TM]], %[[TN]]]
// CHECK-NEXT: fgemm.return
fgemm.kernel @plain(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// A kernel without a tile space is left alone, with a warning.
// CHECK-LABEL: fgemm.kernel @nothing
// expected-warning @below {{fgemm-schedule-tiles: not applied: no fgemm.tile_space in the kernel}}
fgemm.kernel @nothing(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  fgemm.return
}

// -----

fgemm.kernel @two(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    fgemm.yield
  }
  // expected-error @below {{a kernel has one tile space; found 2}}
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    fgemm.yield
  }
  fgemm.return
}

// -----

// Persistent: the tile space becomes a tile loop whose body keeps the tile
// indices as its 2nd and 3rd arguments.
// PERSIST-LABEL: fgemm.kernel @persistent
// PERSIST-SAME: fgemm.schedule = "persistent"
// PERSIST: fgemm.tile_loop over %{{.*}} : !fgemm.tensor<[m, n], bf16> {
// PERSIST-NEXT: ^bb0(%{{.*}}: index, %[[TM:.*]]: index, %[[TN:.*]]: index):
// PERSIST-NEXT: %[[Z:.*]] = fgemm.zeros
// PERSIST-NEXT: fgemm.store %[[Z]], %{{.*}}[%[[TM]], %[[TN]]]
// PERSIST-NEXT: fgemm.yield
fgemm.kernel @persistent(%d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n"]} {
  fgemm.tile_space dense over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}
