"""``ember.hub``: what works offline works (local hubconf repositories, checkpoints already in the
cache); anything that must reach the network raises a RuntimeError saying so.

Example:
    >>> import ember
    >>> ember.hub.get_dir().endswith("hub")
    True
"""
from __future__ import annotations

import importlib.util
import os
import sys
from urllib.parse import urlparse

from .serialization import load as _load

__all__ = ["list", "help", "load", "load_state_dict_from_url", "download_url_to_file", "get_dir",
           "set_dir"]

_builtin_list = list
_hub_dir = None
_OFFLINE = ("ember.hub cannot {what}: ember.hub works offline only (it never downloads). "
            "{hint}")


def _get_torch_home() -> str:
    """``$TORCH_HOME``, else ``$XDG_CACHE_HOME/torch``, else ``~/.cache/torch`` (libraries such as
    torchvision keep their caches under it)."""
    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(
        os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch")))


def get_dir() -> str:
    """The hub cache directory: ``set_dir``'s, else ``$TORCH_HOME/hub``, else ``~/.cache/torch/hub``."""
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d) -> None:
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def _offline(what, hint):
    raise RuntimeError(_OFFLINE.format(what=what, hint=hint))


def _hubconf(repo_dir):
    path = os.path.join(repo_dir, "hubconf.py")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"Cannot find hubconf.py in {repo_dir}")
    sys.path.insert(0, repo_dir)
    try:
        spec = importlib.util.spec_from_file_location("hubconf", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(repo_dir)
    return mod


def _local_only(repo_or_dir, source, what):
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        _offline(what + f" from GitHub repository '{repo_or_dir}'",
                 "Clone the repository and pass its directory with source='local'.")
    return _hubconf(repo_or_dir)


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True,
         source="github"):
    mod = _local_only(github, source, "list entry points")
    return [f for f in dir(mod) if callable(getattr(mod, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check",
         source="github"):
    return getattr(_local_only(github, source, "read help"), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """Call entry point ``model`` of a local repository's hubconf.py (``source='local'``)."""
    mod = _local_only(repo_or_dir, source, f"load '{model}'")
    fn = getattr(mod, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn(*args, **kwargs)


def download_url_to_file(url, dst, hash_prefix=None, progress=True) -> None:
    _offline(f"download {url}", f"Download it by other means and save it as {dst}.")


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """Load a checkpoint already in ``<hub dir>/checkpoints`` (or ``model_dir``); never downloads."""
    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    filename = file_name or os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        _offline(f"download {url}", f"Place the file at {cached} and it will be loaded from there.")
    return _load(cached, map_location=map_location, weights_only=weights_only)
