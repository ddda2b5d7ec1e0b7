"""``ember.utils.tensorboard``: SummaryWriter writing real TensorBoard event files through the
tensorboardX package (install the ``tensorboard`` extra: ``pip install ember[tensorboard]``).

Example:
    >>> import ember, tempfile
    >>> from ember.utils.tensorboard import SummaryWriter
    >>> with SummaryWriter(tempfile.mkdtemp()) as w:
    ...     w.add_scalar("loss", ember.tensor(0.5), 1)
"""
from .writer import SummaryWriter

__all__ = ["SummaryWriter"]
