"""The package's layers hold: each imports only the layers below it, and no module imports itself back.

Layers from the bottom: model (data) -> analysis (pure functions over events) -> engine (runs packages)
-> ui and cli (on top, side by side; neither imports the other). Read from the source text with `ast`,
so a lazy import inside a function counts as much as one at the top.

Outside the layer folders there are only faces: a top-level module that re-exports names for users
(`from scratchpad_lab.record import TraceRecorder`) and defines nothing itself.
"""
import ast
import os
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "scratchpad_lab"
LAYER = {"model": 0, "analysis": 1, "engine": 2, "ui": 3, "cli": 3}


def _modules():
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(["scratchpad_lab", *parts]), path


def _imports(name: str, path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("scratchpad_lab"):
                    yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.startswith("scratchpad_lab"):
                yield mod
                for alias in node.names:  # `from pkg import module`
                    yield f"{mod}.{alias.name}"


def _graph():
    modules = dict(_modules())
    graph = {}
    for name, path in modules.items():
        graph[name] = {m for m in _imports(name, path) if m in modules and m != name}
    return graph


def _layer(module: str):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _is_face(path: Path) -> bool:
    """Only a docstring, imports from the package's layers, and `__all__`: it re-exports, it defines nothing."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("scratchpad_lab.") \
                and _layer(node.module) in LAYER and not any(a.name == "*" for a in node.names):
            continue
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            continue
        return False
    return True


def _faces():
    return {m for m, path in _modules() if m.count(".") == 1 and _layer(m) not in LAYER and _is_face(path)}


def test_every_module_lives_in_a_layer_folder():
    faces = _faces()
    loose = [m for m in _graph() if m != "scratchpad_lab" and _layer(m) not in LAYER and m not in faces]
    assert loose == [], (f"modules outside the layer folders {sorted(LAYER)} that are not faces (a face only "
                         f"re-exports from the layers): {loose}")


def test_a_face_is_recognised_only_when_it_defines_nothing(tmp_path):
    face = tmp_path / "face.py"
    face.write_text('"""A face."""\nfrom scratchpad_lab.engine.recorder import TraceRecorder\n\n'
                    '__all__ = ["TraceRecorder"]\n')
    assert _is_face(face)
    for body in ("def helper():\n    return 1\n", "X = 3\n", "from scratchpad_lab.engine.recorder import *\n",
                 "import os\n", "class Thing:\n    pass\n"):
        face.write_text('"""Not a face."""\nfrom scratchpad_lab.engine.recorder import TraceRecorder\n' + body)
        assert not _is_face(face), body
    assert "scratchpad_lab.record" in _faces()


def test_no_import_runs_from_a_lower_layer_up():
    up = []
    faces = _faces()
    for module, targets in _graph().items():
        here = _layer(module)
        if here not in LAYER:
            assert module in faces or module == "scratchpad_lab", module
            continue
        for target in targets:
            there = _layer(target)
            if there in LAYER and there != here and LAYER[there] >= LAYER[here]:
                up.append(f"{module} -> {target}")
    assert up == [], "imports that run up (or sideways between ui and cli):\n" + "\n".join(sorted(up))


def test_the_import_graph_has_no_circle():
    graph = _graph()
    # a package's __init__ importing its own submodules is its face, not a circle
    def edges(m):
        return {t for t in graph[m] if not t.startswith(m + ".")}
    state, circles = {}, []

    def visit(m, stack):
        state[m] = 1
        stack.append(m)
        for t in sorted(edges(m)):
            if state.get(t) == 1:
                circles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    assert circles == [], "import circles:\n" + "\n".join(" -> ".join(c) for c in circles)
