"""``ember.distributed.nn``: collectives that autograd differentiates (``functional``)."""
from . import functional

__all__ = ["functional"]
