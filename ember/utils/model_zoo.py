"""``torch.utils.model_zoo``: the old home of ``load_url`` (``hub.load_state_dict_from_url``) and the
progress bar class ``tqdm`` that libraries import from here.

Example:
    >>> from ember.utils.model_zoo import load_url, tqdm
    >>> load_url.__name__
    'load_state_dict_from_url'
"""
from __future__ import annotations

from tqdm import tqdm

from ..hub import load_state_dict_from_url as load_url

__all__ = ["load_url", "tqdm"]
