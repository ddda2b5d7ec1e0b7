"""ember.utils.data: datasets, samplers and the DataLoader (torch.utils.data's API).

Example:
    >>> import ember
    >>> from ember.utils.data import DataLoader, TensorDataset
    >>> next(iter(DataLoader(TensorDataset(ember.arange(4)), batch_size=4)))
    [tensor([0, 1, 2, 3])]
"""
from __future__ import annotations

from . import _utils, dataloader, dataset, distributed, sampler  # noqa: F401
from ._utils.collate import default_collate, default_convert
from ._utils.worker import get_worker_info
from .dataloader import DataLoader, _DatasetKind  # noqa: F401
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,
                      TensorDataset, random_split)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "default_collate",
           "default_convert", "get_worker_info", "random_split"]
