"""Write ``ember/examples/data/digits.npz``: the 8x8 hand-written digits the quickstart classifies.

Provenance: the "Optical Recognition of Handwritten Digits" data set (UCI Machine Learning Repository,
E. Alpaydin and C. Kaynak, 1998), test split of 1797 images of 8x8 pixels with values 0..16, exactly
as bundled with scikit-learn (``sklearn.datasets.load_digits``; scikit-learn is BSD-3-Clause
licensed). scikit-learn is needed only to run this script once; the quickstart reads the .npz.

Usage: ``python tools/make_digits.py`` (rewrites the file; the result is deterministic).
"""
from __future__ import annotations

import pathlib

import numpy as np
from sklearn.datasets import load_digits

OUT = pathlib.Path(__file__).resolve().parents[1] / "ember" / "examples" / "data" / "digits.npz"


def main() -> None:
    digits = load_digits()
    images = digits.images.astype(np.uint8)   # shape: (1797, 8, 8), values 0..16
    target = digits.target.astype(np.uint8)   # shape: (1797,)
    assert images.shape == (1797, 8, 8) and images.max() == 16 and set(target) == set(range(10))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, images=images, target=target,
                        source=np.array("UCI ML hand-written digits (8x8) via scikit-learn "
                                        "load_digits; BSD-3-Clause"))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
