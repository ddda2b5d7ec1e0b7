"""Compiler backends: ``backend(gm: GraphModule, example_inputs: list) -> callable``."""
