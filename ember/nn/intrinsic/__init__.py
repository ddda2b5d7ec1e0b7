"""``torch.nn.intrinsic``: the legacy alias of ``torch.ao.nn.intrinsic``."""
from ...ao.nn.intrinsic import *  # noqa: F401,F403
from ...ao.nn.intrinsic import __all__, qat, quantized  # noqa: F401
