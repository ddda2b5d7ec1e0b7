"""An ``ember.fx`` GraphModule as a TensorBoard GraphDef (tensorboardX's protobuf classes)."""
from __future__ import annotations

__all__ = ["graph_def"]


def _target_name(node) -> str:
    t = node.target
    if isinstance(t, str):
        return t
    return getattr(t, "__qualname__", None) or getattr(t, "__name__", None) or str(t)


def graph_def(gm):
    """One NodeDef per fx node: op = opcode/target, inputs = the nodes it reads, scoped by module path."""
    from tensorboardX.proto.attr_value_pb2 import AttrValue
    from tensorboardX.proto.graph_pb2 import GraphDef
    from tensorboardX.proto.node_def_pb2 import NodeDef
    from tensorboardX.proto.versions_pb2 import VersionDef

    def scoped(node):
        if node.op == "call_module":
            return f"{node.target.replace('.', '/')}/{node.name}"
        return node.name

    names = {n: scoped(n) for n in gm.graph.nodes}
    nodes = []
    for n in gm.graph.nodes:
        op = n.op if n.op in ("placeholder", "output", "get_attr") else _target_name(n)
        if n.op == "call_module":
            op = type(gm.get_submodule(n.target)).__name__
        meta = n.meta.get("tensor_meta") if hasattr(n, "meta") else None
        attr = {"attr": AttrValue(s=f"{n.op}: {_target_name(n)}".encode())}
        if meta is not None and hasattr(meta, "shape"):
            attr["_output_shapes"] = AttrValue(s=str(tuple(meta.shape)).encode())
        nodes.append(NodeDef(name=names[n], op=op, input=[names[a] for a in n.all_input_nodes],
                             attr=attr))
    return GraphDef(node=nodes, versions=VersionDef(producer=22))
