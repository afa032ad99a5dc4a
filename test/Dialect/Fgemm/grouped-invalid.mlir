// RUN: fgemm-opt %s --split-input-file --verify-diagnostics
// Diagnostics of grouped kernels: group-indexed tensors and scales, i32
// index tensors, and the grouped tile spaces.

// i32 tensors are 1-D index arrays.
// expected-error @below {{i32 tensors are 1-D index arrays read on the GPU (fgemm.read, fgemm.zero_rows, the group lookups); got 2 dimensions}}
fgemm.kernel @index_rank(%t: !fgemm.tensor<[g, m], i32>) attributes {dims = ["g", "m"]} {
  fgemm.return
}

// -----

// expected-error @below {{scales describe a 2-D operand, or a 3-D one whose first dimension is a group; got 1 dimensions}}
fgemm.kernel @scales_rank(%s: !fgemm.scales<[k], f32, block = [1, 128]>) attributes {dims = ["k"]} {
  fgemm.return
}

// -----

// A dense tile space has no groups tensor.
fgemm.kernel @dense_groups(%a: !fgemm.tensor<[m, k], f8E4M3FN>, %idx: !fgemm.tensor<[m], i32>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k"]} {
  // expected-error @below {{a dense tile space takes no groups tensor}}
  fgemm.tile_space dense(%idx : !fgemm.tensor<[m], i32>) over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// The masked layout's output has a group dimension.
fgemm.kernel @masked_rank(%mm: !fgemm.tensor<[g], i32>, %d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "g"]} {
  // expected-error @below {{a grouped_masked tile space covers a 3-D output [g, m, n]; got [m, n]}}
  fgemm.tile_space grouped_masked(%mm : !fgemm.tensor<[g], i32>) over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%g: index, %tm: index, %tn: index, %lo: index, %hi: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// m_indices has one entry per output row.
fgemm.kernel @contiguous_indices(%idx: !fgemm.tensor<[g], i32>, %d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n", "g"]} {
  // expected-error @below {{a grouped_contiguous tile space takes a 1-D i32 tensor [m] of row groups (m_indices): `grouped_contiguous(%t : !fgemm.tensor<[m], i32>)`}}
  fgemm.tile_space grouped_contiguous(%idx : !fgemm.tensor<[g], i32>) over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%g: index, %tm: index, %tn: index, %lo: index, %hi: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @grouped_args(%idx: !fgemm.tensor<[m], i32>, %d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n"]} {
  // expected-error @below {{body of a grouped tile space takes five index arguments: the tile's group, its row and column block indices, and the group's first and end row}}
  fgemm.tile_space grouped_contiguous(%idx : !fgemm.tensor<[m], i32>) over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%tm: index, %tn: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// B of a grouped GEMM indexed by the M tile instead of the group.
fgemm.kernel @group_index(%b: !fgemm.tensor<[g, n, k], f8E4M3FN>, %idx: !fgemm.tensor<[m], i32>,
    %d: !fgemm.tensor<[m, n], bf16>) attributes {dims = ["m", "n", "k", "g"]} {
  fgemm.tile_space grouped_contiguous(%idx : !fgemm.tensor<[m], i32>) over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%g: index, %tm: index, %tn: index, %lo: index, %hi: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    %acc = fgemm.k_loop "k" init(%z : !fgemm.tile<[bm, bn], f32>) {
    ^bb0(%kb: index, %c: !fgemm.tile<[bm, bn], f32>):
      // expected-error @below {{'fgemm.load' op index 0 is the fgemm.tile_space index of dimension 'm', but index 0 of kernel argument #0 [g, n, k] is its group: use the tile's group (the first argument of a grouped fgemm.tile_space)}}
      %tb = fgemm.load %b[%tm, %tn, %kb] : !fgemm.tensor<[g, n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
      fgemm.yield %c : !fgemm.tile<[bm, bn], f32>
    } -> !fgemm.tile<[bm, bn], f32>
    fgemm.store %acc, %d[%tm, %tn] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

// A 3-D tensor loaded without its group.
fgemm.kernel @missing_group(%b: !fgemm.tensor<[g, n, k], f8E4M3FN>)
    attributes {dims = ["n", "k", "g"]} {
  %i = fgemm.program_id x
  %j = fgemm.program_id y
  // expected-error @below {{takes 3 indices for kernel argument #0 [g, n, k] (the group, then two block indices); got 2}}
  %tb = fgemm.load %b[%i, %j] : !fgemm.tensor<[g, n, k], f8E4M3FN> -> !fgemm.tile<[bn, bk], f8E4M3FN>
  fgemm.return
}

// -----

fgemm.kernel @read_fp8(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %i = fgemm.program_id x
  // expected-error @below {{reads 1-D i32 index tensors; got '!fgemm.tensor<[m, k], f8E4M3FN>'}}
  %v = fgemm.read %a[%i] : !fgemm.tensor<[m, k], f8E4M3FN> -> i32
  fgemm.return
}

// -----

fgemm.kernel @dim_unknown() attributes {dims = ["m"]} {
  // expected-error @below {{'q' is not a kernel dimension}}
  %q = fgemm.dim "q"
  fgemm.return
}

// -----

// zero_rows masks the rows the index tensor blocks.
fgemm.kernel @zero_rows_cols(%idx: !fgemm.tensor<[n], i32>) attributes {dims = ["n"]} {
  %i = fgemm.program_id x
  %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
  // expected-error @below {{the tile's rows bm must block the index tensor's [n] (bn)}}
  %r = fgemm.zero_rows %z, %idx[%i] : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[n], i32>
  fgemm.return
}

// -----

// A store whose operand segments are malformed (generic form, found by the
// compiler fuzzer): its own error, not a crash in the tile space's check of
// the stores it holds.
"fgemm.kernel"() <{dims = ["m", "n"], function_type = (!fgemm.tensor<[m, n], bf16>) -> (), sym_name = "segments"}> ({
^bb0(%d: !fgemm.tensor<[m, n], bf16>):
  "fgemm.tile_space"(%d) <{kind = #fgemm<tile_space_kind dense>}> ({
  ^bb0(%tm: index, %tn: index):
    %z = "fgemm.zeros"() : () -> !fgemm.tile<[bm, bn], f32>
    // expected-error @below {{'fgemm.store' op 'operandSegmentSizes' attribute cannot have negative elements}}
    "fgemm.store"(%z, %d, %tm, %tn) <{operandSegmentSizes = array<i32: -1, 1, 2, 0, 0, 0>}> : (!fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>, index, index) -> ()
    "fgemm.yield"() : () -> ()
  }) : (!fgemm.tensor<[m, n], bf16>) -> ()
  "fgemm.return"() : () -> ()
}) : () -> ()

// -----

fgemm.kernel @find_group_fp8(%a: !fgemm.tensor<[m, k], f8E4M3FN>) attributes {dims = ["m", "k"]} {
  %i = fgemm.program_id x
  // expected-error @below {{searches a 1-D i32 tensor of end rows; got '!fgemm.tensor<[m, k], f8E4M3FN>'}}
  %g = fgemm.find_group %a[%i] : !fgemm.tensor<[m, k], f8E4M3FN> -> i32
  fgemm.return
}

// -----

// The psum form's ends have one entry per group, not per row.
fgemm.kernel @psum_per_row(%ends: !fgemm.tensor<[m], i32>, %d: !fgemm.tensor<[m, n], bf16>)
    attributes {dims = ["m", "n"]} {
  // expected-error @below {{a grouped_contiguous_psum tile space takes a 1-D i32 tensor [g] of group end rows (group_ends): `grouped_contiguous_psum(%t : !fgemm.tensor<[g], i32>)`}}
  fgemm.tile_space grouped_contiguous_psum(%ends : !fgemm.tensor<[m], i32>) over %d : !fgemm.tensor<[m, n], bf16> {
  ^bb0(%g: index, %tm: index, %tn: index, %lo: index, %hi: index):
    %z = fgemm.zeros : !fgemm.tile<[bm, bn], f32>
    fgemm.store %z, %d[%tm, %tn] rows(%lo, %hi) : !fgemm.tile<[bm, bn], f32>, !fgemm.tensor<[m, n], bf16>
    fgemm.yield
  }
  fgemm.return
}

// -----

fgemm.kernel @find_piece_group_block(%ends: !fgemm.tensor<[g], i32>) attributes {dims = ["g"]} {
  %i = fgemm.program_id x
  // expected-error @below {{block must be positive, got 0}}
  %g = fgemm.find_piece_group %ends[%i] {block = 0 : i64} : !fgemm.tensor<[g], i32> -> i32
  fgemm.return
}

// -----

fgemm.kernel @count_row_tiles_block(%sizes: !fgemm.tensor<[g], i32>) attributes {dims = ["g", "m"]} {
  %m = fgemm.dim "m"
  // expected-error @below {{block must be positive, got 0}}
  %n = fgemm.count_row_tiles %sizes limit %m {block = 0 : i64} : !fgemm.tensor<[g], i32>
  fgemm.return
}

// -----

fgemm.kernel @count_row_tiles_pairs(%sizes: !fgemm.tensor<[g], i32>) attributes {dims = ["g", "m"]} {
  %m = fgemm.dim "m"
  %pair = arith.constant 6 : index
  // expected-error @below {{pairs(...) needs both the units of a pair of row tiles and those of a group's odd last row tile}}
  %n = "fgemm.count_row_tiles"(%sizes, %m, %pair) <{block = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (!fgemm.tensor<[g], i32>, index, index) -> index
  fgemm.return
}

// -----

fgemm.kernel @count_row_tiles_nested(%sizes: !fgemm.tensor<[g], i32>) attributes {dims = ["g", "m"]} {
  %m = fgemm.dim "m"
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %m step %c1 {
    // expected-error @below {{must be directly in the kernel's body (every thread of a CTA runs it: it sums the groups across a warp)}}
    %n = fgemm.count_row_tiles %sizes limit %m {block = 128 : i64} : !fgemm.tensor<[g], i32>
  }
  fgemm.return
}

// -----

fgemm.kernel @count_row_tiles_type(%sizes: !fgemm.tensor<[g, m], bf16>) attributes {dims = ["g", "m"]} {
  %m = fgemm.dim "m"
  // expected-error @below {{reads per-group row counts from a 1-D i32 tensor; got '!fgemm.tensor<[g, m], bf16>'}}
  %n = fgemm.count_row_tiles %sizes limit %m {block = 128 : i64} : !fgemm.tensor<[g, m], bf16>
  fgemm.return
}

// -----

fgemm.kernel @find_row_tile_group_type(%sizes: !fgemm.tensor<[g, m, k], f8E4M3FN>) attributes {dims = ["g", "m", "k"]} {
  %m = fgemm.dim "m"
  %i = fgemm.program_id x
  // expected-error @below {{reads per-group row counts from a 1-D i32 tensor; got '!fgemm.tensor<[g, m, k], f8E4M3FN>'}}
  %g, %t, %r = fgemm.find_row_tile_group %sizes[%i] limit %m {block = 128 : i64} : !fgemm.tensor<[g, m, k], f8E4M3FN>
  fgemm.return
}
