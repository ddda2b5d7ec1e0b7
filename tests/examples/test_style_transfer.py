"""``python -m ember.examples.style_transfer --tiny``: the issue's "done when" for the AI filter, measured."""
from __future__ import annotations

import re

import numpy as np
import pytest

from ._run import is_png, run_example


# Measured at --tiny (64x64, 80 optimisation steps, feed-forward net of width 8 trained 160 steps):
# style loss 1.4286 -> 0.0851 (16.8x) with content loss 0.154 of the style picture's; the
# feed-forward output's style loss is 1.05x the optimised image's (the issue asks for <= 2x). Full size
# (128x128, measured once, README): 21.5x fall, content 0.162; feed-forward 0.58x the optimised image's.
@pytest.mark.timeout(960)
def test_style_transfer_tiny_meets_the_targets(tmp_path):
    out = run_example("style_transfer", "--tiny", "--out", str(tmp_path), tmp_path=tmp_path)
    m = re.search(r"style loss ([\d.]+) -> ([\d.]+) \(fell [\d.]+x\), content loss ([\d.]+) = ([\d.]+) of the style "
                  r"picture's \(bound ([\d.]+)\)", out)
    before, after, content, content_ratio, bound = map(float, m.groups())
    assert "at 64x64" in out
    assert before / after >= 5.0, out                      # style loss falls at least 5x at 64x64
    assert content_ratio <= bound == 0.5, out              # content kept: < half of what the style picture loses
    ff = float(re.search(r"on the unseen photo: style loss ([\d.]+)", out).group(1))
    assert ff <= 2.0 * after, out                          # feed-forward within 2x of the optimised image
    for name in ("style_optimised.png", "style_feedforward.png", "style_transfer.png"):
        assert is_png(tmp_path / name), name
    assert (tmp_path / "style_net.pt").exists()


def test_style_losses_and_pictures():
    import ember
    from ember.examples import style_transfer as st
    content, style = st.content_picture(32), st.style_picture(32)
    assert content.shape == style.shape == (3, 32, 32)
    assert 0 <= content.min() and content.max() <= 1 and 0 <= style.min() and style.max() <= 1
    vgg = st.RandomVGG()
    loss = st.PerceptualLoss(vgg, ember.from_numpy(style))
    s_style, _ = loss.measure(ember.from_numpy(style)[None], ember.from_numpy(content)[None])
    s_photo, c_self = loss.measure(ember.from_numpy(content)[None], ember.from_numpy(content)[None])
    assert s_style < 1e-10 and c_self == 0.0 and s_photo > 0.1
    f = ember.randn(2, 4, 5, 6)
    g = st.gram(f)
    flat = f.numpy().reshape(2, 4, 30)
    np.testing.assert_allclose(g.numpy(), flat @ flat.transpose(0, 2, 1) / 30, rtol=1e-5)
    net = st.transform_net(4, 1)
    y = net(ember.rand(1, 3, 16, 16))
    assert y.shape == (1, 3, 16, 16) and 0 <= float(y.min()) and float(y.max()) <= 1
