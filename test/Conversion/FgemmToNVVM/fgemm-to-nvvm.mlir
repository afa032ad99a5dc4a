// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-m=64 block-n=64" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=SMALL
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-n=96" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm | FileCheck %s --check-prefix=STRADDLE
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-n=176" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=SELECT
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize=schedule=persistent --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=PERSIST
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-n=64 overlap-promotion=true" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm | FileCheck %s --check-prefix=OVERLAP
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="block-n=64" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm | FileCheck %s --check-prefix=NOOVERLAP
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="cluster=2" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=CLUSTER
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="cluster=2 schedule=persistent" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=PCLUSTER
// RUN: fgemm-opt %fgemm_src_root/test/Transforms/Inputs/dense.mlir --fgemm-specialize="fixed-k=7168" --fgemm-schedule-tiles --fgemm-warp-specialize --fgemm-pipeline-tma --convert-fgemm-to-nvvm --canonicalize --cse | FileCheck %s --check-prefix=FIXEDK
// convert-fgemm-to-nvvm: the kernel signature (docs/ABI.md), barrier set-up,
// the producer's TMA loop, the math loop (wgmma + promotion) and the epilogue.

// One external dynamic shared-memory array, 1024-byte aligned (MLIR-NVGPU.md trap 2).
// CHECK: llvm.mlir.global external @fgemm_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// TMA descriptors by value as grid constants (A, B, SFA, D), then SFB, then M, N, K.
// CHECK-LABEL: llvm.func @sm90_fp8_gemm_1d2d(
// CHECK-SAME: %[[TMA_A:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME: %[[TMA_B:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME: %[[TMA_SFA:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME: %[[TMA_D:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// Then A's and B's maps of 64-, 32-, 16- and 8-row boxes (M and N come with
// the launch: a tile may reach past the last row; lowerRingPut).
// CHECK-SAME: {{(%arg[0-9]+: !llvm.ptr [{]llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant[}], ){8}%}}[[SFB:arg[0-9]+]]: !llvm.ptr<1> {llvm.noalias}, %[[M:arg[0-9]+]]: i32, %[[N:arg[0-9]+]]: i32, %[[K:arg[0-9]+]]: i32)
// The parameter list as the kernel description states it (docs/ABI.md).
// CHECK-SAME: fgemm.params = [#fgemm.tensor_map_param<arg = 0, box = [128, 128], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 128], swizzle = 128>, #fgemm.tensor_map_param<arg = 2, box = [128, 1], swizzle = 0>, #fgemm.tensor_map_param<arg = 4, box = [64, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 32], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 16], swizzle = 128>, #fgemm.tensor_map_param<arg = 0, box = [128, 8], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 32], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 16], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 8], swizzle = 128>, #fgemm.pointer_param<arg = 3>, #fgemm.dim_param<"m">, #fgemm.dim_param<"n">, #fgemm.dim_param<"k">]
// CHECK-SAME: fgemm.smem_bytes = 166464
// CHECK-SAME: nvvm.kernel, nvvm.maxnreg = 168 : i32, nvvm.reqntid = array<i32: 384, 1, 1>

// Set-up by thread 0: the four TMA descriptors prefetched (parameter
// order), then full (count 1) and empty (count 8: one arrival per math warp)
// barriers per stage, made visible to the TMA unit by fence.mbarrier_init.
// CHECK: scf.if
// CHECK: nvvm.prefetch tensormap in_param_space, %[[TMA_A]] : !llvm.ptr
// CHECK-NEXT: nvvm.prefetch tensormap in_param_space, %[[TMA_B]] : !llvm.ptr
// CHECK-NEXT: nvvm.prefetch tensormap in_param_space, %[[TMA_SFA]] : !llvm.ptr
// CHECK-NEXT: nvvm.prefetch tensormap in_param_space, %{{.*}} : !llvm.ptr
// CHECK-COUNT-4: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.barrier0

// Producer: fewer registers; one thread waits for a free slot, arms the full
// barrier with the bytes of A + B (as loaded: row-boxes.mlir) + SFA, and
// issues three TMA loads (a whole tile's boxes first).
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[BYTES:.*]] = arith.addi %{{.*}}, %c512_i32 : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[BYTES]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[TMA_A]], %{{.*}}, box[
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[TMA_B]], %{{.*}}, box[
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[TMA_SFA]], %{{.*}}, box[

// Math warpgroups: more registers; the warpgroup index made warp-uniform by
// a shuffle (wgmma descriptors stay in uniform registers). The B scales come
// from shared memory (staged at 165952): at the first K block of each chunk
// of 128, between two math barriers, the math threads copy the chunk's
// scales there; each K block reads its own with one shared load. Per K
// block: wait for the slot, read the two A row scales, four k32 wgmmas (the
// first starts a fresh partial sum), wait, one arrival per warp on the
// slot's empty barrier, promote.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.shfl.sync idx %{{.*}}, %{{.*}}, %c0_i32, %c31_i32 : i32 -> i32
// The tile's first staging needs no barrier before it (nothing has read the
// staging yet), only the one after; a plain grid's CTA stages before its
// first wgmmas, while it waits for its first operands.
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// The first K block runs before the loop and its promotion writes the
// accumulator (fmul: no zeros to materialize); the loop runs over blocks
// 1 .. K blocks - 1, its index from 0 (kb = index + 1).
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// CHECK-COUNT-64: llvm.fmul
// CHECK-NOT: llvm.intr.fma
// CHECK: %[[TRIPS:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: scf.for %{{.*}} = %c0 to {{.*}} iter_args
// CHECK: %[[CHUNK:.*]] = arith.remui %{{.*}}, %c128_i32 : i32
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[CHUNK]], %c0_i32 : i32
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: arith.addi %{{.*}}, %c165952_i32 : i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: arith.addi %{{.*}}, %c165952_i32 : i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.bar.warp.sync
// CHECK: scf.if
// CHECK-NEXT: nvvm.mbarrier.arrive
// CHECK-COUNT-64: llvm.intr.fma
// CHECK: scf.yield

// Epilogue: bf16 pairs into shared memory (two swizzled 64-column slabs),
// proxy fence, math-only barrier; then each math warpgroup's first thread
// stores its wave's 64 rows, one TMA store per slab (rows from 64 x the
// warpgroup, a pinned value, 128 bytes a row into each slab; the second
// slab at column + 64, 128 x 128 bytes past the staging tile at 133120);
// without a tile loop the store is waited for at once.
// CHECK-COUNT-32: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: %[[LANE0:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32 : i32
// CHECK: %[[WARP0:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32 : i32
// CHECK: %[[LEADER:.*]] = arith.andi %[[WARP0]], %[[LANE0]] : i1
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: %[[FIRST:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, $1;"
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %{{.*}}, %[[FIRST]] : i32
// CHECK-NEXT: %[[WAVE_BYTES:.*]] = arith.muli %[[FIRST]], %c128_i32 : i32
// CHECK-NEXT: %[[OFF0:.*]] = arith.addi %[[WAVE_BYTES]], %c133120_i32 : i32
// CHECK: %[[SRC0:.*]] = llvm.getelementptr %{{.*}}[%[[OFF0]]]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[TMA_D]], %[[SRC0]], box[%{{.*}}, %[[ROW]]]
// CHECK: %[[SLAB1:.*]] = arith.addi %{{.*}}, %c64_i32
// CHECK: %[[OFF1:.*]] = arith.addi %[[WAVE_BYTES]], %c149504_i32 : i32
// CHECK: %[[SRC1:.*]] = llvm.getelementptr %{{.*}}[%[[OFF1]]]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[TMA_D]], %[[SRC1]], box[%[[SLAB1]], %[[ROW]]]
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}

// SMALL: nvvm.reqntid = array<i32: 256, 1, 1>
// SMALL: %[[SMALL_A_BYTES:.*]] = arith.muli %{{.*}}, %c1024_i32 : i32
// SMALL: %[[SMALL_B_BYTES:.*]] = arith.muli %{{.*}}, %c1024_i32 : i32
// SMALL: %[[SMALL_AB:.*]] = arith.addi %[[SMALL_A_BYTES]], %[[SMALL_B_BYTES]] : i32
// SMALL: %[[SMALL_ALL:.*]] = arith.addi %[[SMALL_AB]], %c256_i32 : i32
// SMALL: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[SMALL_ALL]]
// SMALL: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>
// SMALL-COUNT-32: llvm.intr.fma
// SMALL: nvvm.barrier id = %c1_i32 number_of_threads = %c128_i32

// A 96-column tile can straddle two 128-column B-scale blocks. Tiles start
// at multiples of 96, 0, 32, 64 or 96 columns into a block: the K loop is
// emitted once per offset (switch on offset / 32), each copy staging and
// reading the blocks its tile spans (one at 0 and 32, two at 64 and 96) and
// giving each fragment its block's scale with no select.
// STRADDLE: nvvm.setmaxregister increase
// STRADDLE: %[[COL:.*]] = arith.muli %{{.*}}, %c96_i32 : i32
// STRADDLE-NEXT: %[[OFF:.*]] = arith.remui %[[COL]], %c128_i32{{.*}} : i32
// STRADDLE-NEXT: %c32_i32{{.*}} = arith.constant 32 : i32
// STRADDLE-NEXT: %[[CASE:.*]] = arith.divui %[[OFF]], %c32_i32{{.*}} : i32
// STRADDLE-NEXT: %[[IDX:.*]] = arith.index_castui %[[CASE]] : i32 to index
// STRADDLE-NEXT: scf.index_switch %[[IDX]]
// STRADDLE: case 0 {
// STRADDLE: scf.for
// STRADDLE: nvvm.barrier
// STRADDLE: llvm.load {{.*}} invariant {{.*}} : !llvm.ptr<1> -> f32
// STRADDLE: nvvm.barrier
// STRADDLE: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// STRADDLE-NOT: llvm.load
// STRADDLE: nvvm.mbarrier.try_wait.parity
// STRADDLE-NOT: arith.select
// STRADDLE: case 1 {
// STRADDLE-NOT: arith.select
// STRADDLE: case 2 {
// STRADDLE: scf.for
// STRADDLE: nvvm.barrier
// STRADDLE: llvm.load {{.*}} invariant {{.*}} : !llvm.ptr<1> -> f32
// STRADDLE: nvvm.barrier
// STRADDLE: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// STRADDLE-NEXT: arith.constant
// STRADDLE: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// STRADDLE-NOT: llvm.load
// STRADDLE: nvvm.mbarrier.try_wait.parity
// STRADDLE: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 96, k = 32>
// STRADDLE-NOT: arith.select
// STRADDLE: default {
// STRADDLE-NOT: arith.select
// STRADDLE: scf.yield

// A 176-column tile starts at any multiple of 16 columns into a block (eight
// offsets, more than the copies the K loop is emitted for): one loop, each
// fragment picking its block's scale by the tile's offset. Each threshold is
// rounded up to an offset that occurs, so fragments whose block changes at the
// same offset share one compare and one select: seven compares in all (one
// per offset past the first), not one per fragment and block.
// SELECT-NOT: scf.index_switch
// SELECT: %[[PAST:.*]] = arith.cmpi uge, %[[OFF:.*]], %c112_i32 : i32
// SELECT-NEXT: %[[SB:.*]] = arith.select %[[PAST]], %{{.*}}, %{{.*}} : f32
// SELECT-NEXT: arith.mulf %{{.*}}, %[[SB]] : f32
// SELECT-COUNT-6: arith.cmpi uge, %[[OFF]], %c{{(96|80|64|48|32|16)}}_i32 : i32
// SELECT-NOT: arith.cmpi uge
// SELECT-NOT: scf.index_switch

// Persistent: CTA p of P loops over tiles p, p + P, ... (grid x). Each math
// warpgroup's first thread, which stored its rows, waits for TMA to have read
// them from the previous tile's staging only when the next epilogue begins
// (the copy overlaps the main loop), the warpgroup's other threads at its own
// barrier (id 2 + warpgroup, 128 threads) after it; the barrier after the
// staging is the warpgroup's too; the last stores are waited for after the
// loop.
// PERSIST: llvm.func @sm90_fp8_gemm_1d2d
// PERSIST: nvvm.read.ptx.sreg.ctaid.x
// PERSIST: nvvm.read.ptx.sreg.nctaid.x
// PERSIST: scf.for
// PERSIST: nvvm.setmaxregister increase 232
// PERSIST: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[COUNT:.*]] = %c0) -> (index) {
// A tile's first staging starts with no barrier (the previous tile's store
// ended with one). Each math warpgroup stages its own copy of the scales
// (512 bytes each from 165952) without its store warp (its threads 0-31,
// thread = 32 x warp + lane), which may still be issuing the previous
// tile's TMA stores, and meets only its own barrier after it: the
// warpgroups of a persistent CTA never wait for each other. Its loads come
// after the tile's first wgmmas are issued (they run under them), its
// stores after the wgmmas' wait.
// PERSIST-NOT: nvvm.barrier
// PERSIST: nvvm.mbarrier.try_wait.parity
// PERSIST-NOT: nvvm.barrier
// PERSIST: %[[COPY:.*]] = arith.muli %{{.*}}, %c512_i32 : i32
// PERSIST-NEXT: arith.addi %{{.*}}, %[[COPY]] : i32
// PERSIST-NEXT: nvvm.wgmma.fence.aligned
// PERSIST-NOT: nvvm.barrier
// PERSIST: nvvm.wgmma.mma_async
// PERSIST-NOT: nvvm.barrier
// PERSIST: %[[WARP_BASE:.*]] = arith.muli %{{.*}}, %c32_i32 : i32
// PERSIST-NEXT: %[[THREAD:.*]] = arith.addi %[[WARP_BASE]], %{{.*}} : i32
// PERSIST-NEXT: %[[STAGER:.*]] = arith.subi %[[THREAD]], %c32_i32 : i32
// PERSIST-NEXT: %[[TAKES:.*]] = arith.cmpi uge, %[[THREAD]], %c32_i32 : i32
// PERSIST-NOT: nvvm.barrier
// PERSIST: arith.andi %{{.*}}, %[[TAKES]] : i1
// PERSIST-NOT: nvvm.barrier
// PERSIST: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// PERSIST-NOT: nvvm.barrier
// PERSIST: nvvm.wgmma.wait.group.sync.aligned 0
// PERSIST-NOT: nvvm.barrier
// PERSIST: arith.addi %[[COPY]], %c165952_i32 : i32
// PERSIST: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// PERSIST-NOT: nvvm.barrier
// PERSIST: %[[STAGED:.*]] = arith.addi %{{.*}}, %c2_i32 : i32
// PERSIST-NEXT: nvvm.barrier id = %[[STAGED]] number_of_threads = %c128_i32
// PERSIST: nvvm.cp.async.bulk.wait_group 0 {read}
// PERSIST-NEXT: }
// PERSIST-NEXT: nvvm.barrier id = %[[STAGED]] number_of_threads = %c128_i32
// PERSIST: llvm.fptrunc
// PERSIST: nvvm.fence.proxy
// PERSIST-NEXT: nvvm.barrier id = %[[STAGED]] number_of_threads = %c128_i32
// PERSIST-NOT: nvvm.barrier
// PERSIST: nvvm.cp.async.bulk.commit.group
// PERSIST-NEXT: }
// The CTA's tile count, carried to its next tile (no division per tile).
// PERSIST-NEXT: %[[NEXT:.*]] = arith.addi %[[COUNT]], %c1 : index
// PERSIST-NEXT: scf.yield %[[NEXT]] : index
// PERSIST-NEXT: }
// PERSIST-NEXT: %[[LANE0:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32
// PERSIST-NEXT: %[[WARP0:.*]] = arith.cmpi eq, %{{.*}}, %c0_i32
// PERSIST-NEXT: %[[LEADER:.*]] = arith.andi %[[WARP0]], %[[LANE0]] : i1
// PERSIST-NEXT: scf.if %[[LEADER]] {
// PERSIST-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}

// block_n 64: the accumulators of two K blocks fit, so the math loop runs the
// next block's wgmmas during this block's promotion: block 0 is issued before
// the loop, the loop steps by 2 and waits for all but one group each time,
// and a tail finishes with wait 0. (block_n 128 above keeps wait 0 per block.)
// OVERLAP: nvvm.setmaxregister increase 232
// OVERLAP: nvvm.wgmma.fence.aligned
// OVERLAP-COUNT-4: nvvm.wgmma.mma_async
// OVERLAP: nvvm.wgmma.commit.group.sync.aligned
// OVERLAP: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2
// OVERLAP-COUNT-4: nvvm.wgmma.mma_async
// OVERLAP: nvvm.wgmma.commit.group.sync.aligned
// OVERLAP: nvvm.wgmma.wait.group.sync.aligned 1
// OVERLAP: nvvm.mbarrier.arrive
// OVERLAP-COUNT-32: llvm.intr.fma
// OVERLAP: nvvm.wgmma.wait.group.sync.aligned 1
// OVERLAP: scf.yield
// OVERLAP: scf.if
// OVERLAP: nvvm.wgmma.wait.group.sync.aligned 1
// OVERLAP: nvvm.wgmma.wait.group.sync.aligned 0
// OVERLAP: } else {
// OVERLAP: nvvm.wgmma.wait.group.sync.aligned 0
// NOOVERLAP-NOT: nvvm.wgmma.wait.group.sync.aligned 1

// Clusters of 2 along N: the pair shares its A tile, each CTA multicasting
// half of it; the empty barriers count one arrival per math warp of each CTA,
// given by lane r of every warp to CTA r after a warp barrier; a
// cluster-wide sync after the barrier set-up. After its last put the
// producer waits once more for each of the 4 slots to be released (then no
// peer's arrival or copy into this CTA is pending), instead of a cluster-wide
// sync before exit.
// CLUSTER: llvm.func @sm90_fp8_gemm_1d2d
// A cluster of 2 sharing A: each CTA loads half of A's rows (box 128 x 64)
// and their scales (box 64 x 1).
// CLUSTER-SAME: fgemm.params = [#fgemm.tensor_map_param<arg = 0, box = [128, 64], swizzle = 128>, #fgemm.tensor_map_param<arg = 1, box = [128, 128], swizzle = 128>, #fgemm.tensor_map_param<arg = 2, box = [64, 1], swizzle = 0>
// CLUSTER-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CLUSTER: nvvm.mbarrier.init %{{.*}}, %c16_i32
// CLUSTER: nvvm.fence.mbarrier.init
// CLUSTER: nvvm.cluster.arrive.relaxed {aligned}
// CLUSTER-NEXT: nvvm.cluster.wait {aligned}
// CLUSTER: nvvm.read.ptx.sreg.cluster.ctarank
// CLUSTER: %[[OFFSET:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CLUSTER-NEXT: %[[DST:.*]] = llvm.inttoptr %[[OFFSET]] : i64 to !llvm.ptr<7>
// CLUSTER: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %arg0, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %c3_i16
// CTA r's scales: rows [64 r, 64 r + 64) of the tile, 256 r bytes into the
// slot, multicast.
// CLUSTER: %[[SCALES_BYTES:.*]] = arith.muli %[[SCALES_RANK:.*]], %c256_i32
// CLUSTER-NEXT: llvm.getelementptr %{{.*}}[%[[SCALES_BYTES]]]
// CLUSTER: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg2, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %c3_i16
// CLUSTER: scf.for
// CLUSTER: }
// CLUSTER-COUNT-4: nvvm.mbarrier.try_wait.parity
// CLUSTER-NEXT: }
// CLUSTER: nvvm.setmaxregister increase 232
// CLUSTER: nvvm.bar.warp.sync
// CLUSTER: nvvm.mapa
// CLUSTER: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>
// CLUSTER-NOT: nvvm.cluster.arrive
// CLUSTER: llvm.return

// Persistent clusters: one cluster sync after the barrier set-up; the
// producer's tile loop counts its puts and drains the ring once after it
// (one wait per stage), and nothing waits for the peer before exit.
// PCLUSTER: llvm.func @sm90_fp8_gemm_1d2d
// PCLUSTER-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// PCLUSTER: nvvm.cluster.arrive.relaxed {aligned}
// PCLUSTER-NEXT: nvvm.cluster.wait {aligned}
// PCLUSTER-NOT: nvvm.cluster.arrive
// PCLUSTER: nvvm.setmaxregister decrease 40
// PCLUSTER: %[[PUTS:.*]]:2 = scf.for {{.*}} iter_args(%[[SO_FAR:.*]] = %c0, %{{.*}} = %c0) -> (index, index) {
// PCLUSTER: multicast_mask = %c3_i16
// PCLUSTER: scf.yield %{{.*}}, %{{.*}} : index, index
// PCLUSTER-NEXT: }
// PCLUSTER-NEXT: arith.index_cast %[[PUTS]]#0
// PCLUSTER-COUNT-4: nvvm.mbarrier.try_wait.parity
// PCLUSTER-NEXT: }
// PCLUSTER: nvvm.setmaxregister increase 232
// PCLUSTER: nvvm.mapa
// PCLUSTER-NOT: nvvm.cluster.arrive
// PCLUSTER: llvm.return

// With K compiled in (56 blocks) the producer's loop runs four blocks at a
// time; each copy sees a constant ring stage (four stages), so each block
// pins the bases of its shared-memory addresses and descriptors (an
// inline-asm mov; hoisted, every stage's constants stayed live). The math
// threads' first K block is peeled (it promotes with FMUL), the next three
// follow it unrolled, and the loop runs over the last 52 four at a time,
// with no remainder; it carries the accumulator and the last partial sum.
// FIXEDK: nvvm.setmaxregister decrease 40
// FIXEDK: scf.for %{{.*}} = %c0 to %c56 step %c4 {
// FIXEDK-NEXT: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// FIXEDK: nvvm.setmaxregister increase 232
// FIXEDK: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// FIXEDK: nvvm.wgmma.wait.group.sync.aligned 0
// FIXEDK: llvm.fmul
// FIXEDK-COUNT-3: nvvm.wgmma.wait.group.sync.aligned 0
// FIXEDK-NOT: nvvm.wgmma.wait.group.sync.aligned
// FIXEDK: scf.for %{{.*}} = %c0 to %c52 step %c4 iter_args({{.*}}) -> (!llvm.struct<({{(f32, ){63,63}f32}})>, !llvm.struct<({{(f32, ){63,63}f32}})>)
// FIXEDK: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// FIXEDK-COUNT-4: nvvm.wgmma.wait.group.sync.aligned 0
// FIXEDK: scf.yield
// FIXEDK-NOT: nvvm.wgmma.wait.group.sync.aligned
// FIXEDK: llvm.return
