"""FloatFunctional / FXFloatFunctional / QFunctional: add, mul, cat, add_relu as observable modules.

Eager-mode models call ``self.ff.add(a, b)`` instead of ``a + b`` so ``prepare`` can observe the
result and ``convert`` can swap in ``QFunctional``, which runs the quantized kernels.

Example:
    >>> import ember
    >>> FloatFunctional().add(ember.ones(2), ember.ones(2)).tolist()
    [2.0, 2.0]
"""
from __future__ import annotations

from ....._tensor_methods.shape_copy import cat as _cat
from ....._quantized.kernels import q_add, q_cat, q_mul
from .....nn import functional as F
from .....nn.modules.linear import Identity
from .....nn.modules.module import Module
from .utils import activation_qparams, save_output_qparams

__all__ = ["FloatFunctional", "FXFloatFunctional", "QFunctional"]


class FloatFunctional(Module):
    """Float add/mul/cat whose results pass through ``activation_post_process`` (an observer)."""

    def __init__(self):
        super().__init__()
        self.activation_post_process = Identity()

    def forward(self, x):
        raise RuntimeError("FloatFunctional is not intended to use the 'forward'. Please use the "
                           "underlying operation")

    def add(self, x, y):
        return self.activation_post_process(x + y)

    def add_scalar(self, x, y):
        return x + y

    def mul(self, x, y):
        return self.activation_post_process(x * y)

    def mul_scalar(self, x, y):
        return x * y

    def cat(self, x, dim: int = 0):
        return self.activation_post_process(_cat(x, dim=dim))

    def add_relu(self, x, y):
        return self.activation_post_process(F.relu(x + y))

    def matmul(self, x, y):
        return self.activation_post_process(x.matmul(y))


class FXFloatFunctional(Module):
    """FloatFunctional for FX graph mode (no observer inside: FX inserts its own)."""

    def forward(self, x):
        raise RuntimeError("FloatFunctional is not intended to use the 'forward'. Please use the "
                           "underlying operation")

    def add(self, x, y):
        return x + y

    def add_scalar(self, x, y):
        return x + y

    def mul(self, x, y):
        return x * y

    def mul_scalar(self, x, y):
        return x * y

    def cat(self, x, dim: int = 0):
        return _cat(x, dim=dim)

    def add_relu(self, x, y):
        return F.relu(x + y)

    def matmul(self, x, y):
        return x.matmul(y)


class QFunctional(Module):
    """Quantized add/mul/cat/add_relu producing outputs at (``scale``, ``zero_point``)."""

    def __init__(self):
        super().__init__()
        self.scale, self.zero_point = 1.0, 0
        self.activation_post_process = Identity()

    def _get_name(self):
        return "QFunctional"

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}"

    def forward(self, x):
        raise RuntimeError("Functional is not intended to use the 'forward'. Please use the "
                           "underlying operation")

    def add(self, x, y):
        return q_add(x, y, self.scale, self.zero_point)

    def add_scalar(self, x, y):
        return q_add(x, y, x.q_scale(), x.q_zero_point())

    def mul(self, x, y):
        return q_mul(x, y, self.scale, self.zero_point)

    def mul_scalar(self, x, y):
        return q_mul(x, y, x.q_scale(), x.q_zero_point())

    def cat(self, x, dim: int = 0):
        return q_cat(x, dim, self.scale, self.zero_point)

    def add_relu(self, x, y):
        return q_add(x, y, self.scale, self.zero_point, relu=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        save_output_qparams(self, destination, prefix)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.scale = float(state_dict.pop(prefix + "scale").item())
        self.zero_point = int(state_dict.pop(prefix + "zero_point").item())
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        q = cls()
        q.scale, q.zero_point = activation_qparams(mod.activation_post_process)
        return q
