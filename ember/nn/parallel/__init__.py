"""``ember.nn.parallel``: DistributedDataParallel (over ``ember.distributed``) and DataParallel.

``DistributedDataParallel`` averages gradients over a process group in overlapped buckets;
``DataParallel`` behaves as torch's on a machine without GPUs: it calls the wrapped module.

Example:
    >>> import ember
    >>> from ember.nn.parallel import DataParallel
    >>> DataParallel(ember.nn.Linear(2, 3))(ember.ones(4, 2)).shape
    torch.Size([4, 3])
"""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
