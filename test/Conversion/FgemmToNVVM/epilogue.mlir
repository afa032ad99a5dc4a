// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_1d1d.mlir --fgemm-specialize="block-m=128 block-n=64" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense-bias.mlir --fgemm-specialize="block-m=64 block-n=16" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=BIAS
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/unused-read-tile.mlir --convert-fgemm-to-nvvm | FileCheck %s --check-prefix=UNUSED
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_bias_1d2d.mlir --fgemm-specialize="block-m=128 block-n=64" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=BFB
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/epilogue-cast.mlir --fgemm-specialize="block-m=64 block-n=16" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=CAST
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_per_tensor.mlir --fgemm-specialize="block-m=128 block-n=64" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=PERTENSOR
// RUN: fgemm-opt %fgemm_src_root/kernels/sm90_fp8_gemm_bias_1d2d.mlir --fgemm-specialize="block-m=128 block-n=128 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=BIAS-PERSISTENT
// Epilogues written in the DSL, and the 1D1D recipe's per-column B scales.

// 1D1D, FP32 C and D: SFB's per-row scales come by TMA like SFA's (box
// 64 x 1); D is stored in 32-column f32 slabs (128-byte swizzle); C is a
// pointer without noalias (it may be D itself), and so is D (only compared
// with C).
// CHECK-LABEL: llvm.func @sm90_fp8_gemm_1d1d(
// CHECK-SAME: %[[C:arg12]]: !llvm.ptr<1>, %[[D:arg13]]: !llvm.ptr<1> {llvm.noalias}, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK-SAME: fgemm.params = [#fgemm.tensor_map_param<arg = 0, box = [128, 128], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 2, box = [128, 1], swizzle = 0>, #fgemm.tensor_map_param<arg = 3, box = [64, 1], swizzle = 0>, #fgemm.tensor_map_param<arg = 5, box = [32, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 32], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 16], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 8], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 32], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 16], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 8], swizzle = 128>, #fgemm.pointer_param<arg = 4>, #fgemm.pointer_param<arg = 5>, #fgemm.dim_param<"m">, #fgemm.dim_param<"n">, #fgemm.dim_param<"k">]
// CHECK-SAME: fgemm.variant = "dense_1d1d"

// A plain grid brings this thread's lines of the C tile into L2 before the
// main loop (two rows of 64 floats: lines at columns 0 and 32, and 63).
// CHECK: nvvm.prefetch level =  L2, %{{.*}} : !llvm.ptr<1>
// CHECK: nvvm.prefetch level =  L2, %{{.*}} : !llvm.ptr<1>
// CHECK-NOT: nvvm.prefetch level

// Promotion: this thread's column scales of the 8 fragments (columns 8i +
// 2 (lane % 4) + {0, 1}) are read from the ring slot before it is
// released; each fragment's four values get their own sa x sb.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK: nvvm.mbarrier.arrive
// CHECK-COUNT-4: arith.mulf
// CHECK-NOT: llvm.load
// CHECK: llvm.fmul

// Epilogue after the K loop: where C is D's buffer, C reads as zeros and
// the tile is added into D by TMA reduce-add; else C[r, c..c+1] is read as
// pairs (element 0 read for pairs past M or N, then replaced by 0),
// added to the accumulator, staged with 8-byte shared stores and
// TMA-stored in two 32-column slabs.
// CHECK: scf.for
// CHECK: %[[ALIASED:.*]] = llvm.icmp "eq" %[[C]], %[[D]] : !llvm.ptr<1>
// CHECK-NEXT: scf.if %[[ALIASED]]
// CHECK-NEXT: scf.yield %{{.*}} : !llvm.struct
// CHECK-NEXT: } else {
// CHECK: arith.select %[[INSIDE:.*]], %{{.*}}, %c0_i64 : i64
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[C]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT: %[[PAIR:.*]] = llvm.load %[[P]] {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NEXT: %[[X:.*]] = llvm.extractelement %[[PAIR]][%c0_i32 : i32] : vector<2xf32>
// CHECK-NEXT: arith.select %[[INSIDE]], %[[X]], %{{.*}} : f32
// CHECK-NEXT: llvm.extractelement %[[PAIR]][%c1_i32 : i32] : vector<2xf32>
// CHECK-COUNT-32: llvm.fadd
// CHECK-COUNT-16: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: scf.if %[[ALIASED]] {
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.reduce %{{.*}} {redKind = #nvvm.tma_redux_kind<add>}
// CHECK: } else {
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.commit.group

// A row vector multiplies each row, a column vector (the bias) adds to each
// column. Both are copied into shared memory by cp.async before the main
// loop (4 bytes a copy, zero-filled past the tensor: the source size is 0
// there), land while it runs, and after it each thread waits for its copies,
// meets the others at the math barrier and reads its rows r0 and r0 + 8
// ([bm], scalars) and its column pairs ([bn], 8-byte reads); the bf16
// output goes out by stmatrix.
// BIAS-LABEL: llvm.func @gemm_bias(
// BIAS-SAME: %{{.*}}: !llvm.ptr<1> {llvm.noalias}, %[[ROWS:.*]]: !llvm.ptr<1>, %[[BIAS:.*]]: !llvm.ptr<1>, %{{.*}}: i32,
// BIAS: %[[SIZE:.*]] = arith.select %{{.*}}, %c4_i32, %c0_i32 : i32
// BIAS: %[[SRC:.*]] = llvm.getelementptr %[[ROWS]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// BIAS: nvvm.cp.async.shared.global %{{.*}}, %[[SRC]], 4, cache =  ca, %[[SIZE]]
// BIAS: llvm.getelementptr %[[BIAS]]
// BIAS: nvvm.cp.async.shared.global
// BIAS: nvvm.cp.async.commit.group
// BIAS: scf.for
// BIAS: nvvm.cp.async.wait.group 0
// BIAS-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c128_i32
// BIAS: %[[S0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// BIAS: %[[S1:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// BIAS: %[[A0:.*]] = llvm.fmul %{{.*}}, %[[S0]] : f32
// BIAS: %[[A1:.*]] = llvm.fmul %{{.*}}, %[[S0]] : f32
// BIAS: %[[A2:.*]] = llvm.fmul %{{.*}}, %[[S1]] : f32
// BIAS: %[[A3:.*]] = llvm.fmul %{{.*}}, %[[S1]] : f32
// BIAS: %[[B01:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// BIAS-NEXT: %[[V0:.*]] = llvm.extractelement %[[B01]][%c0_i32 : i32] : vector<2xf32>
// BIAS-NEXT: %[[V1:.*]] = llvm.extractelement %[[B01]][%c1_i32 : i32] : vector<2xf32>
// BIAS: llvm.fadd %[[A0]], %[[V0]] : f32
// BIAS-NEXT: llvm.fadd %[[A1]], %[[V1]] : f32
// BIAS-NEXT: llvm.fadd %[[A2]], %[[V0]] : f32
// BIAS-NEXT: llvm.fadd %[[A3]], %[[V1]] : f32
// BIAS: nvvm.stmatrix

// A read nobody uses still lowers (to its loads).
// UNUSED-LABEL: llvm.func @sm90_fp8_gemm_1d1d(
// UNUSED: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>

// A bf16 bias per column: staged like the f32 vectors above (bf16 pairs in
// each 4-byte copy); after the loop each thread reads its pairs from shared
// memory, widens them to f32 (exact) and adds them; the sum is rounded to
// bf16 once, by the store. The ring plan leaves the vector's 128 bytes past
// the staged scales.
// BFB-LABEL: llvm.func @sm90_fp8_gemm_bias_1d2d(
// BFB-SAME: %arg11: !llvm.ptr<1> {llvm.noalias}, %[[BVEC:arg12]]: !llvm.ptr<1>, %arg13: i32,
// BFB-SAME: #fgemm.pointer_param<arg = 3>, #fgemm.pointer_param<arg = 4>
// BFB-SAME: fgemm.smem_bytes = 117440
// BFB-SAME: fgemm.variant = "dense_bias"
// BFB: llvm.getelementptr %[[BVEC]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// BFB: nvvm.cp.async.shared.global
// BFB: nvvm.cp.async.commit.group
// BFB: scf.for
// BFB: nvvm.cp.async.wait.group 0
// BFB: %[[PAIR:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xbf16>
// BFB-NEXT: %[[X0:.*]] = llvm.extractelement %[[PAIR]][%c0_i32 : i32] : vector<2xbf16>
// BFB-NEXT: %[[W0:.*]] = arith.extf %[[X0]] : bf16 to f32
// BFB-NOT: arith.truncf
// BFB: llvm.fadd %{{.*}}, %[[W0]] : f32
// BFB: nvvm.stmatrix

// fgemm.cast: f32 -> bf16 rounds each field (truncf) and widens it back;
// bf16 -> f32 is free. A bf16 per-row vector (staged) is read one element
// at a time.
// CAST-LABEL: llvm.func @gemm_cast(
// CAST: nvvm.cp.async.commit.group
// CAST: scf.for
// CAST: %[[H:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CAST-NEXT: %[[R:.*]] = arith.extf %[[H]] : bf16 to f32
// CAST-COUNT-7: arith.truncf
// CAST: nvvm.cp.async.wait.group 0
// CAST: %[[S:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<3> -> bf16
// CAST-NEXT: arith.extf %[[S]] : bf16 to f32
// CAST: llvm.fmul %[[R]], %{{.*}} : f32
// CAST-NOT: arith.truncf
// CAST: nvvm.cp.async.bulk.tensor.global.shared.cta

// Per-tensor scales: no TMA descriptor (pointers), each math thread loads
// both once before the K loop, and the promotion multiplies every fragment
// by their product.
// PERTENSOR-LABEL: llvm.func @sm90_fp8_gemm_per_tensor(
// PERTENSOR-SAME: %[[SA:arg10]]: !llvm.ptr<1> {llvm.noalias}, %[[SB:arg11]]: !llvm.ptr<1> {llvm.noalias}
// PERTENSOR-SAME: #fgemm.tensor_map_param<arg = 1, box = [128, 8], swizzle = 128>, #fgemm.pointer_param<arg = 2>, #fgemm.pointer_param<arg = 3>
// PERTENSOR-SAME: fgemm.variant = "dense_per_tensor"
// PERTENSOR: %[[VA:.*]] = llvm.load %[[SA]] invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// PERTENSOR-NEXT: %[[VB:.*]] = llvm.load %[[SB]] invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// PERTENSOR: nvvm.wgmma.wait.group.sync.aligned 0
// PERTENSOR: %[[S:.*]] = arith.mulf %[[VA]], %[[VB]] : f32
// PERTENSOR-COUNT-32: llvm.fmul %{{.*}}, %[[S]] : f32
// PERTENSOR: scf.for
// PERTENSOR-NOT: llvm.load %[[SA]]
// PERTENSOR: llvm.intr.fma

// A persistent tile loop whose epilogue reads a staged vector (the bias) keeps
// its math warpgroups together: the vector's staging is shared, so the scale
// staging (one copy, at 165952, every math thread) and the epilogue meet at
// the barrier of all math threads, not at each warpgroup's.
// BIAS-PERSISTENT: llvm.func @sm90_fp8_gemm_bias_1d2d
// BIAS-PERSISTENT: arith.addi %{{.*}}, %c165952_i32 : i32
// BIAS-PERSISTENT: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// BIAS-PERSISTENT-NEXT: }
// BIAS-PERSISTENT-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// BIAS-PERSISTENT: nvvm.fence.proxy
// BIAS-PERSISTENT-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// BIAS-PERSISTENT-NOT: number_of_threads = %c128_i32
