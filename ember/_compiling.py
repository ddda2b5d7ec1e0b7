"""The flag "a capture is running" (``ember.compiler.is_compiling()``), kept at the bottom layer
so that lower layers (optimizers) can take their capture-friendly path without importing the compiler.

Example:
    >>> from ember._compiling import COMPILING
    >>> COMPILING[0]
    0
"""
COMPILING = [0]  # > 0 while ember._dynamo captures a frame
