"""L-BFGS (limited-memory quasi-Newton) with an optional strong-Wolfe line search.

All parameters are treated as one long vector: gradients are concatenated into a flat tensor and a
step is scattered back parameter by parameter, so the parameters keep their identity. The search
direction comes from the two-loop recursion over the last ``history_size`` curvature pairs; the
line search brackets a step and then zooms in with safeguarded cubic interpolation (Nocedal &
Wright, Algorithms 3.5/3.6). The optimizer state uses torch's keys, so checkpoints interchange.

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad(); loss = ((w - 3) ** 2).sum(); loss.backward(); return loss
    >>> _ = opt.step(closure)
    >>> [round(v, 4) for v in w.tolist()]
    [3.0, 3.0]
"""
from __future__ import annotations

from .._tensor import Tensor
from .._tensor_methods.shape_copy import cat as _cat
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, _to_scalar
from .adam import _as_real

__all__ = ["LBFGS"]

_CURVATURE_EPS = 1e-10  # pairs with y.s at or below this are not positive-definite enough to keep


class _Probe:
    """One evaluated point on the search line: step ``t``, loss, flat gradient, slope g.d."""

    __slots__ = ("t", "loss", "grad", "slope")

    def __init__(self, t, loss, grad, slope) -> None:
        self.t, self.loss, self.grad, self.slope = t, loss, grad, slope


def _cubic_minimizer(p: _Probe, q: _Probe, lower=None, upper=None):
    """Step minimising the cubic Hermite fit of loss/slope at two probes, kept inside [lower, upper]
    (default: between the probes); the interval midpoint when the cubic has no minimum."""
    left, right = (p, q) if p.t <= q.t else (q, p)
    if lower is None:
        lower, upper = left.t, right.t
    # N&W eq. (3.59), written for left < right
    a = left.slope + right.slope - 3 * (left.loss - right.loss) / (left.t - right.t)
    disc = a ** 2 - left.slope * right.slope
    if disc < 0:
        return (lower + upper) / 2.0
    root = disc.sqrt()
    guess = right.t - (right.t - left.t) * ((right.slope + root - a) / (right.slope - left.slope + 2 * root))
    return min(max(guess, lower), upper)


class _WolfeSearch:
    """Strong-Wolfe line search along ``direction`` from the current point (step 0)."""

    def __init__(self, evaluate, direction, loss0, grad0, slope0, budget, c1=1e-4, c2=0.9,
                 step_tol=1e-9) -> None:
        self.evaluate, self.direction = evaluate, direction
        self.start = _Probe(0, loss0, grad0, slope0)
        self.budget, self.c1, self.c2, self.step_tol = budget, c1, c2, step_tol
        self.n_evals = 0
        self.n_trials = 0

    def _probe(self, t) -> _Probe:
        loss, grad = self.evaluate(t)
        self.n_evals += 1
        return _Probe(t, loss, grad, grad.dot(self.direction))

    def _sufficient_decrease(self, pt: _Probe) -> bool:
        return not pt.loss > (self.start.loss + self.c1 * pt.t * self.start.slope)

    def _flat_enough(self, pt: _Probe) -> bool:
        return abs(pt.slope) <= -self.c2 * self.start.slope

    def _expand(self, t):
        """Grow the step until an interval holding an acceptable point is known.

        Returns (pair, accepted): ``pair`` is two probes bracketing it, or one accepted probe."""
        behind, cur = self.start, self._probe(t)
        while self.n_trials < self.budget:
            if not self._sufficient_decrease(cur) or (self.n_trials > 1 and cur.loss >= behind.loss):
                return [behind, cur], False
            if self._flat_enough(cur):
                return [cur], True
            if cur.slope >= 0:
                return [behind, cur], False
            nxt = _cubic_minimizer(behind, cur, cur.t + 0.01 * (cur.t - behind.t), cur.t * 10)
            behind, cur = cur, self._probe(nxt)
            self.n_trials += 1
        # out of evaluations while still descending: fall back to [start, last]
        return [self.start, cur], False

    def _safeguard(self, t, a, b, stalled: bool):
        """Keep ``t`` away from the bracket ends (at least 10% of its width inside)."""
        top, bottom = max(a, b), min(a, b)
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) >= margin:
            return t, False
        if not (stalled or t >= top or t <= bottom):
            return t, True
        t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
        return t, False

    def _zoom(self, pair):
        lo = 0 if pair[0].loss <= pair[-1].loss else 1
        stalled = False
        while self.n_trials < self.budget:
            if abs(pair[1].t - pair[0].t) * self.direction_scale < self.step_tol:
                break
            t = _cubic_minimizer(pair[0], pair[1])
            t, stalled = self._safeguard(t, pair[0].t, pair[1].t, stalled)
            cur = self._probe(t)
            self.n_trials += 1
            hi = 1 - lo
            if not self._sufficient_decrease(cur) or cur.loss >= pair[lo].loss:
                pair[hi] = cur
                lo = 0 if pair[0].loss <= pair[1].loss else 1
                continue
            if self._flat_enough(cur):
                pair[lo] = cur
                break
            if cur.slope * (pair[hi].t - pair[lo].t) >= 0:
                pair[hi] = pair[lo]
            pair[lo] = cur
        return pair[lo]

    def run(self, t):
        """(loss, flat gradient, step, evaluations) at the accepted step."""
        self.direction_scale = self.direction.abs().max()
        pair, accepted = self._expand(t)
        if accepted:
            best = pair[0]
        elif self.n_trials >= self.budget:
            best = pair[0] if pair[0].loss <= pair[-1].loss else pair[1]
        else:
            best = self._zoom(pair)
        return best.loss, best.grad, best.t, self.n_evals


def _two_loop(neg_grad: Tensor, steps, grad_diffs, inv_curv, scale, alphas) -> Tensor:
    """Apply the implicit inverse-Hessian approximation to ``neg_grad`` (in place)."""
    q = neg_grad
    for i in reversed(range(len(steps))):
        alphas[i] = steps[i].dot(q) * inv_curv[i]
        q.add_(grad_diffs[i], alpha=-float(alphas[i]))
    r = q.mul(scale)
    for i in range(len(steps)):
        beta = grad_diffs[i].dot(r) * inv_curv[i]
        r.add_(steps[i], alpha=float(alphas[i] - beta))
    return r


class LBFGS(Optimizer):
    """L-BFGS (a single param group; ``step`` needs a closure that recomputes and returns the loss).

    Args:
        params: parameters. lr: learning rate (default 1). max_iter: iterations per ``step``.
        max_eval: loss evaluations per ``step`` (default ``max_iter * 5 // 4``).
        tolerance_grad: stop once the gradient's largest entry is this small. tolerance_change:
        stop on smaller changes of loss or step. history_size: curvature pairs kept.
        line_search_fn: None or ``'strong_wolfe'``.
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = dict(lr=lr, max_iter=max_iter,
                        max_eval=max_iter * 5 // 4 if max_eval is None else max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # -- the parameters as one flat vector ---------------------------------------------------
    @staticmethod
    def _real_view(p: Tensor) -> Tensor:
        return _as_real(p) if p.is_complex() else p

    def _flat_grad(self) -> Tensor:
        pieces = []
        for p in self._params:
            g = p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1)
            pieces.append(self._real_view(g).reshape(-1))
        return _cat(pieces, 0)

    def _move(self, alpha, direction: Tensor) -> None:
        alpha, start = float(alpha), 0
        for p in self._params:
            target = self._real_view(p)
            stop = start + target.numel()
            target.add_(direction[start:stop].view_as(target), alpha=alpha)
            start = stop

    def _loss_and_grad_at(self, closure, origin, t, direction):
        """Loss and flat gradient at ``origin + t * direction``; the parameters are put back."""
        self._move(t, direction)
        loss = float(closure())
        grad = self._flat_grad()
        for p, saved in zip(self._params, origin):
            p.copy_(saved)
        return loss, grad

    # -- the algorithm ----------------------------------------------------------------------
    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations; ``closure`` re-evaluates and returns the loss."""
        def evaluate():
            with enable_grad():
                return closure()
        with no_grad():
            return self._iterate(evaluate)

    def _new_direction(self, st, grad, hist_len):
        """Update the curvature history with the last step, then return -H g."""
        y = grad.sub(st["prev_flat_grad"])
        s = st["d"].mul(st["t"])
        ys = y.dot(s)
        if ys > _CURVATURE_EPS:
            if len(st["old_dirs"]) == hist_len:
                for key in ("old_dirs", "old_stps", "ro"):
                    del st[key][0]
            st["old_dirs"].append(y)
            st["old_stps"].append(s)
            st["ro"].append(1.0 / ys)
            st["H_diag"] = ys / y.dot(y)
        if "al" not in st:
            st["al"] = [None] * hist_len
        return _two_loop(grad.neg(), st["old_stps"], st["old_dirs"], st["ro"], st["H_diag"], st["al"])

    def _iterate(self, evaluate):
        group = self.param_groups[0]
        lr = _to_scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        search = group["line_search_fn"]

        st = self.state[self._params[0]]
        st.setdefault("func_evals", 0)
        st.setdefault("n_iter", 0)
        first_loss = evaluate()
        loss = float(first_loss)
        evals = 1
        st["func_evals"] += 1
        grad = self._flat_grad()
        converged = grad.abs().max() <= tol_grad
        if converged:
            return first_loss

        for k in range(1, max_iter + 1):
            st["n_iter"] += 1
            if st["n_iter"] == 1:
                st["old_dirs"], st["old_stps"], st["ro"] = [], [], []
                st["H_diag"] = 1
                st["d"] = grad.neg()
            else:
                st["d"] = self._new_direction(st, grad, group["history_size"])
            d = st["d"]
            st["prev_flat_grad"] = grad.clone()
            st["prev_loss"] = loss
            if st["n_iter"] == 1:
                inv_l1 = 1.0 / grad.abs().sum()
                st["t"] = (inv_l1 if inv_l1 < 1.0 else 1.0) * lr
            else:
                st["t"] = lr
            slope = grad.dot(d)
            if slope > -tol_change:  # not a descent direction (any more)
                break

            used = 0
            if search is None:
                self._move(st["t"], d)
                if k != max_iter:
                    loss = float(evaluate())
                    grad = self._flat_grad()
                    converged = grad.abs().max() <= tol_grad
                    used = 1
            elif search == "strong_wolfe":
                origin = [p.clone() for p in self._params]
                ls = _WolfeSearch(lambda t: self._loss_and_grad_at(evaluate, origin, t, d),
                                  d, loss, grad, slope, budget=max_eval - evals)
                loss, grad, st["t"], used = ls.run(st["t"])
                self._move(st["t"], d)
                converged = grad.abs().max() <= tol_grad
            else:
                raise RuntimeError("only 'strong_wolfe' is supported")
            evals += used
            st["func_evals"] += used

            if k == max_iter or evals >= max_eval or converged:
                break
            if d.mul(st["t"]).abs().max() <= tol_change:
                break
            if abs(loss - st["prev_loss"]) < tol_change:
                break
        return first_loss
