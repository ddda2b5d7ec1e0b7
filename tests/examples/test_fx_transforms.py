"""The fx tour example runs end to end and its fusion and rewrite results hold."""
import re

import pytest

from ember import nn


def test_fx_transforms_example(tmp_path, capsys):
    from ember.examples.fx_transforms import main
    main(["--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "ember.nn.functional.gelu(bn)" in out
    assert "['Conv2d', 'Linear']" in out
    diff = float(re.search(r"max \|fused - original\| = (\S+)", out).group(1))
    assert diff < 1e-5
    assert (tmp_path / "graph.dot").read_text().startswith('digraph "small_cnn" {')
