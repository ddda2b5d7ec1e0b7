"""``python -m ember.examples.poetry --tiny``: the issue's "done when" for AI poetry, measured."""
from __future__ import annotations

import re

import pytest

from ember.examples.poetry import LINE_END, lines_of, load_corpus

from ._run import run_example


@pytest.mark.timeout(960)
def test_poetry_tiny_learns_and_follows_start_words_and_acrostic(tmp_path):
    out = run_example("poetry", "--tiny", "--out", str(tmp_path), "--start", "春眠不覺曉",
                      "--acrostic", "江山如畫", tmp_path=tmp_path)
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
        assert sections[f"start words 春眠不覺曉 (temperature {temp})"].startswith("春眠不覺曉")
    acro = sections["acrostic 江山如畫 (temperature 0.8)"].replace("\n", "")
    lines = lines_of(acro)
    assert [line[0] for line in lines] == list("江山如畫"), lines
    assert all(line[-1] in LINE_END for line in lines)


def test_corpus_is_package_data_with_provenance():
    from importlib import resources
    poems = load_corpus()
    assert len(poems) == 320 and sum(map(len, poems)) > 20000
    assert "春眠不覺曉，處處聞啼鳥。夜來風雨聲，花落知多少。" in poems   # Meng Haoran, 春曉
    text = "".join(poems)
    assert "一作" not in text and not set(text) & set("()（）,?! \t")   # editorial notes and half-width marks gone
    licence = " ".join(resources.files("ember.examples").joinpath(
        "data/tang300_traditional.LICENSE").read_text(encoding="utf-8").split())
    assert "public domain" in licence and "chinese-poetry, version 2.0.1" in licence
    assert "b6e7e60d0accac7c723d066a5c360549aab8299d" in licence
    assert "The MIT License (MIT) Copyright (c) 2016 JackeyGao Permission is hereby granted" in licence
    assert "GNU" not in licence


def test_corpus_builder_strips_notes_and_checks_the_tarball(tmp_path):
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[2] / "tools" / "make_tang_poems.py"
    spec = importlib.util.spec_from_file_location("make_tang_poems", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    entry = {"chapter": "山中送別", "author": "王維", "subchapter": None,
             "paragraphs": ["山中相送罷，日暮掩柴扉。", "春草明年綠，王孫歸不歸？(明年", "一作：年年)"]}
    anthology = {"title": "唐詩三百首", "content": [{"type": "五言絕句", "content": [entry]}]}
    assert tool.parse(anthology) == [("山中送別", "王維", "山中相送罷，日暮掩柴扉。春草明年綠，王孫歸不歸？")]
    assert tool.clean("蜀道之難,難於上青天（名成 一作：名高）!") == "蜀道之難，難於上青天！"
    with pytest.raises(ValueError):
        tool.clean("一作：年年")                         # a note without its parentheses is not poem text
    fake = tmp_path / "chinese-poetry-2.0.1.tgz"
    fake.write_bytes(b"not the published tarball")
    with pytest.raises(SystemExit, match="integrity check failed"):
        tool.fetch(str(fake))                          # a local tarball is checked against the registry's hashes


def test_poetry_help():
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-m", "ember.examples.poetry", "--help"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "--acrostic" in proc.stdout and "--tiny" in proc.stdout
