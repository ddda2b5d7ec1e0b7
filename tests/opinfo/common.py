"""The OpInfos of the most common ops: what ordinary models and training loops call.

Arithmetic and comparison, the everyday pointwise maths, reductions, shape and view ops, indexing,
matmul, creation, and nn.functional's layers, activations, normalisations and losses. The suite's
target is all of these passing (none may be a known failure).
"""

COMMON = frozenset("""
abs add sub mul div.no_rounding_mode div.trunc_rounding div.floor_rounding true_divide neg pow
float_power remainder fmod floor_divide reciprocal rsqrt sqrt square exp exp2 expm1 log log10 log2
log1p sin cos tan tanh sigmoid sinh cosh asin acos atan atan2 asinh acosh atanh erf erfc erfinv
sign sgn ceil floor round trunc frac clamp clamp_min clamp_max lerp addcmul addcdiv hypot logit
maximum minimum fmax fmin where nan_to_num isnan isinf isfinite logaddexp xlogy
eq ne lt le gt ge logical_and logical_or logical_not logical_xor bitwise_and bitwise_or
bitwise_xor bitwise_not equal allclose isclose
sum mean prod amax amin argmax argmin max.reduction_with_dim max.reduction_no_dim
min.reduction_with_dim min.reduction_no_dim max.binary min.binary std var std_mean var_mean
logsumexp cumsum cumprod all any norm linalg.vector_norm linalg.norm nansum count_nonzero
median topk sort argsort kthvalue unique
reshape view view_as reshape_as flatten unflatten squeeze unsqueeze permute transpose t T mT
expand expand_as contiguous clone cat stack hstack vstack split chunk unbind narrow select
flip roll repeat tile movedim tril triu diag diagonal diag_embed broadcast_to broadcast_tensors
gather scatter scatter_add index_select index_add index_copy index_fill masked_fill
masked_select masked_scatter take_along_dim __getitem__ index_put nonzero
mm bmm matmul addmm baddbmm einsum outer dot mv linalg.inv linalg.solve linalg.det
zeros_like ones_like full_like zeros ones full arange linspace eye new_zeros new_ones new_full
to float double long int bool item
softmax log_softmax nn.functional.relu nn.functional.gelu nn.functional.silu
nn.functional.leaky_relu nn.functional.elu nn.functional.softplus nn.functional.hardtanh
nn.functional.relu6 nn.functional.hardswish nn.functional.hardsigmoid nn.functional.mish
nn.functional.logsigmoid nn.functional.glu nn.functional.prelu nn.functional.selu
nn.functional.softmin nn.functional.threshold nn.functional.celu
nn.functional.linear nn.functional.bilinear nn.functional.conv1d nn.functional.conv2d
nn.functional.conv3d nn.functional.conv_transpose1d nn.functional.conv_transpose2d
nn.functional.max_pool1d nn.functional.max_pool2d nn.functional.avg_pool1d
nn.functional.avg_pool2d nn.functional.adaptive_avg_pool1d nn.functional.adaptive_avg_pool2d
nn.functional.adaptive_max_pool2d nn.functional.batch_norm nn.functional.layer_norm
nn.functional.group_norm nn.functional.instance_norm nn.functional.rms_norm
nn.functional.embedding nn.functional.one_hot nn.functional.normalize
nn.functional.pad.constant nn.functional.pad.reflect nn.functional.pad.replicate
nn.functional.interpolate.nearest nn.functional.interpolate.bilinear
nn.functional.interpolate.linear nn.functional.pixel_shuffle nn.functional.unfold
nn.functional.cosine_similarity nn.functional.pairwise_distance
nn.functional.scaled_dot_product_attention nn.functional.dropout
nn.functional.cross_entropy nn.functional.nll_loss nn.functional.mse_loss nn.functional.l1_loss
nn.functional.smooth_l1_loss nn.functional.huber_loss nn.functional.binary_cross_entropy
nn.functional.binary_cross_entropy_with_logits nn.functional.kl_div
nn.functional.cosine_embedding_loss nn.functional.margin_ranking_loss
nn.functional.soft_margin_loss nn.functional.triplet_margin_loss
randn randn_like rand_like randint bernoulli multinomial empty empty_like
""".split())
