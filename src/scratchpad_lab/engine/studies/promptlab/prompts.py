"""Prompt lab: the library of starting prompts (data/prompts/, one text file each) and the plain-language
prompt check (with fixes).

Streamlit-free."""

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Dict, List, Optional, Union

from pydantic import BaseModel, ConfigDict, StringConstraints

from scratchpad_lab.model.config import (ConfigError, MAX_PROMPT_CHARS, PACKAGE_PROMPT, PROMPT_PLACEHOLDERS,
                                         prompt_too_long, validate_prompt_template)
from scratchpad_lab.model.datafile import DataFileError, check


MAX_PROMPTS = 4
MAX_SUMMARIZERS = 3
PER_ENDPOINT = 4  # concurrent calls per endpoint: within what hosted APIs and local servers take


def prompt_from_upload(file_name: str, raw: bytes) -> "tuple[str, str]":
    """An uploaded prompt file as (its name, its text), held to the one prompt limit (MAX_PROMPT_CHARS);
    ConfigError saying what to change when it is not plain UTF-8 text or is too long."""
    if len(raw) > 4 * MAX_PROMPT_CHARS:  # more bytes than any prompt within the limit: not decoded at all
        raise ConfigError(f"That file is {len(raw):,} bytes; a prompt may be at most {MAX_PROMPT_CHARS:,} "
                          "characters. Nothing was added: shorten it and upload it again.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("That file could not be read as plain UTF-8 text; nothing was added. Save the prompt "
                          "as a plain .txt file and upload it again.") from None
    too_long = prompt_too_long(text)
    if too_long:
        raise ConfigError(f"{too_long} Nothing was added.")
    return file_name.rsplit(".", 1)[0][:60] or "uploaded prompt", text


# ── the prompt library ──────────────────────────────────────────────────────────────────────────
# The package's own prompt first, read from autourgos_summarizer (never a copy); then one text file per
# prompt in data/prompts/, in file-name order: a header of `name:` and `description:` lines, a line
# `---`, and the prompt itself, exactly as it is sent.

PROMPTS_DIR = Path(__file__).resolve().parents[3] / "data" / "prompts"
PACKAGE_PROMPT_NAME = "Package default"
HEADER_END = "---"


class _PromptHeader(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
    description: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=400)]


@dataclass(frozen=True)
class LibraryPrompt:
    name: str
    description: str
    text: str
    source: str  # where it comes from: "autourgos_summarizer" or the file's path


def read_prompt_file(path: Union[str, Path]) -> LibraryPrompt:
    """One prompt file, checked: DataFileError names the file and the field (name, description, text)."""
    try:
        content = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DataFileError(path, "", "is not UTF-8 text; save it as UTF-8.") from None
    except OSError as exc:
        raise DataFileError(path, "", f"cannot be read ({exc.strerror}).") from None
    head, sep, text = content.partition("\n" + HEADER_END + "\n")
    if not sep:
        raise DataFileError(path, "", f"has no header: start it with `name: ...` and `description: ...` "
                                      f"lines, then a line `{HEADER_END}`, then the prompt.")
    fields = {}
    for number, line in enumerate(head.splitlines(), 1):
        key, colon, value = line.partition(":")
        if not line.strip():
            continue
        if not colon:
            raise DataFileError(path, f"header line {number}", "is not `key: value`; write `name: ...` or "
                                                             "`description: ...`.")
        fields[key.strip()] = value.strip()
    header = check(_PromptHeader, fields, path)
    if header.name == PACKAGE_PROMPT_NAME:
        raise DataFileError(path, "name", f"{PACKAGE_PROMPT_NAME!r} is the package's own prompt; give this "
                                          "one another name.")
    if len(text) > MAX_PROMPT_CHARS:
        raise DataFileError(path, "text", f"the prompt is {len(text):,} characters; the limit is "
                                          f"{MAX_PROMPT_CHARS:,}. Shorten it.")
    try:
        validate_prompt_template(text)
    except ConfigError as exc:
        raise DataFileError(path, "text", str(exc).replace("summarizer_prompt", "the prompt", 1)) from None
    return LibraryPrompt(header.name, header.description, text, str(path))


def load_library(folder: Union[str, Path] = PROMPTS_DIR) -> List[LibraryPrompt]:
    """The package's prompt, then every `*.txt` of `folder` in name order; DataFileError on a bad one."""
    library = [LibraryPrompt(PACKAGE_PROMPT_NAME, "The prompt autourgos_summarizer sends when none is "
                             "given, read from the package.", PACKAGE_PROMPT, "autourgos_summarizer")]
    for path in sorted(Path(folder).glob("*.txt")):
        item = read_prompt_file(path)
        if item.name in [p.name for p in library]:
            raise DataFileError(path, "name", f"another prompt is named {item.name!r}; rename one of them.")
        library.append(item)
    return library


LIBRARY: List[LibraryPrompt] = load_library()
PROMPT_LIBRARY: Dict[str, str] = {p.name: p.text for p in LIBRARY}  # name -> the prompt, as the pages pick them


PLACEHOLDER_HELP = {
    "scratchpad": "the agent's notes being compressed (required: without it the summarizer sees nothing)",
    "query": "the task the agent was given",
    "iteration": "how many steps the agent has done when the compression happens",
}
_SYNONYMS = {"task": "query", "question": "query", "goal": "query", "prompt": "query",
             "step": "iteration", "steps": "iteration", "n": "iteration", "iterations": "iteration",
             "context": "scratchpad", "notes": "scratchpad", "text": "scratchpad", "history": "scratchpad",
             "memory": "scratchpad", "input": "scratchpad"}
_BRACED = re.compile(r"\{([^{}\n]{0,60})\}")


@dataclass
class PromptCheck:
    """What a person's prompt will do, in plain words. `template` is what runs (None: it cannot run
    yet); `fix` is a corrected prompt the page offers with one click."""

    text: str
    template: Optional[str]
    problems: List[str] = field(default_factory=list)   # must change before it can run
    notes: List[str] = field(default_factory=list)      # runs, but probably not as meant
    fix: Optional[str] = None
    fix_label: str = ""

    @property
    def ok(self) -> bool:
        return self.template is not None


def literal_template(text: str) -> str:
    """The template that sends `text` with every brace literal except the three placeholders."""
    out, pos = [], 0
    for m in re.finditer(r"\{(query|iteration|scratchpad)\}", text):
        out.append(text[pos:m.start()].replace("{", "{{").replace("}", "}}"))
        out.append(m.group(0))
        pos = m.end()
    out.append(text[pos:].replace("{", "{{").replace("}", "}}"))
    return "".join(out)


def _closest(name: str) -> Optional[str]:
    low = name.strip().lower().replace(" ", "_")
    if low in _SYNONYMS:
        return _SYNONYMS[low]
    match = difflib.get_close_matches(low, PROMPT_PLACEHOLDERS, n=1, cutoff=0.6)
    return match[0] if match else None


def check_prompt(text: str) -> PromptCheck:
    """Validate a prompt with the package's rule (config.validate_prompt_template) and say in plain
    words what it will do and how to fix it. A prompt that the rule accepts runs as written; any other cannot
    run, here as in the Playground (unknown {names}, no {scratchpad}), and the fix offered is one it accepts."""
    if not text.strip():
        return PromptCheck(text, None, ["The prompt is empty. Start from one of the library's prompts."],
                           fix=PACKAGE_PROMPT, fix_label="Start from the package's prompt")
    if prompt_too_long(text):
        return PromptCheck(text, None, [prompt_too_long(text)])
    try:
        return PromptCheck(text, validate_prompt_template(text))
    except ConfigError as exc:
        refused = str(exc)
    # What the rule refuses, the lab refuses too (the Playground would refuse it next): the rule's sentence,
    # the notes in plain words, and a fix that the rule accepts.
    check = PromptCheck(text, None)
    fixed = text
    unknown = [m for m in _BRACED.finditer(text) if m.group(1) not in PROMPT_PLACEHOLDERS]
    renames = {}
    for m in unknown:
        shown = m.group(0)
        target = _closest(m.group(1))
        if target and target not in renames.values():
            renames[shown] = "{" + target + "}"
            check.notes.append(f"{shown} is not a word the lab fills in. Did you mean {{{target}}}, "
                               f"{PLACEHOLDER_HELP[target].split(' (')[0]}?")
        else:
            renames[shown] = "{" + shown + "}"  # {{name}} sends the text {name} as written
            check.notes.append(f"{shown} is not a word the lab fills in (they are {{scratchpad}}, {{query}} and "
                               f"{{iteration}}). To send the text {shown} as written, double its braces: "
                               f"{{{shown}}}.")
    for old, new in renames.items():
        fixed = fixed.replace(old, new)
    if "{scratchpad}" not in text:
        renamed = "{scratchpad}" in fixed
        check.problems.append("The prompt has no {scratchpad}, so the summarizer would never see the notes it "
                              "should compress. Put {scratchpad} where the notes belong, or use the fix: " +
                              ("it writes {scratchpad} where you probably meant it." if renamed else
                               "it adds it at the end."))
        if not renamed:
            fixed = fixed.rstrip("\n") + "\n\n{scratchpad}"
    else:
        check.problems.append(refused)
    if fixed != text:
        try:
            validate_prompt_template(fixed)
        except ConfigError:
            fixed = text  # no one-click fix for this one: the sentence says what to change
    if fixed != text:
        check.fix = fixed
        check.fix_label = ("Add {scratchpad} at the end" if not unknown else
                           "Use " + ", ".join(f"{v} for {k}" for k, v in renames.items()) +
                           (" and add {scratchpad}" if "{scratchpad}" not in text and "{scratchpad}" not in renames.values() else ""))
    return check


