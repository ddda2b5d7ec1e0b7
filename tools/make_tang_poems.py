"""Write ``ember/examples/data/tang300.tsv``: the corpus ``python -m ember.examples.poetry`` learns from.

Provenance: *Three Hundred Tang Poems* (唐诗三百首), the anthology compiled by Sun Zhu (蘅塘退士)
around 1763 from poems of the Tang dynasty (618-907); the poems and the anthology are in the public
domain. The digital text (simplified characters, 313 poems) is the file ``tang300`` of Debian's
package ``fortunes-zh`` (version 2.98, source https://salsa.debian.org/chinese-team/fortunes-zh),
whose packaging is distributed under GPL-3.0-or-later (copyright Yu Guanghui, Mo Zhou, xiao sheng
wen); this script only strips the terminal colour codes and writes one poem per line.

Usage (Debian/Ubuntu): ``apt-get install fortunes-zh && python tools/make_tang_poems.py``, or
``python tools/make_tang_poems.py PATH/TO/tang300``. The result is deterministic.
"""
from __future__ import annotations

import pathlib
import re
import sys

SOURCE = pathlib.Path("/usr/share/games/fortunes/tang300")
OUT = pathlib.Path(__file__).resolve().parents[1] / "ember" / "examples" / "data" / "tang300.tsv"


def parse(text: str) -> list[tuple[str, str, str]]:
    """``(title, author, body)`` per poem; body lines joined without newlines."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    poems = []
    for block in text.split("\n%\n"):
        lines = [ln.strip() for ln in block.strip().split("\n") if ln.strip()]
        if len(lines) < 3 or not lines[1].startswith("作者："):
            continue
        title = lines[0].strip("《》")
        author = lines[1][len("作者："):]
        poems.append((title, author, "".join(lines[2:])))
    return poems


def main() -> None:
    src = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE
    poems = parse(src.read_text(encoding="utf-8"))
    assert len(poems) > 300, len(poems)
    header = "# title\tauthor\tpoem -- Three Hundred Tang Poems, public domain; text from Debian fortunes-zh 2.98 (see tang300.LICENSE)\n"
    OUT.write_text(header + "".join(f"{t}\t{a}\t{b}\n" for t, a, b in poems), encoding="utf-8")
    print(f"wrote {OUT}: {len(poems)} poems, {sum(len(b) for _, _, b in poems)} characters")


if __name__ == "__main__":
    main()
