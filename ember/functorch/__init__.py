"""torch's ``functorch`` package path: ``functorch.compile`` holds the AOT autograd entry points,
``functorch.dim`` first-class dimensions."""
