"""Prompt lab: the library of starting prompts and the plain-language prompt check (with fixes).

Streamlit-free."""

import difflib
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional


from scratchpad_lab.model.config import (MAX_PROMPT_CHARS, PACKAGE_PROMPT, PROMPT_PLACEHOLDERS, ConfigError, prompt_too_long,
                                         validate_prompt_template)


MAX_PROMPTS = 4
MAX_SUMMARIZERS = 3
PER_ENDPOINT = 4  # concurrent calls per endpoint: within what hosted APIs and local servers take


# ── the prompt library ──────────────────────────────────────────────────────────────────────────

PROMPT_LIBRARY: Dict[str, str] = {
    "Package default": PACKAGE_PROMPT,
    "Keep every identifier and number": (
        "You compress an AI agent's working notes so it can keep working on its task.\n\n"
        "Task: {query}\nSteps so far: {iteration}\n\n"
        "Rewrite the notes below as short bullet points. Copy EVERY identifier, code, number, amount, "
        "date, time, name, e-mail, URL and file path exactly as written; never round or paraphrase them. "
        "Drop reasoning that led nowhere.\n\n"
        "--- NOTES ---\n{scratchpad}\n--- END ---\n"),
    "Structured (intent / summary / artifacts / next steps)": (
        "Summarize the agent's scratchpad below so the agent can continue its task from your summary "
        "alone.\n\nTask: {query}\nSteps completed: {iteration}\n\n"
        "--- SCRATCHPAD ---\n{scratchpad}\n--- END ---\n\n"
        "Answer with exactly these sections:\n"
        "SESSION INTENT: ...\n"
        "SUMMARY: ...\n"
        "ARTIFACTS: ...\n"
        "NEXT STEPS: ...\n"),
    "One paragraph": (
        "In one paragraph of plain prose, summarize what this agent has found so far for the task "
        "\"{query}\" after {iteration} steps. Keep the facts it will need to finish.\n\n{scratchpad}\n"),
}

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
    words what it will do and how to fix it. A prompt that the rule accepts runs as written; one
    with unknown {names} runs with them sent as literal text; one without {scratchpad} cannot run."""
    if not text.strip():
        return PromptCheck(text, None, ["The prompt is empty. Start from one of the library's prompts."],
                           fix=PACKAGE_PROMPT, fix_label="Start from the package's prompt")
    if prompt_too_long(text):
        return PromptCheck(text, None, [prompt_too_long(text)])
    try:
        return PromptCheck(text, validate_prompt_template(text))
    except ConfigError:
        pass
    check = PromptCheck(text, None)
    template = literal_template(text)
    fixed = text
    unknown = [m for m in _BRACED.finditer(text) if m.group(1) not in PROMPT_PLACEHOLDERS]
    renames = {}
    for m in unknown:
        shown = m.group(0)
        target = _closest(m.group(1))
        if target and target not in renames.values():
            renames[shown] = "{" + target + "}"
            check.notes.append(f"{shown} is not a word the lab fills in, so it will be sent as the text "
                               f"“{shown}”. Did you mean {{{target}}}, {PLACEHOLDER_HELP[target].split(' (')[0]}?")
        else:
            check.notes.append(f"{shown} is not a word the lab fills in, so the summarizer will see the text "
                               f"“{shown}” as written. The fill-in words are {{scratchpad}}, {{query}} and "
                               "{iteration}.")
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
    if fixed != text:
        check.fix = fixed
        check.fix_label = ("Add {scratchpad} at the end" if not renames else
                           "Use " + ", ".join(f"{v} for {k}" for k, v in renames.items()) +
                           (" and add {scratchpad}" if "{scratchpad}" not in text and "{scratchpad}" not in renames.values() else ""))
    if not check.problems:
        try:
            check.template = validate_prompt_template(template)
        except ConfigError as exc:  # literal_template always yields a valid one; say so if not
            check.problems.append(str(exc))
    return check


