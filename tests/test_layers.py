"""The package's layers hold: each imports only the layers below it, and no module imports itself back.

Layers from the bottom: model (data) -> analysis (pure functions over events) -> engine (runs packages)
-> ui and cli (on top, side by side; neither imports the other). Read from the source text with `ast`,
so a lazy import inside a function counts as much as one at the top.
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


def test_every_module_lives_in_a_layer_folder():
    loose = [m for m in _graph() if m != "scratchpad_lab" and _layer(m) not in LAYER]
    assert loose == [], f"modules outside the layer folders {sorted(LAYER)}: {loose}"


def test_no_import_runs_from_a_lower_layer_up():
    up = []
    for module, targets in _graph().items():
        here = _layer(module)
        if here not in LAYER:
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
