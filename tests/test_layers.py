"""The dependency rule: a module imports only from its own layer or lower ones (see ARCHITECTURE.md).

Every module under ember/ is parsed with ``ast``; every import (module level or inside a function,
except those under ``if TYPE_CHECKING:``) that reaches another ember module is an edge, and an edge
to a higher layer fails, naming both files. A file missing from the table fails too. Within a layer
there are no cycles either: importing ``pkg.mod`` also runs ``pkg/__init__.py``, so that is an edge
too (from files outside ``pkg``), and function-local imports count like the others.
"""
from __future__ import annotations

import ast
import fnmatch
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "ember"
ROOF = 99  # ember/__init__.py: the namespace, above everything

# (pattern relative to ember/, layer); the first matching pattern wins
LAYERS = [
    ("__init__.py", ROOF), ("_exports.py", ROOF),  # _exports: the namespace's generated re-exports
    ("examples/*", ROOF),  # runnable examples use the whole ember.* namespace
    # the import torch -> ember alias serves the whole namespace
    ("_torch_alias.py", ROOF), ("run.py", ROOF), ("_alias_path/*", ROOF),
    # L0 core values
    ("_dtype.py", 0), ("_dtype_complex32.py", 0), ("_device.py", 0), ("_shape.py", 0), ("_storage.py", 0), ("_errors.py", 0),
    ("_threads.py", 0), ("_compiling.py", 0), ("torch_version.py", 0), ("version.py", 0),
    ("utils/__init__.py", 0), ("utils/hooks.py", 0), ("utils/_pytree.py", 0), ("_blas_env.py", 0),
    ("_dtype_scalar.py", 0), ("_mode_names.py", 0),
    # L1 operator definitions
    ("_primitives/*", 1), ("backends/*", 1),
    # L2 tensor + autograd
    ("autograd/*", 2), ("_tensor_base.py", 2), ("_dispatch.py", 2), ("_dispatch_inplace.py", 2), ("overrides.py", 2),
    ("_tensor_methods/*", 2), ("_tensor.py", 2), ("_creation.py", 2), ("_indexing*.py", 2),
    ("_tensor_str.py", 2), ("_tensor_pickle.py", 2), ("_dlpack.py", 2), ("random.py", 2),
    ("utils/_python_dispatch.py", 2),
    # L3 the torch.* surface
    ("_C.py", 3), ("types.py", 3), ("_checks.py", 3),  # torch._C's pieces (some are overrides' context managers), torch.types, torch._check*
    ("serialization.py", 3), ("_serialization/*", 3),
    ("testing/*", 3), ("utils/safetensors.py", 3), ("accelerator.py", 3),
    ("linalg/*", 3), ("special/*", 3), ("fft/*", 3), ("_legacy.py", 3), ("func/*", 3),
    ("jit/*", 3), ("onnx/*", 3), ("_window.py", 3), ("_global_flags.py", 3),
    ("_quantized/kernels.py", 4), ("_quantized/_int8_kernels.py", 0), ("_quantized/*", 3),  # quantized tensors; kernels use nn.functional
    ("ao/*", 6), ("quantization/*", 6), ("nn/quantized/*", 6), ("nn/intrinsic/*", 6), ("nn/qat/*", 6),
    ("_creation_interop.py", 3),
    ("ops/*", 3), ("library.py", 3), ("_library/*", 3), ("_custom_ops.py", 3),
    # L8 before L4 so nn/parallel is not taken for nn
    ("nn/parallel/*", 8), ("distributed/*", 8), ("multiprocessing/*", 8),
    # L4 nn
    ("nn/*", 4),
    # L5 peers
    ("optim/*", 5), ("utils/data/*", 5), ("amp/*", 5), ("cuda/*", 5), ("cpu/*", 5),
    ("distributions/*", 5), ("utils/checkpoint.py", 5), ("hub.py", 5), ("utils/model_zoo.py", 5),
    ("utils/tensorboard/*", 6),  # add_graph traces with fx
    # L6, L7
    # the kernel cache and settings serve ember.optim's fused kernels too
    ("_inductor/__init__.py", 5), ("_inductor/config.py", 5), ("_inductor/codecache.py", 5),
    ("_inductor/metrics.py", 5),
    ("fx/*", 6), ("_dynamo/*", 7), ("_inductor/*", 7),
    ("_functorch/*", 7), ("functorch/dim/*", 4), ("functorch/*", 7),  # dim: composites over nn.functional
]

# optional heavy dependencies imported lazily inside functions; they are outside ember anyway
LAZY_EXTERNAL = ("numba", "mpi4py", "scipy")
FORBIDDEN = ("torch",)


def layer_of(rel: str):
    for pattern, layer in LAYERS:
        if fnmatch.fnmatch(rel, pattern):
            return layer
    return None


def _modules() -> list:
    return sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.py"))


def _module_name(rel: str) -> str:
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["ember"] + parts)


def _file_of(module: str):
    """The file under ember/ a dotted module name refers to, or None (not part of ember)."""
    if module != "ember" and not module.startswith("ember."):
        return None
    rel = module.split(".")[1:]
    base = ROOT.joinpath(*rel) if rel else ROOT
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py").relative_to(ROOT).as_posix()
    if (base / "__init__.py").is_file():
        return (base / "__init__.py").relative_to(ROOT).as_posix()
    return None


class _Imports(ast.NodeVisitor):
    """Collects (lineno, absolute module, imported names) outside ``if TYPE_CHECKING:`` blocks."""

    def __init__(self, package: str):
        self.package = package
        self.found = []

    def visit_If(self, node):
        test = node.test
        name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
        if name == "TYPE_CHECKING":
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            self.found.append((node.lineno, alias.name, ()))

    def visit_ImportFrom(self, node):
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - node.level + 1]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module
        self.found.append((node.lineno, module, tuple(a.name for a in node.names)))


def _edges(rel: str) -> tuple:
    """(lineno, target file or external module name) for every import in one file."""
    return _edges_cached(rel, ROOT)


@functools.lru_cache(maxsize=None)
def _edges_cached(rel: str, root: Path) -> tuple:
    return tuple(_parse_edges(rel, root))


def _parse_edges(rel: str, root: Path):
    source = (root / rel).read_text()
    tree = ast.parse(source, filename=rel)
    name = _module_name(rel)
    package = name if rel.endswith("__init__.py") else name.rpartition(".")[0]
    visitor = _Imports(package)
    visitor.visit(tree)
    for lineno, module, names in visitor.found:
        target = _file_of(module)
        if target is None:
            yield lineno, module
            continue
        subs = [_file_of(f"{module}.{n}") for n in names]
        subs = [s for s in subs if s is not None]
        # `from pkg import submodule` is an edge to the submodule; other names come from pkg itself
        if subs:
            yield from ((lineno, s) for s in subs)
            if len(subs) < len(names):
                yield lineno, target
        else:
            yield lineno, target


def test_layer_table_lists_each_pattern_once():
    patterns = [p for p, _ in LAYERS]
    assert sorted({p for p in patterns if patterns.count(p) > 1}) == []


def test_every_file_is_in_the_layer_table():
    unknown = [rel for rel in _modules() if layer_of(rel) is None]
    assert not unknown, ("these files are in no layer; add them to LAYERS in tests/test_layers.py "
                         f"(and to docs/design.md): {unknown}")


def test_no_upward_imports():
    problems = []
    for rel in _modules():
        src_layer = layer_of(rel)
        if src_layer is None:
            continue
        for lineno, target in _edges(rel):
            if not target.endswith(".py"):  # an external module
                top = target.split(".")[0]
                if top in FORBIDDEN:
                    problems.append(f"ember/{rel}:{lineno} imports {target} (ember never imports torch)")
                continue
            dst_layer = layer_of(target)
            if dst_layer is None or target == rel:
                continue
            if dst_layer > src_layer:
                problems.append(f"ember/{rel}:{lineno} (L{src_layer}) imports ember/{target} "
                                f"(L{dst_layer if dst_layer != ROOF else ' roof'})")
    assert not problems, "upward imports:\n" + "\n".join(problems)


def import_graph() -> dict:
    """file -> {imported file: line}, with the package ``__init__`` files an import runs first."""
    graph = {}
    for rel in _modules():
        out = graph.setdefault(rel, {})
        for lineno, target in _edges(rel):
            if not target.endswith(".py") or target == rel:
                continue
            out.setdefault(target, lineno)
            parts = target.split("/")[:-1]
            for k in range(1, len(parts) + 1):  # ember/__init__.py (the roof) is not an edge
                pkg = "/".join(parts[:k])
                if not rel.startswith(pkg + "/"):  # a package's own files run after its __init__
                    out.setdefault(pkg + "/__init__.py", lineno)
    return graph


def find_cycle(graph: dict):
    """One import cycle as a list of files (first == last), or None (iterative DFS, 3 colours)."""
    state, parent = {}, {}
    for root in graph:
        if root in state:
            continue
        stack = [(root, iter(graph.get(root, ())))]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            for child in children:
                if state.get(child) == 1:  # back edge: a cycle child -> ... -> node -> child
                    cycle, at = [child], node
                    while at != child:
                        cycle.append(at)
                        at = parent[at]
                    return [child] + cycle[:0:-1] + [child]
                if child not in state:
                    state[child], parent[child] = 1, node
                    stack.append((child, iter(graph.get(child, ()))))
                    break
            else:
                state[node] = 2
                stack.pop()
    return None


def test_no_import_cycles():
    graph = import_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(
        f"ember/{a} (line {graph[a][b]})" for a, b in zip(cycle, cycle[1:])) + f" -> ember/{cycle[-1]}"


def test_cycle_finder_sees_package_init_and_function_local_imports():
    graph = {"a/x.py": {"b/y.py": 1, "b/__init__.py": 1}, "b/__init__.py": {"b/z.py": 2},
             "b/z.py": {"a/x.py": 3}, "b/y.py": {}}
    assert find_cycle(graph) == ["a/x.py", "b/__init__.py", "b/z.py", "a/x.py"]
    assert find_cycle({"a.py": {"b.py": 1}, "b.py": {}}) is None
    v = _Imports("ember")
    v.visit(ast.parse("def f():\n    from ._tensor import Tensor\n"))
    assert [m for _, m, _ in v.found] == ["ember._tensor"]


@pytest.mark.parametrize("rel,expected", [("_primitives/pointwise.py", 1), ("nn/parallel/data_parallel.py", 8),
                                          ("nn/modules/linear.py", 4), ("_indexing_advanced.py", 2),
                                          ("utils/data/dataloader.py", 5), ("__init__.py", ROOF)])
def test_layer_table_examples(rel, expected):
    assert layer_of(rel) == expected


def test_checker_sees_function_local_imports(tmp_path):
    code = "def f():\n    from ..nn import Linear\n    import numba\n"
    tree = ast.parse(code)
    v = _Imports("ember._primitives")
    v.visit(tree)
    assert [m for _, m, _ in v.found] == ["ember.nn", "numba"]
    assert _file_of("ember.nn") == "nn/__init__.py"
    assert LAZY_EXTERNAL and layer_of("nn/__init__.py") > layer_of("_primitives/view.py")

# the compiler's namespaces (ember.compile): logging switches at L3, torch.compiler's helpers at L7
LAYERS += [("_logging/*", 3), ("compiler/*", 7)]
# issue 22: torch.signal.windows and torch.masked are composites over the torch.* surface
LAYERS += [("signal/*", 3), ("masked/*", 4)]
LAYERS += [("_householder.py", 3), ("_lowrank.py", 3), ("_torch_forms.py", 3),
           ("_higher_order_ops/*", 3), ("_late_methods.py", 4)]
LAYERS += [("_lobpcg.py", 3)]
LAYERS += [("_linalg_utils.py", 3)]  # issue 22: torch._linalg_utils (removed functions that raise)
LAYERS += [("_sym_utils.py", 0)]  # issue 22: torch.sym_* helpers (pure Python)
