"""``torch.version``: the API version ember implements and its (absent) accelerator toolkits.

Example:
    >>> import ember.version
    >>> ember.version.cuda is None, ember.version.__version__ >= "2.0"
    (True, True)
"""
from .torch_version import __version__

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

debug = False
cuda = None  # CPU only: libraries read this to decide whether CUDA code paths exist
git_version = "unknown"
hip = None
rocm = None
xpu = None
