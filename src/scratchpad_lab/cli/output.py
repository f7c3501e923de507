"""Where a command writes a file a person named (`--out`, `--trace-out`, `--html`): one home for making its folder
and for the one line said when it cannot be written, so `run`, `replay`, `fork`, `import`, `runs export` and `bench`
say it alike.

The folders before the file are made as `mkdir -p` makes them (`--out out/my-run.json` needs no `mkdir out` first),
and before the work starts, so a path that cannot be written is refused at once, not after a long benchmark. What
cannot be made or written is a UsageError (one line on stderr, exit 2, no traceback) naming the flag, the path and
what to change.
"""
from __future__ import annotations

from pathlib import Path
from typing import Union

from scratchpad_lab.model.errors import UsageError

WHAT_TO_CHANGE = "give a path in a folder you can write to"


def prepare(path: Union[str, Path], flag: str) -> Path:
    """`path`, with the folders before it made; UsageError when it names a folder or a folder cannot be made."""
    target = Path(path)
    if target.is_dir():
        example = target / ("report.html" if flag == "--html" else "run.json")
        raise UsageError(f"{flag} {path} is a folder: give a file's name in it (e.g. {example}).")
    blocking = next((p for p in reversed(target.parents) if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise UsageError(f"{flag} {path}: {blocking} is a file, not a folder; {WHAT_TO_CHANGE}.")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot make the folder {exc.filename or target.parent} "
                         f"({exc.strerror or exc}); {WHAT_TO_CHANGE}.") from None
    return target


def cannot_write(path: Union[str, Path], flag: str, exc: OSError) -> UsageError:
    """The sentence for a write that failed after `prepare` (a full disk, a file without write permission)."""
    return UsageError(f"{flag} {path}: cannot write it ({exc.strerror or exc}); {WHAT_TO_CHANGE}.")


def write_text(path: Union[str, Path], text: str, flag: str) -> None:
    """`text` into `path` (UTF-8), its folders made first; UsageError says what went wrong and what to change."""
    target = prepare(path, flag)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise cannot_write(path, flag, exc) from None
