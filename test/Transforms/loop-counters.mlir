// RUN: fgemm-opt %s --fgemm-loop-counters --canonicalize --split-input-file | FileCheck %s
// (fgemm-opt has no func dialect: llvm.func and i32 indices; the pass is
// the same for index.)

// The ring's stage and phase of K block kb (kb mod 3, kb div 3) become two
// counters carried by the loop; the canonicalizer folds their initial values.
// CHECK-LABEL: llvm.func @stage_and_phase
// CHECK: scf.for %{{.*}} = %c0_i32 to %{{.*}} step %c1_i32 iter_args(%{{.*}} = %{{.*}}, %[[S:.*]] = %c0_i32, %[[Q:.*]] = %c0_i32)
// CHECK-NOT: arith.remui
// CHECK-NOT: arith.divui
// CHECK: %[[P:.*]] = arith.andi %[[Q]], %c1_i32 : i32
// CHECK: llvm.call @use(%[[S]], %[[P]])
// CHECK: %[[BUMP:.*]] = arith.addi %[[S]], %c1_i32 : i32
// CHECK: %[[WRAP:.*]] = arith.cmpi uge, %[[BUMP]], %c3_i32 : i32
// CHECK: %[[SUB:.*]] = arith.addi %[[S]], %c-2_i32 : i32
// CHECK: %[[NEXT_S:.*]] = arith.select %[[WRAP]], %[[SUB]], %[[BUMP]] : i32
// CHECK: %[[CARRY:.*]] = arith.extui %[[WRAP]] : i1 to i32
// CHECK: %[[NEXT_Q:.*]] = arith.addi %[[Q]], %[[CARRY]] : i32
// CHECK: scf.yield %{{.*}}, %[[NEXT_S]], %[[NEXT_Q]]
llvm.func @use(i32, i32)
llvm.func @stage_and_phase(%n: i32, %init: f32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %r = scf.for %kb = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) : i32 {
    %s = arith.remui %kb, %c3 : i32
    %q = arith.divui %kb, %c3 : i32
    %p = arith.andi %q, %c1 : i32
    llvm.call @use(%s, %p) : (i32, i32) -> ()
    %next = arith.addf %acc, %acc : f32
    scf.yield %next : f32
  }
  llvm.return %r : f32
}

// -----

// A persistent loop's ring position (K blocks of earlier tiles + kb): the
// counters start from the invariant offset; the same (value, divisor) pair
// shares one counter, also inside a nested scf.if.
// CHECK-LABEL: llvm.func @offset_position
// CHECK: %[[R0:.*]] = arith.remui %[[BEFORE:.*]], %c13_i32 : i32
// CHECK: %[[Q0:.*]] = arith.divui %[[BEFORE]], %c13_i32 : i32
// CHECK: scf.for %{{.*}} = %c0_i32 to %{{.*}} step %c1_i32 iter_args(%[[S:.*]] = %[[R0]], %[[Q:.*]] = %[[Q0]])
// CHECK-NOT: arith.remui
// CHECK: scf.if
// CHECK: llvm.call @use(%[[S]], %[[Q]])
// CHECK: llvm.call @use(%[[S]], %[[S]])
llvm.func @use(i32, i32)
llvm.func @offset_position(%n: i32, %before: i32, %c: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c13 = arith.constant 13 : i32
  scf.for %kb = %c0 to %n step %c1 : i32 {
    %pos = arith.addi %before, %kb : i32
    scf.if %c {
      %s = arith.remui %pos, %c13 : i32
      %q = arith.divui %pos, %c13 : i32
      llvm.call @use(%s, %q) : (i32, i32) -> ()
    }
    %s2 = arith.remui %pos, %c13 : i32
    llvm.call @use(%s2, %s2) : (i32, i32) -> ()
  }
  llvm.return
}

// -----

// A step of 2 (the overlapped math loop) by 5: the remainder advances by 2,
// the quotient by the wrap alone; a step larger than the divisor (7 by 5)
// also moves the quotient by step div divisor.
// CHECK-LABEL: llvm.func @steps
// CHECK: scf.for {{.*}} step %c2_i32 iter_args(%[[S:.*]] = %c0_i32, %[[Q:.*]] = %c0_i32)
// CHECK: arith.addi %[[S]], %c2_i32 : i32
// CHECK: scf.for {{.*}} step %c7_i32 iter_args(%[[S7:.*]] = %c0_i32, %[[Q7:.*]] = %c0_i32)
// CHECK: arith.addi %[[S7]], %c2_i32 : i32
// CHECK: %[[CARRY:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK: %[[ADD:.*]] = arith.addi %[[CARRY]], %c1_i32 : i32
// CHECK: arith.addi %[[Q7]], %[[ADD]] : i32
llvm.func @use(i32, i32)
llvm.func @steps(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c5 = arith.constant 5 : i32
  %c7 = arith.constant 7 : i32
  scf.for %j = %c0 to %n step %c2 : i32 {
    %s = arith.remui %j, %c5 : i32
    %q = arith.divui %j, %c5 : i32
    llvm.call @use(%s, %q) : (i32, i32) -> ()
  }
  scf.for %j = %c0 to %n step %c7 : i32 {
    %s = arith.remui %j, %c5 : i32
    %q = arith.divui %j, %c5 : i32
    llvm.call @use(%s, %q) : (i32, i32) -> ()
  }
  llvm.return
}

// -----

// Left alone: a power-of-two divisor (a mask and a shift already), a divisor
// that is not a constant, a dividend that is not the index plus an
// invariant, and an inner loop's division of the outer loop's index.
// CHECK-LABEL: llvm.func @untouched
// CHECK: scf.for %[[I:.*]] = %c0_i32 to %{{.*}} step %c1_i32  : i32 {
// CHECK: arith.remui %[[I]], %c4_i32
// CHECK: arith.remui %[[I]], %{{.*}}
// CHECK: arith.remui %{{.*}}, %c3_i32
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.remui %[[I]], %c3_i32
llvm.func @use(i32, i32)
llvm.func @untouched(%n: i32, %d: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %a = arith.remui %i, %c4 : i32
    %b = arith.remui %i, %d : i32
    %twice = arith.addi %i, %i : i32
    %c = arith.remui %twice, %c3 : i32
    llvm.call @use(%a, %b) : (i32, i32) -> ()
    scf.for %j = %c0 to %n step %c1 : i32 {
      %e = arith.remui %i, %c3 : i32
      %f = arith.remui %j, %c3 : i32
      llvm.call @use(%e, %f) : (i32, i32) -> ()
    }
    llvm.call @use(%c, %c) : (i32, i32) -> ()
  }
  llvm.return
}

// -----

// After unrolling by 2, a persistent tile's second copy of the position is
// first + (kb + 1), and first (iteration x K blocks) is computed inside the
// loop: both copies get counters, and first is computed again before it.
// CHECK-LABEL: llvm.func @unrolled_position
// CHECK: %[[FIRST:.*]] = arith.muli %arg1, %arg2 : i32
// CHECK: arith.remui %[[FIRST]], %c3_i32 : i32
// CHECK: %[[AGAIN:.*]] = arith.muli %arg1, %arg2 : i32
// CHECK: %[[FIRST1:.*]] = arith.addi %[[AGAIN]], %c1_i32 : i32
// CHECK: arith.remui %[[FIRST1]], %c3_i32 : i32
// CHECK: scf.for %{{.*}} = %c0_i32 to %{{.*}} step %c2_i32 iter_args
// CHECK-NOT: arith.remui
// CHECK-NOT: arith.divui
// CHECK: llvm.call @use
// CHECK: llvm.call @use
// CHECK: scf.yield
llvm.func @use(i32, i32)
llvm.func @unrolled_position(%n: i32, %it: i32, %per: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  scf.for %kb = %c0 to %n step %c2 : i32 {
    %first = arith.muli %it, %per : i32
    %pos0 = arith.addi %first, %kb : i32
    %s0 = arith.remui %pos0, %c3 : i32
    %q0 = arith.divui %pos0, %c3 : i32
    llvm.call @use(%s0, %q0) : (i32, i32) -> ()
    %kb1 = arith.addi %kb, %c1 : i32
    %pos1 = arith.addi %first, %kb1 : i32
    %s1 = arith.remui %pos1, %c3 : i32
    %q1 = arith.divui %pos1, %c3 : i32
    llvm.call @use(%s1, %q1) : (i32, i32) -> ()
  }
  llvm.return
}

// -----

// A term that changes from one iteration to the next is not an offset.
// CHECK-LABEL: llvm.func @variant_term
// CHECK: scf.for
// CHECK: arith.remui
llvm.func @use(i32, i32)
llvm.func @variant_term(%n: i32, %p: !llvm.ptr) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  scf.for %kb = %c0 to %n step %c1 : i32 {
    %v = llvm.load %p : !llvm.ptr -> i32
    %pos = arith.addi %v, %kb : i32
    %s = arith.remui %pos, %c3 : i32
    llvm.call @use(%s, %s) : (i32, i32) -> ()
  }
  llvm.return
}

// -----

// In a loop of constant bounds (K compiled in) a power-of-two divisor gets
// counters too: unrolled and folded, its mask made ptxas fault (the pass's
// comment says which kernels).
// CHECK-LABEL: llvm.func @constant_trips
// CHECK: scf.for %{{.*}} = %c0_i32 to %c56_i32 step %c1_i32 iter_args(%[[R:.*]] = %c0_i32, %[[Q:.*]] = %c0_i32) -> (i32, i32)  : i32 {
// CHECK-NOT: arith.remui
// CHECK: llvm.call @use(%[[R]], %[[Q]])
llvm.func @use(i32, i32)
llvm.func @constant_trips() {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c56 = arith.constant 56 : i32
  %c8 = arith.constant 8 : i32
  scf.for %i = %c0 to %c56 step %c1 : i32 {
    %stage = arith.remui %i, %c8 : i32
    %round = arith.divui %i, %c8 : i32
    llvm.call @use(%stage, %round) : (i32, i32) -> ()
  }
  llvm.return
}

// -----

// A loop marked fgemm.aligned_trips (convert-fgemm-to-nvvm: a K loop unrolled
// by 4 whose trips start at a multiple of 4): its copies' positions iv + 4 ..
// iv + 7 share one counter of iv + 4 by 8, whose remainder is a multiple of
// 4, so each copy's stage is it plus the copy's offset and its phase is the
// counter's. The mark is removed.
// CHECK-LABEL: llvm.func @aligned_copies
// CHECK: scf.for %{{.*}} = %c0_i32 to %c52_i32 step %c4_i32 iter_args(%[[R:.*]] = %c4_i32, %[[Q:.*]] = %c0_i32) -> (i32, i32)  : i32 {
// CHECK-NOT: arith.remui
// CHECK-NOT: arith.divui
// CHECK: llvm.call @use(%[[R]], %[[Q]])
// CHECK: %[[R1:.*]] = arith.addi %[[R]], %c1_i32 : i32
// CHECK: llvm.call @use(%[[R1]], %[[Q]])
// CHECK: %[[R2:.*]] = arith.addi %[[R]], %c2_i32 : i32
// CHECK: llvm.call @use(%[[R2]], %[[Q]])
// CHECK: %[[R3:.*]] = arith.addi %[[R]], %c3_i32 : i32
// CHECK: llvm.call @use(%[[R3]], %[[Q]])
// CHECK: arith.addi %[[R]], %c4_i32 : i32
// CHECK: scf.yield
// CHECK-NOT: fgemm.aligned_trips
llvm.func @use(i32, i32)
llvm.func @aligned_copies() {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %c7 = arith.constant 7 : i32
  %c8 = arith.constant 8 : i32
  %c52 = arith.constant 52 : i32
  scf.for %i = %c0 to %c52 step %c4 : i32 {
    %x0 = arith.addi %i, %c4 : i32
    %s0 = arith.remui %x0, %c8 : i32
    %q0 = arith.divui %x0, %c8 : i32
    llvm.call @use(%s0, %q0) : (i32, i32) -> ()
    %x1 = arith.addi %i, %c5 : i32
    %s1 = arith.remui %x1, %c8 : i32
    %q1 = arith.divui %x1, %c8 : i32
    llvm.call @use(%s1, %q1) : (i32, i32) -> ()
    %x2 = arith.addi %i, %c6 : i32
    %s2 = arith.remui %x2, %c8 : i32
    %q2 = arith.divui %x2, %c8 : i32
    llvm.call @use(%s2, %q2) : (i32, i32) -> ()
    %x3 = arith.addi %i, %c7 : i32
    %s3 = arith.remui %x3, %c8 : i32
    %q3 = arith.divui %x3, %c8 : i32
    llvm.call @use(%s3, %q3) : (i32, i32) -> ()
  } {fgemm.aligned_trips}
  llvm.return
}

// -----

// Where the copies' positions straddle a multiple of the step (iv + 1 ..
// iv + 4), those of one aligned group share a counter: iv + 1 .. iv + 3
// that of iv, iv + 4 its own. A persistent tile's offset (iteration x 56 K
// blocks) keeps the positions aligned; one of unknown alignment does not
// (a counter per copy, as without the mark).
// CHECK-LABEL: llvm.func @straddling_and_offsets
// CHECK: scf.for {{.*}} step %c4_i32 iter_args(%[[A:.*]] = %c0_i32, %[[AQ:.*]] = %c0_i32, %[[B:.*]] = %c4_i32, %[[BQ:.*]] = %c0_i32) -> (i32, i32, i32, i32)
// CHECK: %[[A1:.*]] = arith.addi %[[A]], %c1_i32 : i32
// CHECK: llvm.call @use(%[[A1]], %[[AQ]])
// CHECK: %[[A3:.*]] = arith.addi %[[A]], %c3_i32 : i32
// CHECK: llvm.call @use(%[[A3]], %[[AQ]])
// CHECK: llvm.call @use(%[[B]], %[[BQ]])
// CHECK: %[[FIRST:.*]] = arith.muli %arg0, %c56_i32 : i32
// CHECK: %[[R0:.*]] = arith.remui %[[FIRST]], %c8_i32 : i32
// CHECK: scf.for {{.*}} step %c4_i32 iter_args(%[[P:.*]] = %[[R0]], %{{.*}} = %{{.*}}) -> (i32, i32)
// CHECK: %[[P1:.*]] = arith.addi %[[P]], %c1_i32 : i32
// CHECK: llvm.call @use(%[[P]], %[[P1]])
// CHECK: scf.for {{.*}} step %c4_i32 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (i32, i32, i32, i32)
llvm.func @use(i32, i32)
llvm.func @straddling_and_offsets(%it: i32, %unknown: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c52 = arith.constant 52 : i32
  %c56 = arith.constant 56 : i32
  scf.for %i = %c0 to %c52 step %c4 : i32 {
    %x1 = arith.addi %i, %c1 : i32
    %s1 = arith.remui %x1, %c8 : i32
    %q1 = arith.divui %x1, %c8 : i32
    llvm.call @use(%s1, %q1) : (i32, i32) -> ()
    %x3 = arith.addi %i, %c3 : i32
    %s3 = arith.remui %x3, %c8 : i32
    %q3 = arith.divui %x3, %c8 : i32
    llvm.call @use(%s3, %q3) : (i32, i32) -> ()
    %x4 = arith.addi %i, %c4 : i32
    %s4 = arith.remui %x4, %c8 : i32
    %q4 = arith.divui %x4, %c8 : i32
    llvm.call @use(%s4, %q4) : (i32, i32) -> ()
  } {fgemm.aligned_trips}
  %first = arith.muli %it, %c56 : i32
  scf.for %i = %c0 to %c52 step %c4 : i32 {
    %p0 = arith.addi %first, %i : i32
    %p1 = arith.addi %p0, %c1 : i32
    %s0 = arith.remui %p0, %c8 : i32
    %s1 = arith.remui %p1, %c8 : i32
    llvm.call @use(%s0, %s1) : (i32, i32) -> ()
  } {fgemm.aligned_trips}
  scf.for %i = %c0 to %c52 step %c4 : i32 {
    %p0 = arith.addi %unknown, %i : i32
    %p1 = arith.addi %p0, %c1 : i32
    %s0 = arith.remui %p0, %c8 : i32
    %s1 = arith.remui %p1, %c8 : i32
    llvm.call @use(%s0, %s1) : (i32, i32) -> ()
  } {fgemm.aligned_trips}
  llvm.return
}
