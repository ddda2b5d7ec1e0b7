"""Helpers shared by the book-project examples (gan_avatars, style_transfer, poetry).

Images travel as float arrays or tensors of shape ``(N, 3, H, W)``; ``save_grid`` writes them as one
PNG. ``progress`` is tqdm's progress bar (on stderr, so the examples' printed results stay on stdout).

    >>> import numpy as np
    >>> grid = make_grid(np.zeros((5, 3, 4, 4)), nrow=3, padding=1)
    >>> grid.shape
    (11, 16, 3)
"""
from __future__ import annotations

import os
import pathlib

import numpy as np


def progress(iterable=None, **kwargs):
    """``tqdm(iterable, **kwargs)`` with a compact bar; ``EMBER_EXAMPLES_NO_BAR=1`` silences it."""
    from tqdm import tqdm
    kwargs.setdefault("dynamic_ncols", True)
    kwargs.setdefault("leave", False)
    kwargs.setdefault("disable", os.environ.get("EMBER_EXAMPLES_NO_BAR") == "1")
    return tqdm(iterable, **kwargs)


def cache_dir() -> pathlib.Path:
    """Where generated data is cached: ``$EMBER_CACHE`` or ``~/.cache/ember/examples``."""
    root = os.environ.get("EMBER_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "ember")
    path = pathlib.Path(root) / "examples"
    path.mkdir(parents=True, exist_ok=True)
    return path


def to_numpy(images) -> np.ndarray:
    """An ember tensor or array ``(N, C, H, W)`` as a float64 NumPy array."""
    if hasattr(images, "detach"):
        images = images.detach().numpy()
    return np.asarray(images, dtype=np.float64)


def make_grid(images, nrow: int = 8, padding: int = 2, value_range=(-1.0, 1.0)) -> np.ndarray:
    """Tile ``(N, 3, H, W)`` images into one ``(rows, cols, 3)`` uint8 picture (white padding)."""
    arr = to_numpy(images)
    lo, hi = value_range
    arr = np.clip((arr - lo) / (hi - lo), 0.0, 1.0)
    n, c, h, w = arr.shape
    ncol = min(nrow, n)
    nrows = (n + ncol - 1) // ncol
    grid = np.ones((nrows * (h + padding) + padding, ncol * (w + padding) + padding, c))
    for k in range(n):
        r, q = divmod(k, ncol)
        top, left = padding + r * (h + padding), padding + q * (w + padding)
        grid[top:top + h, left:left + w] = arr[k].transpose(1, 2, 0)
    return (grid * 255 + 0.5).astype(np.uint8)


def save_png(picture: np.ndarray, path, scale: int = 1) -> str:
    """Write an ``(H, W, 3)`` uint8 array as a PNG, enlarged ``scale`` times (nearest neighbour)."""
    from PIL import Image
    img = Image.fromarray(picture)
    if scale > 1:
        img = img.resize((img.width * scale, img.height * scale), Image.NEAREST)
    path = str(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    img.save(path, optimize=True)
    return path


def save_grid(images, path, nrow: int = 8, value_range=(-1.0, 1.0), scale: int = 1) -> str:
    """``make_grid`` then ``save_png``; returns the path written."""
    return save_png(make_grid(images, nrow=nrow, value_range=value_range), path, scale=scale)
