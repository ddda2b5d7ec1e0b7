"""fuse_modules: merge (conv, bn[, relu]) and (linear, relu) runs into single modules.

In eval mode conv+bn folds the batch norm into the conv's weight and bias; in QAT mode
(``fuse_modules_qat``) the fused ``ConvBn2d`` / ``ConvBnReLU2d`` keep both for training. The first
module's name holds the fused module; the others become ``nn.Identity``.

Example:
    >>> from ember import nn
    >>> m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU()).eval()
    >>> f = fuse_modules(m, [["0", "1", "2"]])
    >>> type(f[0]).__name__, type(f[1]).__name__
    ('ConvReLU2d', 'Identity')
"""
from __future__ import annotations

import copy

from ... import nn
from ...nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval
from ..nn import intrinsic as nni

__all__ = ["fuse_modules", "fuse_modules_qat", "fuse_known_modules", "get_fuser_method",
           "fuse_conv_bn", "fuse_conv_bn_relu", "fuse_linear_bn"]


def fuse_conv_bn(is_qat, conv, bn):
    if conv.training != bn.training:
        raise AssertionError("Conv and BN both must be in the same mode (train or eval).")
    if is_qat:
        return {nn.Conv1d: nni.ConvBn1d, nn.Conv2d: nni.ConvBn2d}[type(conv)](conv, bn)
    return fuse_conv_bn_eval(conv, bn)


def fuse_conv_bn_relu(is_qat, conv, bn, relu):
    if conv.training != bn.training or bn.training != relu.training:
        raise AssertionError("Conv and BN both must be in the same mode (train or eval).")
    if is_qat:
        return {nn.Conv1d: nni.ConvBnReLU1d, nn.Conv2d: nni.ConvBnReLU2d}[type(conv)](conv, bn, relu)
    fused = fuse_conv_bn_eval(conv, bn)
    return {nn.Conv1d: nni.ConvReLU1d, nn.Conv2d: nni.ConvReLU2d}[type(conv)](fused, relu)


def fuse_linear_bn(is_qat, linear, bn):
    if is_qat:
        return nni.LinearBn1d(linear, bn)
    return fuse_linear_bn_eval(linear, bn)


_FUSERS = {
    (nn.Conv1d, nn.BatchNorm1d): fuse_conv_bn,
    (nn.Conv1d, nn.BatchNorm1d, nn.ReLU): fuse_conv_bn_relu,
    (nn.Conv2d, nn.BatchNorm2d): fuse_conv_bn,
    (nn.Conv2d, nn.BatchNorm2d, nn.ReLU): fuse_conv_bn_relu,
    (nn.Conv1d, nn.ReLU): lambda is_qat, c, r: nni.ConvReLU1d(c, r),
    (nn.Conv2d, nn.ReLU): lambda is_qat, c, r: nni.ConvReLU2d(c, r),
    (nn.Linear, nn.BatchNorm1d): fuse_linear_bn,
    (nn.Linear, nn.ReLU): lambda is_qat, lin, r: nni.LinearReLU(lin, r),
    (nn.BatchNorm2d, nn.ReLU): lambda is_qat, bn, r: nni.BNReLU2d(bn, r),
}


def get_fuser_method(op_list, additional_fuser_method_mapping=None):
    """The fuser for a tuple of module types (``(nn.Conv2d, nn.ReLU)``)."""
    table = {**_FUSERS, **(additional_fuser_method_mapping or {})}
    fn = table.get(tuple(op_list))
    if fn is None:
        raise AssertionError(f"did not find fuser method for: {tuple(op_list)} ")
    return fn


def fuse_known_modules(mod_list, is_qat, additional_fuser_method_mapping=None):
    """Fuse a list of modules; returns the list to put back (fused module, then Identities)."""
    types = tuple(type(m) for m in mod_list)
    fuser = get_fuser_method(types, additional_fuser_method_mapping)
    fused = fuser(is_qat, *mod_list)
    return [fused] + [nn.Identity() for _ in mod_list[1:]]


def _get_module(model, name):
    for part in name.split("."):
        model = getattr(model, part)
    return model


def _set_module(model, name, new):
    *parents, last = name.split(".")
    for part in parents:
        model = getattr(model, part)
    setattr(model, last, new)


def _fuse(model, modules_to_fuse, is_qat, inplace, fuser_func, fuse_custom_config_dict):
    if not inplace:
        model = copy.deepcopy(model)
    groups = modules_to_fuse if modules_to_fuse and isinstance(modules_to_fuse[0], (list, tuple)) \
        else [modules_to_fuse]
    extra = (fuse_custom_config_dict or {}).get("additional_fuser_method_mapping", {})
    for group in groups:
        mods = [_get_module(model, n) for n in group]
        if not is_qat and any(m.training for m in mods) and fuser_func is fuse_known_modules and \
                any(isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)) for m in mods):
            raise AssertionError("Fusion only for eval!")
        new = fuser_func(mods, is_qat, extra) if fuser_func is fuse_known_modules \
            else fuser_func(mods, is_qat)
        for name, m in zip(group, new):
            _set_module(model, name, m)
    return model


def fuse_modules(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules,
                 fuse_custom_config_dict=None):
    """Fuse each list of module names in ``modules_to_fuse`` (eval mode)."""
    return _fuse(model, modules_to_fuse, False, inplace, fuser_func, fuse_custom_config_dict)


def fuse_modules_qat(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules,
                     fuse_custom_config_dict=None):
    """QAT version of ``fuse_modules``: conv+bn stay unfolded in ``ConvBn2d``-style modules."""
    return _fuse(model, modules_to_fuse, True, inplace, fuser_func, fuse_custom_config_dict)
