"""``python -m ember.examples.poetry --tiny``: the issue's "done when" for AI poetry, measured."""
from __future__ import annotations

import re

import pytest

from ember.examples.poetry import LINE_END, lines_of, load_corpus

from ._run import run_example


@pytest.mark.timeout(960)
def test_poetry_tiny_learns_and_follows_start_words_and_acrostic(tmp_path):
    out = run_example("poetry", "--tiny", "--out", str(tmp_path), "--start", "春眠不觉晓",
                      "--acrostic", "江山如画", tmp_path=tmp_path)
    held = float(re.search(r"^held-out loss ([\d.]+) nats vs unigram entropy ([\d.]+)", out, re.M).group(1))
    entropy = float(re.search(r"^unigram entropy of the training characters: ([\d.]+) nats", out, re.M).group(1))
    assert held < entropy, out                            # context helps: below the unigram entropy
    assert "reloaded: same poem yes" in out
    text = (tmp_path / "poems.txt").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^(start words .*? \(temperature [\d.]+\)|acrostic .*?):\n(.*?)(?:\n\n|\Z)", text,
                               re.M | re.S))
    assert len(sections) == 3, text
    charset = set("".join(load_corpus()))
    for title, body in sections.items():
        poem = body.replace("\n", "")
        assert poem and set(poem) <= charset, (title, set(poem) - charset)   # only corpus characters
    for temp in ("0.8", "1.2"):
        assert sections[f"start words 春眠不觉晓 (temperature {temp})"].startswith("春眠不觉晓")
    acro = sections["acrostic 江山如画 (temperature 0.8)"].replace("\n", "")
    lines = lines_of(acro)
    assert [line[0] for line in lines] == list("江山如画"), lines
    assert all(line[-1] in LINE_END for line in lines)


def test_corpus_is_package_data_with_provenance():
    from importlib import resources
    poems = load_corpus()
    assert len(poems) == 313 and sum(map(len, poems)) > 20000
    assert "床前明月光，疑是地上霜。举头望明月，低头思故乡。" in poems   # Li Bai, 静夜思
    licence = " ".join(resources.files("ember.examples").joinpath("data/tang300.LICENSE").read_text(encoding="utf-8").split())
    assert "public domain" in licence and "fortunes-zh" in licence and "GNU General Public License" in licence


def test_poetry_help():
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-m", "ember.examples.poetry", "--help"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "--acrostic" in proc.stdout and "--tiny" in proc.stdout
