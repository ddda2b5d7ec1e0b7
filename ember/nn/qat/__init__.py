"""``torch.nn.qat``: the legacy alias of ``torch.ao.nn.qat``."""
from ...ao.nn.qat import *  # noqa: F401,F403
from ...ao.nn.qat import __all__  # noqa: F401
