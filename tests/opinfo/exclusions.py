"""OpInfos of torch's ``op_db`` outside the suite's scope (one reason each), and the random ones.

In scope = every OpInfo of ``op_db`` not in ``EXCLUDED``. ``RANDOM`` OpInfos are in scope but draw
from a random stream (or return uninitialised memory), whose values ember does not reproduce
bit for bit by design (docs/design.md, Randomness): their outputs are compared by shape and dtype only.
"""

_PRIVATE = "private aten operator, not part of torch's public API"
_SPARSE = "sparse layout (ember has strided tensors only)"
_BACKEND = "backend-specific (CUDA/jiterator/triton/cudnn), no cpu kernel in torch"

EXCLUDED = {
    "sparse.sampled_addmm": _SPARSE,
    "sparse.mm.reduce": _SPARSE,
    "to_sparse": _SPARSE,
    "jiterator_unary": _BACKEND,
    "jiterator_binary": _BACKEND,
    "jiterator_4inputs_with_extra_args": _BACKEND,
    "jiterator_binary_return_by_ref": _BACKEND,
    "jiterator_2inputs_2outputs": _BACKEND,
    "bmm.triton_optimized": _BACKEND,
    "nn.functional.batch_norm.without_cudnn": _BACKEND,
    "nn.functional.silu.complex": "CUDA-only complex variant (no cpu dtype in torch)",
    "torch._scaled_mm": _PRIVATE + " (float8 GEMM)",
    "torch._scaled_mm_v2": _PRIVATE + " (float8 GEMM)",
    "torch.ops.aten._safe_softmax.default": _PRIVATE,
    "torch.ops.aten._flash_attention_forward": _PRIVATE + " (CUDA kernel)",
    "torch.ops.aten._efficient_attention_forward": _PRIVATE + " (CUDA kernel)",
    "_softmax_backward_data": _PRIVATE,
    "_native_batch_norm_legit": _PRIVATE,
    "_batch_norm_with_update": _PRIVATE,
    "_upsample_bilinear2d_aa": _PRIVATE,
    "_unsafe_masked_index": _PRIVATE,
    "_unsafe_masked_index_put_accumulate": _PRIVATE,
    "_chunk_cat": _PRIVATE,
    "_segment_reduce.lengths": _PRIVATE,
    "_segment_reduce.offsets": _PRIVATE,
    "max_pool2d_with_indices_backward": _PRIVATE + " (a backward kernel)",
    "native_dropout_backward": _PRIVATE + " (a backward kernel)",
}

_STREAM = "draws from a random stream"
_UNINIT = "returns uninitialised memory"

RANDOM = {
    name: _STREAM for name in (
        "cauchy", "exponential", "geometric", "log_normal", "normal.in_place", "uniform",
        "bernoulli", "normal", "normal.number_mean", "multinomial", "randn", "randn_like",
        "rand_like", "randint", "randint_like", "nn.functional.dropout", "nn.functional.dropout2d",
        "nn.functional.dropout3d", "nn.functional.alpha_dropout",
        "nn.functional.feature_alpha_dropout.with_train", "nn.functional.rrelu",
        "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d",
        "svd_lowrank", "pca_lowrank",
    )
}
RANDOM.update({name: _UNINIT for name in (
    "empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided", "empty_permuted",
)})
