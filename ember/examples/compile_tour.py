"""A tour of ``ember.compile``: graphs a backend receives, dynamic batch sizes, graph breaks.

Run ``python -m ember.examples.compile_tour``. It trains the quickstart's regression MLP
(10->64->32->1, Adam, MSELoss) with a compiled model and a compiled ``opt.step`` under a custom
backend that prints every graph it is given with ``print_tabular()`` (the forward; the Adam step:
parameters, gradients, state and lr in, the update as ops, ``copy_`` back into the inputs); then calls the compiled model with several batch
sizes (one more graph: after the first size change the batch dim becomes the symbol ``s0``, a
placeholder printed ``s0 : "Sym(s0)"``, and that graph serves every batch size); then prints
``explain()`` of a function with a ``print`` in the middle (two graphs, one break with its
file:line).
"""
from __future__ import annotations

import ember as torch
import ember.nn as nn


def printing_backend(gm, example_inputs):
    """A custom backend: show the graph, then run it as captured."""
    shapes = [tuple(t.shape) if hasattr(t, "shape") else t for t in example_inputs]
    print(f"--- graph with {len(example_inputs)} inputs, shapes {shapes}")
    print(gm.code.strip().splitlines()[0])   # the signature: size symbols show as s0 : "Sym(s0)"
    gm.graph.print_tabular()
    return gm.forward


def main() -> None:
    torch.manual_seed(0)
    x = torch.rand(200, 10)
    y = x @ torch.linspace(-1, 1, 10).unsqueeze(1) + 0.01 * torch.randn(200, 1)
    model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
    cmodel = torch.compile(model, backend=printing_backend)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    step = torch.compile(opt.step, backend=printing_backend)
    loss_fn = nn.MSELoss()
    print("== 1. the model's forward and the Adam step (each compiled once, reused every epoch)")
    for epoch in range(50):
        opt.zero_grad()
        loss = loss_fn(cmodel(x), y)
        loss.backward()
        step()
        if epoch in (0, 49):
            print(f"epoch {epoch:2d} loss {loss.item():.4f}")
    print("== 2. other batch sizes: one more graph, then every size reuses it")
    for b in (7, 13, 31, 64):   # grad mode as in training: a different mode is another graph
        print(f"batch {b}: output {tuple(cmodel(x[:b]).shape)}")
    print("== 3. explain() of a function with a graph break")

    def with_break(t):
        h = model(t).relu()
        print("a print in the middle")
        return h * 2

    print(torch._dynamo.explain(with_break)(x[:4]))


if __name__ == "__main__":
    main()
