"""``ember._logging``: torch._logging's switches for the compiler (``set_logs`` and ``EMBER_LOGS``).

``set_logs(recompiles=True, graph_breaks=True)`` or ``EMBER_LOGS="recompiles,graph_breaks"`` turn on
the matching artifact loggers (``ember._dynamo.<artifact>``, level INFO, printed to stderr unless a
handler is already attached). ``+dynamo`` in EMBER_LOGS sets the ``ember._dynamo`` logger to DEBUG.

Example:
    >>> import ember
    >>> ember._logging.set_logs(recompiles=True)
    >>> ember._logging.set_logs()   # everything back off
"""
from __future__ import annotations

import logging
import os

ARTIFACTS = ("recompiles", "graph_breaks", "guards", "graph_code", "graph", "bytecode",
             "recompiles_verbose", "output_code", "compiled_autograd")
_root = logging.getLogger("ember._dynamo")
_handler = None


def getArtifactLogger(qname: str, artifact: str) -> logging.Logger:
    """The logger that ``set_logs(<artifact>=True)`` enables."""
    return logging.getLogger(f"ember._dynamo.{artifact}")


def _ensure_handler():
    global _handler
    if _handler is None:
        _handler = logging.StreamHandler()
        _handler.setFormatter(logging.Formatter("[%(name)s] %(message)s"))
        _root.addHandler(_handler)


def set_logs(*, dynamo=None, **artifacts) -> None:
    """Turn compiler log artifacts on (True) or off; a call resets artifacts it does not name."""
    unknown = [a for a in artifacts if a not in ARTIFACTS]
    if unknown:
        raise ValueError(f"Unrecognized log artifact(s): {unknown}; valid: {list(ARTIFACTS)}")
    for name in ARTIFACTS:
        on = bool(artifacts.get(name, False))
        logging.getLogger(f"ember._dynamo.{name}").setLevel(logging.INFO if on else logging.WARNING)
    if dynamo is not None:
        _root.setLevel(dynamo if isinstance(dynamo, int) else logging.DEBUG)
    if any(artifacts.values()) or dynamo is not None:
        _ensure_handler()


def _from_env() -> None:
    spec = os.environ.get("EMBER_LOGS", "")
    if not spec:
        return
    kwargs, dyn = {}, None
    for item in filter(None, (s.strip() for s in spec.split(","))):
        if item.lstrip("+-") == "dynamo":
            dyn = logging.DEBUG if item.startswith("+") else logging.INFO
        elif item in ARTIFACTS:
            kwargs[item] = True
    set_logs(dynamo=dyn, **kwargs)


_from_env()

__all__ = ["set_logs", "getArtifactLogger"]
