"""Write ``ember/examples/data/tang300_traditional.tsv``, the corpus ``python -m ember.examples.poetry`` learns from.

Source: *Three Hundred Tang Poems* (唐詩三百首, compiled by Sun Zhu around 1763; the poems are of the
Tang dynasty, 618-907, and in the public domain) as the file ``dist/mengxue/tangshisanbaishou.json``
of the npm package ``chinese-poetry`` 2.0.1 (MIT licence, Copyright (c) 2016 JackeyGao). The
tarball is checked against the sha1 and sha512 the npm registry publishes for that version.

Transformation (deterministic; described in ``tang300_traditional.LICENSE``):

1. poems in file order (the anthology's sections: 五言絕句, 七言絕句, ..., 樂府); one line each,
   ``title<TAB>author<TAB>poem``, where title is the entry's ``chapter`` and poem its ``paragraphs``
   joined without separators;
2. editorial notes in parentheses -- variant readings such as ``(明年 一作：年年)`` or
   ``（名成 一作：名高）`` and glosses such as ``(唯 通：惟)``, some spanning two paragraphs --
   are removed with the white space before them: they are not poem text;
3. the few half-width marks ``, ? !`` become the full-width ``， ？ ！`` used everywhere else;
4. characters stay traditional, as published (no conversion).

Usage: ``python tools/make_tang_poems.py`` downloads the tarball (85 MB) from the npm registry;
``python tools/make_tang_poems.py PATH/TO/chinese-poetry-2.0.1.tgz`` uses a local copy (e.g. from
``npm pack chinese-poetry@2.0.1``). Both check the hashes before reading anything.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
import pathlib
import re
import sys
import tarfile
import urllib.request

PACKAGE, VERSION = "chinese-poetry", "2.0.1"
TARBALL = f"https://registry.npmjs.org/{PACKAGE}/-/{PACKAGE}-{VERSION}.tgz"
# ``dist.shasum`` and ``dist.integrity`` of https://registry.npmjs.org/chinese-poetry/2.0.1
SHA1 = "b6e7e60d0accac7c723d066a5c360549aab8299d"
SHA512 = "sha512-KtYARvV7CWNtax0na9+Jn6PlhGgSoid7PWyDzXI4KsCEm2odZcqEQyval5koaLygZnM/EQ3lfJ//25K8p3uHNg=="
MEMBER = "package/dist/mengxue/tangshisanbaishou.json"
LICENSE_MEMBER = "package/LICENSE"

DATA = pathlib.Path(__file__).resolve().parents[1] / "ember" / "examples" / "data"
OUT = DATA / "tang300_traditional.tsv"

NOTE = re.compile(r"\s*[（(][^（）()]*[）)]")             # "(明年 一作：年年)", "（名成 一作：名高）"
HALF_TO_FULL = str.maketrans({",": "，", "?": "？", "!": "！"})
PUNCT = set("，。？！；：·《》“”")


def fetch(path: str | None) -> bytes:
    """The tarball's bytes, from ``path`` or the registry, after checking sha1 and sha512."""
    if path is None:
        print(f"downloading {TARBALL}", flush=True)
        with urllib.request.urlopen(TARBALL, timeout=600) as resp:
            blob = resp.read()
    else:
        blob = pathlib.Path(path).read_bytes()
    sha1 = hashlib.sha1(blob).hexdigest()
    sha512 = "sha512-" + base64.b64encode(hashlib.sha512(blob).digest()).decode()
    if sha1 != SHA1 or sha512 != SHA512:
        raise SystemExit(f"integrity check failed: sha1 {sha1}, {sha512}; expected {SHA1}, {SHA512}")
    return blob


def clean(text: str) -> str:
    """Poem text without editorial notes, with full-width punctuation."""
    body = NOTE.sub("", text).translate(HALF_TO_FULL)
    body = re.sub(r"\s+", "", body)
    odd = {ch for ch in body if ch not in PUNCT and not "\u4e00" <= ch <= "\u9fff"}
    if odd or "一作" in body or "通：" in body:
        raise ValueError(f"unexpected text left in {body!r}: {sorted(odd)}")
    return body


def parse(anthology: dict) -> list[tuple[str, str, str]]:
    """``(title, author, poem)`` per entry of the anthology JSON, in file order."""
    poems = []
    for section in anthology["content"]:
        for entry in section["content"]:
            title, author = entry["chapter"].strip(), entry["author"].strip()
            assert "\t" not in title + author and title and author, entry
            poems.append((title, author, clean("".join(entry["paragraphs"]))))
    return poems


def main(argv: list[str]) -> None:
    blob = fetch(argv[0] if argv else None)
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        licence = tar.extractfile(LICENSE_MEMBER).read().decode("utf-8")
        anthology = json.loads(tar.extractfile(MEMBER).read().decode("utf-8"))
    assert "The MIT License" in licence and "Copyright (c) 2016 JackeyGao" in licence, licence
    poems = parse(anthology)
    assert len(poems) == 320, len(poems)
    header = (f"# title\tauthor\tpoem -- 唐詩三百首 (public domain), text of npm {PACKAGE} {VERSION} (MIT), "
              "editorial notes removed; see tang300_traditional.LICENSE\n")
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(header + "".join(f"{t}\t{a}\t{p}\n" for t, a, p in poems))
    print(f"wrote {OUT}: {len(poems)} poems, {sum(len(p) for _, _, p in poems)} characters")


if __name__ == "__main__":
    main(sys.argv[1:])
