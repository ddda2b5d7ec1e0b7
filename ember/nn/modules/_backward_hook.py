"""Module full backward hooks: identity autograd Functions around a module's inputs and outputs.

The output-side Function sees ``grad_output`` first (running backward pre-hooks, which may replace
it); the input-side Function then sees ``grad_input`` and runs the full backward hooks, which may
replace it. This is torch's ``BackwardHook`` design.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled

_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()


class _HookIdentity(Function):
    """Returns its tensors unchanged; backward hands the gradients to ``state``'s callback."""

    @staticmethod
    def forward(ctx, callback, *tensors):
        ctx.callback = callback
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.callback(grads))


def _pack_with_none(indices, values, size: int) -> tuple:
    res = [None] * size
    for i, v in zip(indices, values):
        res[i] = v
    return tuple(res)


class BackwardHook:
    """Per-call state linking a module's output gradients to its input gradients."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_tensors_index = None

    def _wrap(self, values, callback):
        """``values`` with its grad-requiring tensors replaced by identity-Function outputs."""
        idx = [i for i, v in enumerate(values) if isinstance(v, Tensor) and v.requires_grad]
        if not idx or not is_grad_enabled():
            return values, None
        new = _HookIdentity.apply(callback, *(values[i] for i in idx))
        out = list(values)
        for i, t in zip(idx, new):
            out[i] = t
        return out, idx

    def setup_input_hook(self, args):
        self.n_inputs = len(args)

        def on_input_grads(grads):
            grad_input = _pack_with_none(idx, grads, self.n_inputs)
            for hook in self.user_hooks:
                res = hook(self.module, grad_input, self.grad_outputs)
                if res is None:
                    continue
                if len(res) != len(grad_input):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(res)}, but expected {len(grad_input)}")
                grad_input = tuple(res)
            self.grad_outputs = None
            return tuple(grad_input[i] for i in idx)

        new_args, idx = self._wrap(list(args), on_input_grads)
        self.input_tensors_index = idx
        return tuple(new_args) if idx is not None else args

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        values = [result] if single else list(result) if isinstance(result, (tuple, list)) else None
        if values is None:
            return result
        n_outputs = len(values)

        def on_output_grads(grads):
            grad_outputs = _pack_with_none(idx, grads, n_outputs)
            for hook in self.user_pre_hooks:
                res = hook(self.module, grad_outputs)
                if res is None:
                    continue
                if len(res) != len(grad_outputs):
                    raise RuntimeError("Backward pre hook returned an invalid number of "
                                       f"grad_output, got {len(res)}, but expected "
                                       f"{len(grad_outputs)}")
                grad_outputs = tuple(res)
            self.grad_outputs = grad_outputs
            if self.input_tensors_index is None:
                # no input needs a gradient: the hooks run now, with None for every input
                if self.user_hooks:
                    warnings.warn("Full backward hook is firing when gradients are computed with "
                                  "respect to module outputs since no inputs require gradients. See "
                                  "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                                  "#torch.nn.Module.register_full_backward_hook for more details.",
                                  stacklevel=5)
                grad_inputs = _pack_with_none([], [], self.n_inputs)
                for hook in self.user_hooks:
                    res = hook(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not (isinstance(res, tuple) and
                                                all(el is None for el in res)):
                        raise RuntimeError("Backward hook for Modules where no input requires "
                                           "gradient should always return None or None for all "
                                           "gradients.")
                self.grad_outputs = None
            return tuple(grad_outputs[i] for i in idx)

        new_values, idx = self._wrap(values, on_output_grads)
        if idx is None:
            return result
        if single:
            return new_values[0]
        return type(result)(new_values) if isinstance(result, list) else tuple(new_values)
