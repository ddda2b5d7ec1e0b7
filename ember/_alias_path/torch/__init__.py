"""Placed first on PYTHONPATH by ember's import alias so child processes get ember for ``import torch``.

Never imported by ember itself: importing it installs the alias and replaces this module with ember.
"""
__ember_alias_shim__ = True

import ember._torch_alias as _alias  # noqa: E402

_alias.install_as_torch()  # sys.modules["torch"] is ember from here on; the import returns it
