"""In-place uniform_/normal_ outside autograd draw straight into the tensor (the samplers' in-place
writers): the same numbers as the ordinary path under one seed, and its errors; Bernoulli draws
from one random byte per element."""
import math

import numpy as np
import pytest

import ember


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("method,args", [("uniform_", (-2.0, 3.0)), ("uniform_", ()),
                                         ("normal_", (1.0, 2.0)), ("normal_", ())])
def test_writer_draws_the_ordinary_paths_numbers(dtype, method, args):
    ember.manual_seed(3)
    direct = getattr(ember.empty(5, 7, dtype=dtype), method)(*args)        # contiguous: the writer
    ember.manual_seed(3)
    ordinary = getattr(ember.empty(7, 5, dtype=dtype).t(), method)(*args)  # a transposed view cannot
    np.testing.assert_array_equal(direct.numpy(), ordinary.numpy())
    if method == "normal_":
        ember.manual_seed(3)
        mean, std = args or (0.0, 1.0)
        np.testing.assert_array_equal(direct.numpy(), (ember.randn(5, 7, dtype=dtype) * std + mean).numpy())


def test_writer_keeps_errors_and_versions():
    x = ember.empty(3)
    v = x._version
    x.uniform_()
    assert x._version == v + 1
    with pytest.raises(RuntimeError, match="expects to return a \\[from, to\\) range"):
        x.uniform_(2.0, 1.0)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        x.normal_(0.0, -1.0)
    g = ember.Generator().manual_seed(5)
    a = ember.empty(4).uniform_(generator=g)
    g.manual_seed(5)
    np.testing.assert_array_equal(a.numpy(), ember.rand(4, generator=g).numpy())


def test_bernoulli_scalar_draws_one_byte_per_element_exactly():
    # bernoulli_(p) compares a random byte with floor(256 p) and settles ties with 64 more bits:
    # the frequency is p (also where 256 p is not an integer and p is tiny), 0 and 1 are exact,
    # and the draw replays from the generator's state
    from ember._primitives.random import bernoulli_mask
    n = 400_000
    for p in (0.9, 1 / 3, 0.5, 0.0037, 1e-6):
        freq = ember.empty(n).bernoulli_(p).numpy().mean()
        assert abs(freq - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-9, (p, freq)
    assert ember.empty(7).bernoulli_(0.0).sum().item() == 0
    assert ember.empty(7).bernoulli_(1.0).sum().item() == 7
    rng = np.random.Generator(np.random.Philox(3))
    tie = bernoulli_mask(rng, (n,), 3.5 / 256)  # every element's byte 3 ties: half of those win
    assert abs(tie.mean() - 3.5 / 256) < 5 * math.sqrt(3.5 / 256 / n)
    g = ember.Generator().manual_seed(11)
    state = g.get_state()
    a = ember.empty(1000).bernoulli_(0.3, generator=g)
    b = ember.empty(1000).bernoulli_(0.3, generator=g.set_state(state))
    assert a.tolist() == b.tolist()


def test_bernoulli_draws_whole_blocks_so_reading_the_state_keeps_the_stream():
    # a draw ends on a Philox block boundary: get_state() between draws (checkpoint does it to
    # replay dropout masks) changes nothing, whatever the number of elements
    g = ember.Generator().manual_seed(5)
    plain = [ember.empty(n).bernoulli_(0.3, generator=g).tolist() for n in (5, 13, 40)]
    g.manual_seed(5)
    read = []
    for n in (5, 13, 40):
        read.append(ember.empty(n).bernoulli_(0.3, generator=g).tolist())
        g.get_state()
    assert read == plain
