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
    face.write_text('"""A face."""\nfrom scratchpad_lab.engine.run.recorder import TraceRecorder\n\n'
                    '__all__ = ["TraceRecorder"]\n')
    assert _is_face(face)
    for body in ("def helper():\n    return 1\n", "X = 3\n", "from scratchpad_lab.engine.run.recorder import *\n",
                 "import os\n", "class Thing:\n    pass\n"):
        face.write_text('"""Not a face."""\nfrom scratchpad_lab.engine.run.recorder import TraceRecorder\n' + body)
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


# ── the door (issue 28, item 1): ui/ and cli/ reach the engine through engine/tasks ─────────────────────

# What ui/ and cli/ may import from the engine: the door, the job they start or run, and the strategy
# registry (the names and titles they display). Everything else of the engine is behind the door.
DOOR = {"scratchpad_lab.engine.tasks", "scratchpad_lab.engine.jobs", "scratchpad_lab.engine.strategies.registry"}
MOST_ENGINE_MODULES = 4


def _engine_imports(layer: str):
    """{module under `layer`: the engine modules it imports} (a lazy import in a function counts too)."""
    graph = _graph()
    return {m: {t for t in targets if _layer(t) == "engine"} for m, targets in graph.items() if _layer(m) == layer}


def test_ui_and_cli_import_from_the_engine_only_the_door():
    for layer in ("ui", "cli"):
        found = _engine_imports(layer)
        behind = sorted(f"{m} -> {t}" for m, targets in found.items() for t in targets if t not in DOOR)
        assert behind == [], (f"{layer}/ reaches behind the door (use engine.tasks; add a re-export there if a page "
                              f"or a command needs a name):\n" + "\n".join(behind))
        used = set().union(*found.values())
        assert len(used) <= MOST_ENGINE_MODULES, (layer, sorted(used))


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            yield func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def test_no_page_module_builds_a_job():
    """A page starts the job a task returns; it never builds one (a Job, or a Run or Matrix, which are jobs)."""
    built = [f"{name}: {call}(...)" for name, path in _modules() if _layer(name) == "ui"
             for call in _calls(path) if call in ("Job", "Run", "Matrix")]
    assert built == [], "built in ui/ instead of by a task in engine/tasks:\n" + "\n".join(built)


def test_the_layer_checks_see_a_page_reaching_behind_the_door(tmp_path):
    page = tmp_path / "page.py"
    page.write_text("def start():\n    from scratchpad_lab.engine.run.runner import Run\n    return Run(None)\n")
    assert list(_imports("scratchpad_lab.ui.page", page)) == ["scratchpad_lab.engine.run.runner",
                                                              "scratchpad_lab.engine.run.runner.Run"]
    assert "Run" in list(_calls(page))


def _printed_by_fresh_python(code: str):
    """What `code`, run in a new Python with this checkout's src on its path, printed as JSON on its last line."""
    import json
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(SRC.parent) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_door_names_every_task_and_imports_no_room_until_one_is_used():
    code = ("import json, sys; import scratchpad_lab.engine.tasks as door; "
            "before = sorted(m for m in sys.modules if m.startswith('scratchpad_lab.engine')); "
            "missing = [n for n in door.__all__ if getattr(door, n, None) is None]; "
            "print(json.dumps([before, missing, sorted(door.__all__)]))")
    before, missing, names = _printed_by_fresh_python(code)
    assert before == ["scratchpad_lab.engine", "scratchpad_lab.engine.tasks"]  # the first page stays cheap
    assert missing == []
    for task in ("run", "replay", "compare", "sweep", "strategies", "recommend", "open_point", "compression_off",
                 "replay_trace", "prompt_matrix", "import_file"):
        assert task in names


def test_no_private_name_is_imported_across_modules_in_src():
    """A module's `_private` names are its own: what another module needs is public (issue 43: the benchmark and
    the decide study imported the recommender's `_context` and `_run_point`, two pages their own `_secrets`)."""
    crossing = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("scratchpad_lab"):
                crossing += [f"{path.relative_to(SRC)}:{node.lineno} {node.module}.{a.name}" for a in node.names
                             if a.name.startswith("_") and not a.name.startswith("__")]
    assert crossing == [], crossing


WINGS = ("run", "summarize", "net", "files", "importers", "strategies", "studies", "cells", "store", "tasks")


def test_the_engine_is_wings_a_newcomer_can_see_and_no_file_name_is_used_twice():
    """engine/ holds only its wings (each a folder whose face says what it owns and names its public names) and the job
    and limit modules; no two files in src/ share a name, so a name leads to one file."""
    loose = sorted(p.name for p in SRC.joinpath("engine").glob("*.py") if p.name != "__init__.py")
    assert loose == ["jobs.py", "limits.py"], loose
    folders = sorted(p.name for p in SRC.joinpath("engine").iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == sorted(WINGS), folders
    for wing in WINGS:
        face = SRC / "engine" / wing / "__init__.py"
        tree = ast.parse(face.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"engine/{wing}/__init__.py says what the wing owns"
    names: dict = {}
    for path in SRC.rglob("*.py"):
        if path.name != "__init__.py":
            names.setdefault(path.name, []).append(str(path.relative_to(SRC)))
    assert {n: p for n, p in names.items() if len(p) > 1} == {}


LAZY_FACES = ("run", "summarize", "net", "files", "studies", "cells")  # the others import their names eagerly


def _used_from_outside(wing: str) -> set:
    """Every name a module outside `wing` (src, pages, app.py) imports from one of the wing's modules."""
    package, used = f"scratchpad_lab.engine.{wing}", set()
    outside = [p for p in SRC.rglob("*.py") if not p.is_relative_to(SRC / "engine" / wing)]
    for path in outside + sorted(SRC.parents[1].joinpath("pages").glob("*.py")) + [SRC.parents[1] / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package + "."):
                used |= {a.name for a in node.names}
    return used


def test_each_wing_face_names_its_public_names_and_imports_none_until_asked():
    """A wing's face names what the rest of the lab takes from it (issue 43: not only its modules), each name
    resolving to its module's object, and importing the face imports none of its modules (the first page stays
    cheap)."""
    for wing in LAZY_FACES:
        code = (f"import json, sys; import scratchpad_lab.engine.{wing} as face; "
                f"before = sorted(m for m in sys.modules if m.startswith('scratchpad_lab.engine.{wing}.')); "
                "import importlib; "
                "wrong = [n for n in face.__all__ if getattr(face, n) is not "
                "getattr(importlib.import_module(face.__name__ + '.' + face._HOMES[n]), n)]; "
                "print(json.dumps([before, wrong, face.__all__]))")
        before, wrong, names = _printed_by_fresh_python(code)
        assert before == [] and wrong == [], (wing, before, wrong)
        assert _used_from_outside(wing) <= set(names), (wing, sorted(_used_from_outside(wing) - set(names)))


def test_every_name_of_the_door_resolves_to_its_real_type_for_a_checker():
    """The door resolves its names at first use (the first page stays light), and its TYPE_CHECKING block gives a
    checker and an editor each name from its real module: mypy reveals no name of it as Any, and the block names
    exactly what the runtime tables do."""
    import importlib
    import tempfile

    from mypy import api

    door = importlib.import_module("scratchpad_lab.engine.tasks")
    tree = ast.parse((SRC / "engine" / "tasks" / "__init__.py").read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    typed = {a.asname or a.name: (node.module, a.name) for node in block.body if isinstance(node, ast.ImportFrom)
             for a in node.names}
    runtime = {**{name: (module, name) for name, module in door._TASKS.items()}, **door._ROOMS}
    assert typed == runtime
    names = sorted(door.__all__)
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "probe.py"
        probe.write_text("import scratchpad_lab.engine.tasks as door\n" + "".join(f"reveal_type(door.{n})\n" for n in names))
        out, err, code = api.run([str(probe), "--config-file", str(SRC.parents[1] / "pyproject.toml"),
                                  "--no-incremental"])
    revealed = [line.split("Revealed type is ", 1)[1] for line in out.splitlines() if "Revealed type is " in line]
    assert code == 0 and len(revealed) == len(names), out + err
    assert [n for n, t in zip(names, revealed) if t == '"Any"'] == []


def test_no_request_field_of_the_door_is_typed_any():
    """Every request a page or the CLI builds names what each field holds (a RunRecord or a Trace, a SummarizerChoice,
    an ExecutorChoice, ...), so a checker catches a page passing the wrong thing; settings maps may hold Any values."""
    import dataclasses
    import importlib

    door = importlib.import_module("scratchpad_lab.engine.tasks")
    requests = {name: getattr(door, name) for name in door.__all__ if name.endswith("Request")}
    assert len(requests) >= 10
    loose = [f"{name}.{f.name}" for name, cls in requests.items() if dataclasses.is_dataclass(cls)
             for f in dataclasses.fields(cls) if str(f.type).replace(" ", "") in ("Any", "Optional[Any]")]
    assert loose == []
