"""Exceptions of ``ember._dynamo`` (torch's names and bases: all derive from RuntimeError)."""
from __future__ import annotations


class TorchDynamoException(RuntimeError):
    """Base of every compiler error."""


class Unsupported(TorchDynamoException):
    """Capture met something it cannot put in a graph; ``msg`` says what and where."""

    def __init__(self, msg: str):
        super().__init__(msg)
        self.msg = msg
        self.real_stack = []  # user "file:line" frames, innermost last


class InvalidBackend(TorchDynamoException):
    """``backend=`` names no registered backend."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for "
                         "available backends.")


class ShortenTraceback(TorchDynamoException):
    pass


class BackendCompilerFailed(ShortenTraceback):
    """The backend raised while compiling a captured graph; the original error is ``inner_exception``."""

    def __init__(self, backend_fn, inner_exception):
        self.backend_name = getattr(backend_fn, "__name__", "?")
        self.inner_exception = inner_exception
        super().__init__(f"backend={self.backend_name!r} raised:\n"
                         f"{type(inner_exception).__name__}: {inner_exception}")


class RecompileLimitExceeded(Unsupported):
    pass


__all__ = ["TorchDynamoException", "Unsupported", "InvalidBackend", "ShortenTraceback",
           "BackendCompilerFailed", "RecompileLimitExceeded"]
