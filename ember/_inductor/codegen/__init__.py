"""Source generation: ``kernel`` (one fused group as a Numba loop nest and as NumPy array code)
and ``wrapper`` (the Python function running a graph's schedule)."""
