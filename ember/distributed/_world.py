"""The process's distributed state: the default group, every group's ranks, and group lookup.

Example:
    >>> GroupMember.NON_GROUP_MEMBER, group.WORLD is None
    (-100, True)
"""
from __future__ import annotations

import warnings

from ._process_group import ProcessGroup

__all__ = ["GroupMember", "group", "default_group", "resolve", "not_member", "group_rank_of"]


class _State:
    default_pg = None
    store = None
    backend = None
    groups: list = []    # every ProcessGroup this process created (members only)
    inits = 0            # init_process_group calls so far: keys a rendezvous uses are unique per init


state = _State()


class _WorldDescriptor:
    def __get__(self, obj, owner=None):
        return state.default_pg


class GroupMember:
    """``GroupMember.WORLD`` is the default group (None before init); non-members get ``NON_GROUP_MEMBER``."""

    WORLD = _WorldDescriptor()
    NON_GROUP_MEMBER = -100


class group:  # noqa: N801 - torch's name
    """``group.WORLD``: the default process group."""

    WORLD = _WorldDescriptor()


def default_group() -> ProcessGroup:
    if state.default_pg is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return state.default_pg


def resolve(group_) -> ProcessGroup | int:
    """The ProcessGroup a public ``group=`` argument names (None: the default group)."""
    if group_ is None:
        return default_group()
    if group_ == GroupMember.NON_GROUP_MEMBER:
        default_group()
        return group_
    if not isinstance(group_, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup or None, got {type(group_).__name__}")
    return group_


def not_member(pg, name: str) -> bool:
    """True (with torch's warning) when this rank is outside ``pg``: the collective is skipped."""
    if isinstance(pg, ProcessGroup):
        return False
    warnings.warn(f"Running {name} on global rank {state.default_pg.rank()} which does not belong to the "
                  "given group.", stacklevel=3)
    return True


def group_rank_of(pg: ProcessGroup, global_rank: int | None, group_rank: int | None, what: str) -> int:
    """Map torch's ``src``/``dst`` (global) or ``group_src``/``group_dst`` to a rank in ``pg``."""
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError(f"Can not specify both {what} and group_{what}")
        rank = group_rank
    else:
        if global_rank is None:
            global_rank = 0
        if global_rank not in pg._ranks:
            raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
        rank = pg._ranks.index(global_rank)
    if not 0 <= rank < pg.size():
        raise ValueError(f"Group rank {rank} is not part of group {pg} of size {pg.size()}")
    return rank
