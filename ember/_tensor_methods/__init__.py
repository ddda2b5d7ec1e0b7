"""Tensor methods by family (layer L2): mixins with empty ``__slots__`` that ``Tensor`` inherits.

Each method is also the public ``ember.<name>`` function where torch's function and method coincide
(``ember.add is Tensor.add``): one definition, both routes. A method normalises torch's argument forms,
checks ``__torch_function__`` overrides, and calls ``dispatch``.
"""
