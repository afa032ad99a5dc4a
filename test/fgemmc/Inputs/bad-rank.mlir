// A 1-D FP8 tensor: 1-D tensors are i32 index arrays.
fgemm.kernel @k(%a: !fgemm.tensor<[m], f8E4M3FN>) attributes {dims = ["m"]} {
  fgemm.return
}
