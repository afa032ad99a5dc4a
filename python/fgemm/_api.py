# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""DeepGEMM's entry points on torch tensors, over libfgemm's C API. Every
argument is checked before anything is launched; a violation raises
ValueError (or TypeError) naming the argument and the rule."""

import threading

from . import _lib
from ._layout import ceil_div, get_mn_major_tma_aligned_tensor, is_mn_major_tma_aligned

_num_sms = None
_num_sms_lock = threading.Lock()


def set_num_sms(num_sms):
    """Caps the SMs fgemm's kernels plan for (persistent grids, configuration
    choice), as DeepGEMM's set_num_sms; applies to every device."""
    import torch

    if not isinstance(num_sms, int) or isinstance(num_sms, bool):
        raise TypeError(f"num_sms must be an int, got {type(num_sms).__name__}")
    available = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    if not 0 < num_sms <= available:
        raise ValueError(f"num_sms must be in [1, {available}] (the device's SMs), got {num_sms}")
    global _num_sms
    with _num_sms_lock:
        _num_sms = num_sms


def get_num_sms():
    """The SM cap set by set_num_sms, or the current device's SM count."""
    import torch

    if _num_sms is not None:
        return _num_sms
    return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


def _require(condition, message):
    if not condition:
        raise ValueError(message)


def _check_cuda(name, t, device):
    import torch

    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    _require(t.is_cuda, f"{name} is on {t.device}; fgemm needs CUDA tensors")
    _require(t.device == device,
             f"{name} is on {t.device} but A is on {device}: all tensors must be on one device")
    _require(t.data_ptr() % 16 == 0 or t.numel() == 0,
             f"{name}'s data pointer is not 16-byte aligned (TMA needs 16-byte aligned global memory)")


def _check_dtype(name, t, dtype):
    _require(t.dtype == dtype, f"{name} must be {dtype}, got {t.dtype}")


def _unpack(name, pair):
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise TypeError(f"{name} must be a (tensor, scales) pair, got {type(pair).__name__}")
    return pair


def _dense_shape(A, B, d):
    """(M, N, K) of a dense call, checking A [M, K], B [N, K] and D [M, N]."""
    _require(A.dim() == 2, f"A must be 2-D [M, K], got shape {tuple(A.shape)}")
    _require(B.dim() == 2, f"B must be 2-D [N, K], got shape {tuple(B.shape)}")
    m, k = A.shape
    n, kb = B.shape
    _require(k == kb, f"A is [M, K] = {tuple(A.shape)} and B is [N, K] = {tuple(B.shape)}: K differs")
    _require(tuple(d.shape) == (m, n), f"D must be [M, N] = ({m}, {n}), got {tuple(d.shape)}")
    return m, n, k


def _operands(a, b, d, *extra):
    """(A, SFA, B, SFB, A's device) of a call's `a` = (A, SFA) and `b` =
    (B, SFB), with A, the scales, D and the optional `extra` (name, tensor)
    pairs (None: not given) checked to be CUDA tensors on A's device."""
    import torch

    A, sfa = _unpack("a", a)
    B, sfb = _unpack("b", b)
    if not isinstance(A, torch.Tensor):
        raise TypeError(f"A must be a torch.Tensor, got {type(A).__name__}")
    device = A.device
    for name, t in (("A", A), ("SFA", sfa), ("B", B), ("SFB", sfb), ("D", d)):
        _check_cuda(name, t, device)
    for name, t in extra:
        if t is not None:
            _check_cuda(name, t, device)
    return A, sfa, B, sfb, device


def _check_dense_layout(A, B, d, n, k):
    """TMA's row rules and the K-major / N-major layouts of a dense call."""
    _require(n % 8 == 0, f"N = {n} is not a multiple of 8 (D's rows must be a multiple of 16 bytes)")
    _require(k % 16 == 0 and k > 0, f"K = {k} is not a positive multiple of 16 (A's and B's e4m3 rows "
             "must be a multiple of 16 bytes)")
    _require(A.is_contiguous(), f"A must be contiguous and K-major (stride (K, 1)), got stride {A.stride()}")
    _require(B.is_contiguous(), f"B must be contiguous and K-major (stride (K, 1)), got stride {B.stride()}")
    _require(d.is_contiguous(), f"D must be contiguous and N-major (stride (N, 1)), got stride {d.stride()}")


def fp8_gemm_nt(a, b, d, c=None, recipe=None, compiled_dims="nk", disable_ue8m0_cast=False,
                bias=None):
    """D = A @ B^T with DeepGEMM's 1D2D recipe: a = (A [M, K] e4m3, SFA [M,
    ceil(K/128)] FP32), b = (B [N, K] e4m3, SFB [ceil(N/128), ceil(K/128)] FP32),
    d [M, N] bf16, written in place on the current CUDA stream. SFA may be
    row-major or DeepGEMM's TMA-aligned MN-major layout (the latter avoids a
    re-layout copy). With an FP32 d (or recipe (1, 1, 128)), the 1D1D recipe:
    D = C + A @ B^T with SFB [N, ceil(K/128)] (one scale per row of B, either
    layout), c [M, N] FP32 or None (then D = A @ B^T), c may be d itself.
    `compiled_dims` and `disable_ue8m0_cast` are accepted for compatibility
    (fgemm picks its own specialization; FP32 scales are used as given).

    Beyond DeepGEMM (bf16 d, kernels of fgemm's other dense variants): `bias`
    (bf16 [N]) gives D = A @ B^T + bias, rounded once; SFA and SFB of shape
    () (one scale each) select per-tensor scaling; A or B in
    torch.float8_e5m2 (not both) is taken as such."""
    # A warm call: tensors that passed the checks below before (an FP32 d
    # never matches, its calls are cached under their own key).
    if bias is None and c is None and recipe is None and type(a) is tuple and type(b) is tuple \
            and len(a) == 2 and len(b) == 2:
        try:
            signature = _signature(a[0], a[1], b[0], b[1], d)
            seen = _validated.get(signature)
        except (AttributeError, TypeError):
            seen = None
        if seen is not None:
            ctx, index, m, n, k, relayout = seen
            if relayout:
                _launch(ctx, index, a[0], a[1], b[0], b[1], d, m, n, k, relayout)
            else:  # the pointers are the signature's first five entries
                _run(ctx, index, _lib.library().fgemm_gemm_fp8_nt, *signature[:5], m, n, k)
            return d
    import torch

    if (recipe is not None and tuple(recipe) == (1, 1, 128)) or \
            (isinstance(d, torch.Tensor) and d.dtype == torch.float32):
        if bias is not None:
            raise ValueError("bias is given with the FP32 1D1D recipe; fgemm's bias kernel "
                             "(dense_bias) has a bf16 D and 1D2D scales")
        return _fp8_gemm_nt_fp32(a, b, d, c, recipe)

    # Calls for fgemm's other dense variants never enter the cache above
    # (their dtypes or scale shapes differ).
    if bias is not None or _is_variant_call(a, b):
        return _fp8_gemm_nt_variant(a, b, d, bias, c, recipe)
    A, sfa, B, sfb, device = _operands(a, b, d)
    if c is not None:
        raise ValueError("c is given but D is bf16: D = C + A @ B^T is the FP32 1D1D recipe "
                         "(an FP32 d and c, SFB [N, ceil(K/128)])")
    if recipe is not None and tuple(recipe) != (1, 128, 128):
        raise ValueError(f"recipe {tuple(recipe)} is not supported; allowed: None, (1, 128, 128) "
                         "(bf16 D) or (1, 1, 128) (FP32 D)")
    _check_dtype("A", A, torch.float8_e4m3fn)
    _check_dtype("B", B, torch.float8_e4m3fn)
    _check_dtype("SFA", sfa, torch.float32)
    _check_dtype("SFB", sfb, torch.float32)
    _check_dtype("D", d, torch.bfloat16)
    m, n, k = _dense_shape(A, B, d)
    _require(tuple(sfa.shape) == (m, ceil_div(k, 128)),
             f"SFA must be [M, ceil(K/128)] = ({m}, {ceil_div(k, 128)}), got {tuple(sfa.shape)}")
    _require(tuple(sfb.shape) == (ceil_div(n, 128), ceil_div(k, 128)),
             f"SFB must be [ceil(N/128), ceil(K/128)] = ({ceil_div(n, 128)}, {ceil_div(k, 128)}), "
             f"got {tuple(sfb.shape)}")
    _check_dense_layout(A, B, d, n, k)
    _require(sfb.is_contiguous(), f"SFB must be contiguous (row-major), got stride {sfb.stride()}")
    if m == 0 or n == 0:
        return d
    index = device.index if device.index is not None else torch.cuda.current_device()
    relayout = not is_mn_major_tma_aligned(sfa)
    ctx = _lib.context(index)
    if len(_validated) >= _VALIDATED_MAX:
        _validated.clear()
    _validated[_signature(A, sfa, B, sfb, d)] = (ctx, index, m, n, k, relayout)
    _launch(ctx, index, A, sfa, B, sfb, d, m, n, k, relayout)
    return d


# Calls whose tensors match ones already checked (same data pointers, shapes,
# strides, dtypes and devices) skip the checks, which would pass again: they
# are most of a warm call's host time (docs/PERF.md).
_validated = {}
_VALIDATED_MAX = 1024


def _signature(A, sfa, B, sfb, d):
    """What a warm call must match: pointers, shapes, strides and dtypes. No
    devices: CUDA's unified addressing gives every allocation, host or any
    device's, its own addresses, so equal pointers are on the same device
    (the five `.device` lookups cost 0.4-0.8 us of a warm call on the H100's
    host, measured apart)."""
    return (A.data_ptr(), sfa.data_ptr(), B.data_ptr(), sfb.data_ptr(), d.data_ptr(),
            A.shape, sfa.shape, B.shape, sfb.shape, d.shape,
            A.stride(), sfa.stride(), B.stride(), sfb.stride(), d.stride(),
            A.dtype, sfa.dtype, B.dtype, sfb.dtype, d.dtype)


_raw_stream = None  # torch._C._cuda_getCurrentRawStream, looked up once


def _current_stream(index):
    global _raw_stream
    raw = _raw_stream
    if raw is None:
        import torch

        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None) or \
            (lambda i: torch.cuda.current_stream(i).cuda_stream)
        _raw_stream = raw
    return raw(index)


_relayout_unavailable = False  # set when the library has no re-layout kernel


def _relaid(ctx, index, x):
    """The FP32 scales x ([M, K'] or [G, M, K'], any strides, on device
    `index`) in the MN-major TMA-aligned layout the kernels read, by one
    launch of fgemm's re-layout kernel on the current stream (the padding rows
    zeroed); by a torch copy where the library was built without the kernel
    or the scales are beyond its grid (over 65535 scale columns or groups).
    Other failures raise."""
    global _relayout_unavailable
    import torch

    shape, stride = x.shape, x.stride()
    if len(shape) == 2:
        g, (m, k), sg, (sr, sc) = 1, shape, 0, stride
    else:
        (g, m, k), (sg, sr, sc) = shape, stride
    am = (m + 3) // 4 * 4
    flat = torch.empty(g * k * am, dtype=torch.float32, device=x.device)
    out = flat.as_strided((m, k), (1, am)) if len(shape) == 2 else \
        flat.as_strided((g, m, k), (k * am, 1, am))
    if not _relayout_unavailable:
        lib = _lib.library()
        stream = _current_stream(index)
        with ctx.lock:  # a context is used by one thread at a time
            status = lib.fgemm_scales_to_mn_major(
                ctx.handle, x.data_ptr(), g, m, k, sg, sr, sc, flat.data_ptr(), stream)
            message = "" if status == _lib.SUCCESS else \
                lib.fgemm_last_error().decode("utf-8", "replace")
        if status == _lib.SUCCESS:
            return out
        if status == _lib.ERROR_RUNTIME and "built without nvcc" in message:
            _relayout_unavailable = True
        elif not (status == _lib.ERROR_INVALID_ARGUMENT and "at most 65535" in message):
            # Anything else (a failed load or launch) is an error to report.
            raise (ValueError if status == _lib.ERROR_INVALID_ARGUMENT else _lib.FgemmError)(message)
    out.copy_(x)
    return out


def relaid_on_gpu(x):
    """_relaid for get_mn_major_tma_aligned_tensor: None where fgemm cannot
    run on x's device (x on the CPU, or no library or kernels there)."""
    if not x.is_cuda:
        return None
    index = x.device.index if x.device.index is not None else 0
    try:
        ctx = _lib.context(index)
    except (_lib.FgemmError, ValueError, OSError):
        return None
    return _relaid(ctx, index, x)


def _run(ctx, index, function, *args):
    """Calls the C entry point `function(handle, *args, stream)` on torch's
    current stream of device `index`, with the SM cap set_num_sms chose."""
    stream = _current_stream(index)
    with ctx.lock:
        ctx.set_num_sms(_num_sms or 0)
        _lib.check(function(ctx.handle, *args, stream))


def _is_variant_call(a, b):
    """Whether fp8_gemm_nt's operands ask for another dense variant: an e5m2
    operand, or per-tensor (0-dimensional) scales."""
    import torch

    try:
        return (a[0].dtype == torch.float8_e5m2 or b[0].dtype == torch.float8_e5m2 or
                (a[1].dim() == 0 and b[1].dim() == 0))
    except (AttributeError, TypeError, IndexError):
        return False


def _fp8_gemm_nt_variant(a, b, d, bias, c, recipe):
    """fp8_gemm_nt with a bias, per-tensor scales or an e5m2 operand: the
    dense_bias, dense_per_tensor and dense_e5m2_e4m3 / dense_e4m3_e5m2
    kernels (docs/ABI.md)."""
    import torch

    A, sfa, B, sfb, device = _operands(a, b, d, ("bias", bias))
    if c is not None or (recipe is not None and tuple(recipe) != (1, 128, 128)):
        raise ValueError("a bias, per-tensor scales or an e5m2 operand need the 1D2D recipe "
                         "with a bf16 D (no c; recipe None or (1, 128, 128))")
    e5m2 = torch.float8_e5m2
    per_tensor = sfa.dim() == 0 and sfb.dim() == 0
    if A.dtype == e5m2 and B.dtype == e5m2:
        raise TypeError("A and B are both float8_e5m2; fgemm has e5m2 x e4m3 and e4m3 x e5m2 "
                        "kernels")
    variant = ("dense_bias" if bias is not None else "dense_per_tensor" if per_tensor
               else "dense_e5m2_e4m3" if A.dtype == e5m2 else "dense_e4m3_e5m2")
    if variant != "dense_e5m2_e4m3" and variant != "dense_e4m3_e5m2":
        _check_dtype("A", A, torch.float8_e4m3fn)
        _check_dtype("B", B, torch.float8_e4m3fn)
    if bias is not None and per_tensor:
        raise ValueError("a bias with per-tensor scales is not a variant fgemm ships "
                         "(dense_bias has 1D2D scales)")
    for name, t, dtype in (("SFA", sfa, torch.float32), ("SFB", sfb, torch.float32),
                           ("D", d, torch.bfloat16)):
        _check_dtype(name, t, dtype)
    m, n, k = _dense_shape(A, B, d)
    relayout = False
    if not per_tensor:
        _require(tuple(sfa.shape) == (m, ceil_div(k, 128)),
                 f"SFA must be [M, ceil(K/128)] = ({m}, {ceil_div(k, 128)}), got {tuple(sfa.shape)}")
        _require(tuple(sfb.shape) == (ceil_div(n, 128), ceil_div(k, 128)),
                 f"SFB must be [ceil(N/128), ceil(K/128)] = ({ceil_div(n, 128)}, "
                 f"{ceil_div(k, 128)}), got {tuple(sfb.shape)}")
        _require(sfb.is_contiguous(), f"SFB must be contiguous (row-major), got stride {sfb.stride()}")
        relayout = not is_mn_major_tma_aligned(sfa)
    if bias is not None:
        _check_dtype("bias", bias, torch.bfloat16)
        _require(tuple(bias.shape) == (n,), f"bias must be [N] = ({n},), got {tuple(bias.shape)}")
        _require(bias.is_contiguous(), f"bias must be contiguous, got stride {bias.stride()}")
    _check_dense_layout(A, B, d, n, k)
    if m == 0 or n == 0:
        return d
    if relayout:
        sfa = get_mn_major_tma_aligned_tensor(sfa)
    index = device.index if device.index is not None else torch.cuda.current_device()
    _run(_lib.context(index), index, _lib.library().fgemm_gemm_fp8_nt_variant, variant.encode(),
         A.data_ptr(), sfa.data_ptr(), B.data_ptr(), sfb.data_ptr(),
         bias.data_ptr() if bias is not None else None, d.data_ptr(), m, n, k)
    return d


def _launch(ctx, index, A, sfa, B, sfb, d, m, n, k, relayout):
    if relayout:
        sfa = _relaid(ctx, index, sfa)
    _run(ctx, index, _lib.library().fgemm_gemm_fp8_nt, A.data_ptr(), sfa.data_ptr(), B.data_ptr(),
         sfb.data_ptr(), d.data_ptr(), m, n, k)


def _fp8_gemm_nt_fp32(a, b, d, c, recipe):
    """fp8_gemm_nt's 1D1D recipe: D (FP32) = C + A @ B^T."""
    key = None
    if type(a) is tuple and type(b) is tuple and len(a) == 2 and len(b) == 2:
        try:
            signature = _signature(a[0], a[1], b[0], b[1], d)
            # C given as D itself (accumulating in place) is D's entries.
            key = ("fp32", tuple(recipe) if recipe is not None else None, signature,
                   None if c is None else "d" if c is d else
                   (c.data_ptr(), c.shape, c.stride(), c.dtype))
            seen = _validated.get(key)
        except (AttributeError, TypeError):
            key, seen = None, None
        if seen is not None:
            ctx, index, m, n, k, relayout_a, relayout_b = seen
            if relayout_a or relayout_b:
                _launch_fp32(*seen, a[0], a[1], b[0], b[1], c, d)
            else:  # the pointers of A, SFA, B, SFB, (C,) D from the key
                c_ptr = None if c is None else signature[4] if c is d else key[3][0]
                _run(ctx, index, _lib.library().fgemm_gemm_fp8_nt_fp32, *signature[:4], c_ptr,
                     signature[4], m, n, k)
            return d
    import torch

    A, sfa, B, sfb, device = _operands(a, b, d, ("C", c))
    if recipe is not None and tuple(recipe) != (1, 1, 128):
        raise ValueError(f"recipe {tuple(recipe)} with an FP32 D is not supported; allowed: None or "
                         "(1, 1, 128)")
    for name, t, dtype in (("A", A, torch.float8_e4m3fn), ("B", B, torch.float8_e4m3fn),
                           ("SFA", sfa, torch.float32), ("SFB", sfb, torch.float32),
                           ("D", d, torch.float32)):
        _check_dtype(name, t, dtype)
    if c is not None:
        _check_dtype("C", c, torch.float32)
    m, n, k = _dense_shape(A, B, d)
    if c is not None:
        _require(tuple(c.shape) == (m, n), f"C must be [M, N] = ({m}, {n}), got {tuple(c.shape)}")
        _require(c.is_contiguous(), f"C must be contiguous and N-major (stride (N, 1)), got stride {c.stride()}")
    _require(tuple(sfa.shape) == (m, ceil_div(k, 128)),
             f"SFA must be [M, ceil(K/128)] = ({m}, {ceil_div(k, 128)}), got {tuple(sfa.shape)}")
    _require(tuple(sfb.shape) == (n, ceil_div(k, 128)),
             f"SFB must be [N, ceil(K/128)] = ({n}, {ceil_div(k, 128)}) with the 1D1D recipe (one scale "
             f"per row of B), got {tuple(sfb.shape)}")
    _check_dense_layout(A, B, d, n, k)
    if m == 0 or n == 0:
        return d
    index = device.index if device.index is not None else torch.cuda.current_device()
    checked = (_lib.context(index), index, m, n, k, not is_mn_major_tma_aligned(sfa),
               not is_mn_major_tma_aligned(sfb))
    if key is not None:
        if len(_validated) >= _VALIDATED_MAX:
            _validated.clear()
        _validated[key] = checked
    _launch_fp32(*checked, A, sfa, B, sfb, c, d)
    return d


def _launch_fp32(ctx, index, m, n, k, relayout_a, relayout_b, A, sfa, B, sfb, c, d):
    if relayout_a:
        sfa = _relaid(ctx, index, sfa)
    if relayout_b:
        sfb = _relaid(ctx, index, sfb)
    _run(ctx, index, _lib.library().fgemm_gemm_fp8_nt_fp32, A.data_ptr(), sfa.data_ptr(), B.data_ptr(),
         sfb.data_ptr(), c.data_ptr() if c is not None else None, d.data_ptr(), m, n, k)


def gemm_fp8_fp8_bf16_nt(lhs, rhs, out):
    """DeepGEMM's older name: lhs = (A, SFA), rhs = (B, SFB), out = D."""
    return fp8_gemm_nt(lhs, rhs, out)


def _check_grouped(a, b, d, rows, rows_name, masked, psum=False):
    """Checks a grouped call's tensors; returns (A, SFA in the kernels'
    layout, B, SFB, device index, (m, n, k, groups))."""
    import torch

    A, sfa, B, sfb, device = _operands(a, b, d)
    _check_cuda(rows_name, rows, device)
    for name, t, dtype in (("A", A, torch.float8_e4m3fn), ("B", B, torch.float8_e4m3fn),
                           ("SFA", sfa, torch.float32), ("SFB", sfb, torch.float32),
                           ("D", d, torch.bfloat16), (rows_name, rows, torch.int32)):
        _check_dtype(name, t, dtype)
    _require(B.dim() == 3, f"B must be 3-D [G, N, K], got shape {tuple(B.shape)}")
    groups, n, k = B.shape
    if masked:
        _require(A.dim() == 3, f"A must be 3-D [G, M, K] (M rows per group), got shape {tuple(A.shape)}")
        _require(A.shape[0] == groups and A.shape[2] == k,
                 f"A is {tuple(A.shape)} but B is [G, N, K] = {tuple(B.shape)}: G or K differs")
        m = A.shape[1]
        _require(tuple(d.shape) == (groups, m, n), f"D must be [G, M, N] = ({groups}, {m}, {n}), got {tuple(d.shape)}")
        _require(tuple(sfa.shape) == (groups, m, ceil_div(k, 128)),
                 f"SFA must be [G, M, ceil(K/128)] = ({groups}, {m}, {ceil_div(k, 128)}), got {tuple(sfa.shape)}")
        _require(tuple(rows.shape) == (groups,), f"masked_m must be [G] = ({groups},), got {tuple(rows.shape)}")
    else:
        _require(A.dim() == 2, f"A must be 2-D [M, K] (all groups' rows), got shape {tuple(A.shape)}")
        m = A.shape[0]
        _require(A.shape[1] == k, f"A is [M, K] = {tuple(A.shape)} and B is [G, N, K] = {tuple(B.shape)}: K differs")
        _require(tuple(d.shape) == (m, n), f"D must be [M, N] = ({m}, {n}), got {tuple(d.shape)}")
        _require(tuple(sfa.shape) == (m, ceil_div(k, 128)),
                 f"SFA must be [M, ceil(K/128)] = ({m}, {ceil_div(k, 128)}), got {tuple(sfa.shape)}")
        if psum:
            _require(tuple(rows.shape) == (groups,),
                     f"{rows_name} must be [G] = ({groups},), got {tuple(rows.shape)}")
        else:
            _require(tuple(rows.shape) == (m,), f"m_indices must be [M] = ({m},), got {tuple(rows.shape)}")
            _require(m % 128 == 0, f"M = {m} is not a multiple of 128: every group's rows are padded to "
                     "128 (get_m_alignment_for_contiguous_layout()), padding rows marked -1 in m_indices")
    _require(tuple(sfb.shape) == (groups, ceil_div(n, 128), ceil_div(k, 128)),
             f"SFB must be [G, ceil(N/128), ceil(K/128)] = ({groups}, {ceil_div(n, 128)}, "
             f"{ceil_div(k, 128)}), got {tuple(sfb.shape)}")
    _require(n % 8 == 0, f"N = {n} is not a multiple of 8 (D's bf16 rows must be a multiple of 16 bytes)")
    _require(k % 16 == 0 and k > 0, f"K = {k} is not a positive multiple of 16 (A's and B's e4m3 rows "
             "must be a multiple of 16 bytes)")
    for name, t in (("A", A), ("B", B), ("D", d), ("SFB", sfb), (rows_name, rows)):
        _require(t.is_contiguous(), f"{name} must be contiguous (row-major), got stride {t.stride()}")
    index = device.index if device.index is not None else torch.cuda.current_device()
    return A, get_mn_major_tma_aligned_tensor(sfa), B, sfb, index, (m, n, k, groups)


def m_grouped_fp8_gemm_nt_contiguous(a, b, d, m_indices, recipe=None, compiled_dims="nk",
                                     disable_ue8m0_cast=False, use_psum_layout=False,
                                     expected_m_for_psum_layout=None, ensure_zero_padding=False,
                                     validate=False):
    """The M-grouped contiguous GEMM: a = (A [M, K] e4m3, SFA [M, ceil(K/128)]
    FP32) holds every group's rows, each group starting on a multiple of 128;
    b = (B [G, N, K] e4m3, SFB [G, ceil(N/128), ceil(K/128)] FP32); m_indices
    [M] int32 gives each row's group, -1 on padding rows (written as zeros).
    With use_psum_layout=True it is DeepGEMM's psum form instead: [G] int32,
    each group's end row; group g's rows are [align(end[g-1], 128), end[g])
    and the gap rows are left untouched (M need not be a multiple of 128).
    D [M, N] bf16 is written in place on the current CUDA stream.
    validate=True first checks m_indices (or the ends) against the layout's
    contract on the host (it synchronizes; a debug option).
    expected_m_for_psum_layout is DeepGEMM's configuration hint (accepted,
    > 0; fgemm picks from the shapes); ensure_zero_padding=True (zeroing the
    gap rows) is not implemented: fgemm leaves them untouched."""
    if recipe is not None and tuple(recipe) != (1, 128, 128):
        raise ValueError(f"recipe {tuple(recipe)} is not supported; allowed: None or (1, 128, 128)")
    if expected_m_for_psum_layout is not None:
        _require(isinstance(expected_m_for_psum_layout, int) and expected_m_for_psum_layout > 0,
                 f"expected_m_for_psum_layout must be a positive int, got {expected_m_for_psum_layout!r}")
    if ensure_zero_padding:
        raise NotImplementedError("ensure_zero_padding=True: fgemm leaves the psum layout's gap rows "
                                  "untouched instead of zeroing them")
    psum = bool(use_psum_layout)
    name = "grouped_layout" if psum else "m_indices"
    A, sfa, B, sfb, index, (m, n, k, groups) = _check_grouped(a, b, d, m_indices, name, False, psum)
    ctx = _lib.context(index)
    lib = _lib.library()
    if validate:
        with ctx.lock:
            if psum:
                _lib.check(lib.fgemm_m_grouped_validate_group_ends(ctx.handle, m_indices.data_ptr(), groups, m,
                                                                   128))
            else:
                _lib.check(lib.fgemm_m_grouped_validate_m_indices(ctx.handle, m_indices.data_ptr(), m, groups))
    run = lib.fgemm_m_grouped_gemm_fp8_nt_contiguous_psum if psum else \
        lib.fgemm_m_grouped_gemm_fp8_nt_contiguous
    _run(ctx, index, run, A.data_ptr(), sfa.data_ptr(), B.data_ptr(), sfb.data_ptr(), d.data_ptr(),
         m_indices.data_ptr(), m, n, k, groups)
    return d


def m_grouped_fp8_gemm_nt_contiguous_unpadded(a, b, d, group_ends, validate=False):
    """fgemm's contiguous layout without padding (not in DeepGEMM): a = (A [M,
    K], SFA [M, ceil(K/128)]) holds every group's rows back to back; group g's
    rows are [group_ends[g-1], group_ends[g]) (group 0 from row 0; [G] int32
    on the GPU), starting at any row. A 128-row block holding rows of several
    groups is computed once per group and each row is written by its own
    group only; rows past the last end are left untouched. b, d and
    validate as m_grouped_fp8_gemm_nt_contiguous."""
    A, sfa, B, sfb, index, (m, n, k, groups) = _check_grouped(a, b, d, group_ends, "group_ends", False, True)
    ctx = _lib.context(index)
    lib = _lib.library()
    if validate:
        with ctx.lock:
            _lib.check(lib.fgemm_m_grouped_validate_group_ends(ctx.handle, group_ends.data_ptr(), groups, m, 1))
    _run(ctx, index, lib.fgemm_m_grouped_gemm_fp8_nt_contiguous_unpadded, A.data_ptr(), sfa.data_ptr(),
         B.data_ptr(), sfb.data_ptr(), d.data_ptr(), group_ends.data_ptr(), m, n, k, groups)
    return d


def m_grouped_fp8_gemm_nt_masked(a, b, d, masked_m, expected_m, recipe=None, compiled_dims="nk",
                                 disable_ue8m0_cast=False, use_psum_layout=False):
    """The M-grouped masked GEMM: a = (A [G, M, K] e4m3, SFA [G, M,
    ceil(K/128)] FP32), b = (B [G, N, K], SFB [G, ceil(N/128), ceil(K/128)]);
    group g computes its rows [0, masked_m[g]) (masked_m [G] int32 on the GPU,
    clamped to [0, M] there) into D [G, M, N] bf16 and leaves the other rows
    untouched. expected_m (> 0), the expected rows per group, only picks the
    configuration. Nothing is read back: it can be captured in a CUDA graph."""
    if use_psum_layout:
        raise NotImplementedError("use_psum_layout=True for the masked layout: as in DeepGEMM's tests, "
                                  "lay the groups out contiguously and call "
                                  "m_grouped_fp8_gemm_nt_contiguous(..., use_psum_layout=True)")
    if recipe is not None and tuple(recipe) != (1, 128, 128):
        raise ValueError(f"recipe {tuple(recipe)} is not supported; allowed: None or (1, 128, 128)")
    if not isinstance(expected_m, int) or isinstance(expected_m, bool):
        raise TypeError(f"expected_m must be an int, got {type(expected_m).__name__}")
    _require(expected_m > 0, f"expected_m = {expected_m} must be > 0 (the expected rows per group)")
    A, sfa, B, sfb, index, (m, n, k, groups) = _check_grouped(a, b, d, masked_m, "masked_m", True)
    _run(_lib.context(index), index, _lib.library().fgemm_m_grouped_gemm_fp8_nt_masked, A.data_ptr(),
         sfa.data_ptr(), B.data_ptr(), sfb.data_ptr(), d.data_ptr(), masked_m.data_ptr(), groups, m, n, k,
         expected_m)
    return d


def m_grouped_gemm_fp8_fp8_bf16_nt_contiguous(lhs, rhs, out, m_indices):
    """DeepGEMM's older name of m_grouped_fp8_gemm_nt_contiguous."""
    return m_grouped_fp8_gemm_nt_contiguous(lhs, rhs, out, m_indices)


def m_grouped_gemm_fp8_fp8_bf16_nt_masked(lhs, rhs, out, masked_m, expected_m):
    """DeepGEMM's older name of m_grouped_fp8_gemm_nt_masked."""
    return m_grouped_fp8_gemm_nt_masked(lhs, rhs, out, masked_m, expected_m)
