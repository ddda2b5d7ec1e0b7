"""Node classes generated per primitive (layer L2): torch's name, an ``apply`` (and, for derivatives
written against ``K``, a ``raw``) written out for the op's save plan.

``node_class_for(op)`` makes (once) the PrimNode subclass recording instantiates for ``op``; its
generated methods unpack the saved values without a loop, call the derivative with its exact
arguments and fit the gradients to the inputs, as ``PrimNode.apply`` does generically.

Example:
    >>> import ember
    >>> from ember._primitives._registry import REGISTRY
    >>> node_class_for(REGISTRY["mul"]).__name__
    'MulBackward0'
"""
from __future__ import annotations

import numpy as _np

from .._primitives._registry import ARRAY_K, TENSOR_K, _array_sum_to_size
from .._tensor_base import wrap
from .graph import _FREED, _RAW_DTYPES, PrimNode, SavedGroup, _modified_message, _ndarray, _unwrap
from .graph import raw_via_tensors, unchecked_alias

__all__ = ["node_class_for"]


def node_class_for(op) -> type:
    """The PrimNode subclass of ``op`` (made once): ``type(grad_fn).__name__`` is torch's name (two
    ops may share it; each still has its own class), ``op`` is a class attribute, and the slots are
    the ones this op's nodes use: ``out_meta`` only for multi-output ops (single-output classes
    answer ``_n_out`` with the class attribute 1), ``view_version`` only for view ops, ``params``
    only for ops whose kernel takes keyword params (others read an empty dict). ``apply`` (and
    ``raw`` for derivatives written against ``K``) is specialised for the op when its shape is the
    common one (``_specialised_apply``)."""
    cls = op.node_class
    if cls is None:
        slots = ()
        body = {"op": op}
        if op.num_outputs != 1:
            slots += ("out_meta",)
        else:
            body["_n_out"] = 1
        if op.is_view:
            slots += ("view_version",)
        if op.takes_params:
            slots += ("params",)
        body["__slots__"] = slots
        apply = _specialised_apply(op)
        if apply is not None:
            body["apply"] = apply
            if op.backward_k and op.input_names:
                body["raw"] = _specialised_apply(op, raw=True)
        cls = op.node_class = type(op.node_name, (PrimNode,), body)
    return cls


def _specialised_apply(op, raw: bool = False):
    """``PrimNode.apply`` written out for one op (one output, derivative keywords read from params):
    the saved values unpacked without a loop over the save plan, the derivative called with its
    exact arguments, gradients fitted to the inputs. None for other shapes (the generic apply).

    ``raw``: the node's ``raw`` method instead (only for a derivative written against ``K``): NumPy
    arrays in and out, the derivative run with ``ARRAY_K`` when the gradient, the saved tensors and
    every input are plain float32/float64 cpu values of one dtype (so the kernels' NumPy promotion is
    torch's); anything else runs ``apply`` on Tensors (``raw_via_tensors``)."""
    if op.backward is None or op.num_outputs != 1 \
            or op.backward_params is None or any(kind == 2 for kind, _ in op.save_plan):
        return None
    names = [f"a{k}" for k in range(len(op.save_plan))]
    n_in = len(op.input_names)
    qs = [f"q{i}" for i in range(n_in)]
    if raw:  # the input metas unpacked for the op's arity (a list input gives more: Tensors then)
        lines = ["def raw(self, grads):\n    g = grads[0]\n    if type(g) is not _ndarray:\n"
                 "        return raw_via_tensors(self, grads)\n    gdt = _RAW_DTYPES.get(g.dtype)\n"
                 "    saved = self._saved\n    if saved is None:\n        raise RuntimeError(_FREED)\n"
                 "    versions = self._versions\n    meta = self.input_meta\n"
                 f"    if gdt is None or versions is None or len(meta) != {n_in}:\n"
                 "        return raw_via_tensors(self, grads)\n"
                 f"    {''.join(q + ', ' for q in qs)}= meta\n"
                 f"    if {' or '.join(f'({q} is not None and {q}[1] is not gdt)' for q in qs)}:\n"
                 "        return raw_via_tensors(self, grads)\n    gnp = g.dtype\n"]
    else:
        lines = ["def apply(self, grads):\n    saved = self._saved\n    if saved is None:\n"
                 "        raise RuntimeError(_FREED)\n    versions = self._versions\n"]
    if names and raw:
        for k, (kind, i) in enumerate(op.save_plan):
            if kind == 0:  # an input: the tensor's array (version checked), or a non-tensor value
                lines.append(f"    a{k} = saved[{k}]\n    v = versions[{k}]\n"
                             f"    if v is not None:\n        vc = a{k}._vc\n"
                             f"        if vc is not None and vc.value != v:\n"
                             f"            raise RuntimeError(_modified_message(a{k}, a{k}._grad_fn, "
                             f"a{k}._output_nr, vc.value, v))\n"
                             f"        if a{k}._dtype is not gdt or a{k}._data is None:\n"
                             f"            return raw_via_tensors(self, grads)\n        a{k} = a{k}._data\n"
                             f"    elif type(a{k}) is tuple:\n"  # read by no needed gradient: unchecked
                             f"        if a{k}[1] is not gdt or a{k}[0] is None:\n"
                             f"            return raw_via_tensors(self, grads)\n        a{k} = a{k}[0]\n"
                             f"    elif type(a{k}) is SavedGroup:\n        return raw_via_tensors(self, grads)\n")
            else:  # an output saved as (array, dtype, version counter, meta)
                lines.append(f"    a{k}, dt, vc, _ = saved[{k}]\n"
                             f"    if vc is not None and vc.value != versions[{k}]:\n"
                             f"        self._output(saved[{k}], versions[{k}], {i})  # raises\n"
                             f"    if dt is not gdt or a{k} is None:\n"
                             f"        return raw_via_tensors(self, grads)\n")
    elif names:
        lines.append(f"    if versions is None:\n        {', '.join(names)}, = [s.unpack(self) for s in saved]\n"
                     "    else:\n")
        for k, (kind, i) in enumerate(op.save_plan):
            if kind == 0:
                lines.append(f"        a{k} = saved[{k}]\n        v = versions[{k}]\n"
                             f"        if v is not None:\n            vc = a{k}._vc\n"
                             f"            if vc is not None and vc.value != v:\n"
                             f"                raise RuntimeError(_modified_message(a{k}, a{k}._grad_fn, "
                             f"a{k}._output_nr, vc.value, v))\n"
                             f"        elif type(a{k}) is tuple:\n            a{k} = unchecked_alias(a{k})\n"
                             f"        elif type(a{k}) is SavedGroup:\n            a{k} = a{k}.unpack(self)\n")
            else:
                lines.append(f"        a{k} = self._output(saved[{k}], versions[{k}], {i})\n")
    kws = []
    if op.backward_params:
        lines.append("    params = self.params\n")
        for name in op.backward_params:
            if name in op.param_defaults:
                kws.append(f"{name}=params.get({name!r}, _DEFAULTS[{name!r}])")
            else:
                kws.append(f"{name}=params[{name!r}]")
    if raw:
        for k, i in op.backward_shapes:
            kws.append(f"{k}=q{i}[0] if q{i} is not None else None")
        if op.backward_needs:
            kws.append(f"needs_input_grad=({''.join(f'{q} is not None, ' for q in qs)})")
    else:
        if op.backward_shapes or op.backward_needs:
            lines.append("    meta = self.input_meta\n")
        for k, i in op.backward_shapes:
            kws.append(f"{k}=meta[{i}][0] if meta[{i}] is not None else None")
        if op.backward_needs:  # written out for the usual arity (a list input gives more entries)
            flags = "".join(f"meta[{i}] is not None, " for i in range(n_in))
            kws.append(f"needs_input_grad=({flags}) if len(meta) == {n_in} else tuple(m is not None for m in meta)")
    if op.backward_k:
        kws.append("K=ARRAY_K" if raw else "K=TENSOR_K")
    lines.append(f"    res = op.backward(grads[0]{''.join(', ' + n for n in names)}{''.join(', ' + k for k in kws)})\n"
                 "    if type(res) is not tuple:\n        res = (res,)\n")
    if raw:  # same dtype by the guard above (0-d results may come back as NumPy scalars)
        rs = [f"r{i}" for i in range(n_in)]
        lines.append(f"    if len(res) != {n_in}:\n        return _fit_raw(res, meta, gnp)\n"
                     f"    {''.join(r + ', ' for r in rs)}= res\n")
        for i in range(n_in):
            lines.append(f"    if r{i} is not None and q{i} is not None:\n"
                         f"        if type(r{i}) is not _ndarray:\n            r{i} = _asarray(r{i})\n"
                         f"        if r{i}.shape != q{i}[0]:\n            r{i} = _array_sum_to_size(r{i}, q{i}[0])\n"
                         f"        rd = r{i}.dtype\n        if rd is not gnp and rd != gnp:\n"
                         f"            r{i} = _unwrap(wrap(r{i}).to(q{i}[1]))\n"
                         f"    else:\n        r{i} = None\n")
        lines.append(f"    return [{', '.join(rs)}]\n")
    else:
        lines.append("    out = []\n    for r, meta in zip(res, self.input_meta):\n"
                     "        if r is None or meta is None:\n            out.append(None)\n            continue\n")
        lines.append("        shape, dt = meta\n        d = r._data\n"
                     "        if (d.shape if d is not None else r._meta[0]) != shape:\n"
                     "            r = r.sum_to_size(shape)\n"
                     "        if r._dtype is not dt:\n"
                     "            r = r.real.to(dt) if (r._dtype.is_complex and not dt.is_complex) else r.to(dt)\n"
                     "        out.append(r)\n    return out\n")
    ns = {"op": op, "_DEFAULTS": op.param_defaults, "_FREED": _FREED, "_modified_message": _modified_message,
          "SavedGroup": SavedGroup, "unchecked_alias": unchecked_alias, "TENSOR_K": TENSOR_K, "ARRAY_K": ARRAY_K, "_ndarray": _ndarray,
          "_RAW_DTYPES": _RAW_DTYPES, "raw_via_tensors": raw_via_tensors, "_asarray": _np.asarray,
          "_array_sum_to_size": _array_sum_to_size, "wrap": wrap, "_unwrap": _unwrap, "_fit_raw": _fit_raw}
    kind = "raw backward" if raw else "backward"
    exec(compile("".join(lines), f"<ember {kind} of {op.name}>", "exec"), ns)
    return ns["raw" if raw else "apply"]


def _fit_raw(res, metas, gnp) -> list:
    """A raw derivative's results fitted to the inputs (the generated ``raw``'s loop, for results
    that do not come one per input)."""
    out = []
    for r, meta in zip(res, metas):
        if r is None or meta is None:
            out.append(None)
            continue
        if type(r) is not _ndarray:
            r = _np.asarray(r)
        if r.shape != meta[0]:
            r = _array_sum_to_size(r, meta[0])
        if r.dtype != gnp:
            r = _unwrap(wrap(r).to(meta[1]))
        out.append(r)
    return out
