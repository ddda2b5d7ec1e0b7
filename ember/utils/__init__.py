"""ember.utils: hooks, data (imported lazily), _pytree."""
import importlib as _importlib


def __getattr__(name):
    # ember.utils.data sits in a higher layer and starts no work at `import ember`: load it on first use
    if name == "data":
        return _importlib.import_module(".data", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
