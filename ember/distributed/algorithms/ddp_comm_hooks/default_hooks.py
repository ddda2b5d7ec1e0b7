"""The stock DDP communication hooks: averaging all-reduce, optionally compressed to 16 bits.

Each takes ``(process_group, bucket)`` (``process_group`` None means the default group) and returns a
``Future`` whose value is the averaged flat gradient tensor of the bucket.

Example (inside an initialised world, ``ddp`` a DistributedDataParallel)::

    ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
"""
from __future__ import annotations

from .... import _dtype as D
from ... import _world
from ..._collectives import all_reduce

__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook", "fp16_compress_wrapper",
           "bf16_compress_wrapper"]


def _group(process_group):
    return _world.resolve(process_group)


def _allreduce_average(process_group, tensor):
    """Divide ``tensor`` by the group size and all-reduce it (SUM) asynchronously; a Future of it."""
    group = process_group if process_group is not None else None
    tensor.div_(_group(group).size())
    work = all_reduce(tensor, group=group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group, bucket):
    """Average the bucket over the group with one all-reduce (DDP's default behaviour)."""
    return _allreduce_average(process_group, bucket.buffer())


def _copied_back(fut, buffer):
    """A Future of ``buffer`` after the (low-precision) result of ``fut`` is copied into it."""
    def decompress(fut):
        buffer.copy_(fut.value())
        return buffer
    return fut.then(decompress)


def _compress_hook(dtype):
    def hook(process_group, bucket):
        buffer = bucket.buffer()
        compressed = buffer.to(dtype)
        return _copied_back(_allreduce_average(process_group, compressed), buffer)
    return hook


fp16_compress_hook = _compress_hook(D.float16)
fp16_compress_hook.__name__ = fp16_compress_hook.__qualname__ = "fp16_compress_hook"
fp16_compress_hook.__doc__ = "Cast the bucket to float16, average it over the group, cast back in place."
bf16_compress_hook = _compress_hook(D.bfloat16)
bf16_compress_hook.__name__ = bf16_compress_hook.__qualname__ = "bf16_compress_hook"
bf16_compress_hook.__doc__ = "Cast the bucket to bfloat16, average it over the group, cast back in place."


def _compress_wrapper(dtype):
    def wrapper(hook):
        def wrapped(state, bucket):
            buffer = bucket.buffer()
            bucket.set_buffer(buffer.to(dtype))
            return _copied_back(hook(state, bucket), buffer)
        return wrapped
    return wrapper


fp16_compress_wrapper = _compress_wrapper(D.float16)
fp16_compress_wrapper.__doc__ = "Wrap a comm hook so it communicates the bucket in float16."
bf16_compress_wrapper = _compress_wrapper(D.bfloat16)
bf16_compress_wrapper.__doc__ = "Wrap a comm hook so it communicates the bucket in bfloat16."
