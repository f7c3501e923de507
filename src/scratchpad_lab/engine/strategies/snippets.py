"""Take the setting to your agent: a chosen point in absolute units for these runs, and as the package's own code.

Streamlit-free, and no package is imported: a snippet is text. tests/test_snippets.py runs each snippet with the real
package installed and holds the object it builds to the figures printed beside it, so a parameter renamed in a new
package version fails there, not in a person's agent.

A setting is given as the lab keeps it: a number, or a share of a run's no-compression peak ("30%", a benchmark's
grid value). The peaks are each run's, by the package's own count (units.peaks_for: characters for the autourgos
scratchpad, LangChain's approximate tokens of the messages, deepagents' count of the whole request), so a share is
resolved on each run exactly as the study resolved it (recommender.resolve). The package takes one absolute number,
not a share: the one to configure is the median over the runs, with their range beside it.

The model in every snippet is `your_model`, a placeholder the person supplies (their own model object); a snippet
never holds a key. The recording's own compaction has no snippet: it is what the recorded agent did by itself.
"""
from __future__ import annotations

import statistics
import textwrap
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from scratchpad_lab.analysis.figures import percent
from scratchpad_lab.engine.strategies.registry import StrategyError, strategy
from scratchpad_lab.engine.strategies.spec import knobs, make_spec

MODEL = "your_model"
SIZE_UNITS = ("chars", "tokens")
# What a run's peak is counted in, by what its package counts (Strategy.own_count, units.py).
COUNTED = {"chars": "characters of the scratchpad, as the autourgos agent counts it",
           "messages": "tokens by LangChain's count_tokens_approximately of the conversation's messages",
           "request": "tokens by deepagents' own count of the request (messages, system prompt and tools)"}
# A count setting's noun (a setting without a size unit).
NOUNS = {"summarize_every": "iterations", "trigger_messages": "messages", "keep_messages": "messages",
         "keep": "tool results", "truncate_max_length": "chars",
         "trigger_fraction": "of max_input_tokens", "keep_fraction": "of max_input_tokens"}
# Sizes of one piece (a tool result, the summary, what is sent to be summarized, what is reclaimed), not of the
# context: a number given for one is not set against the context's peak.
PER_PIECE = ("max_tool_output_chars", "max_summary_tokens", "trim_tokens_to_summarize", "clear_at_least",
             "tool_token_limit_before_evict", "truncate_max_length")
SWITCHES = ("system_in_messages",)  # how to call the package, said in the code's comment, not a number it takes
NO_SNIPPET = {"recorded-compaction": "The recording's own compaction is what its agent did by itself (Claude Code's "
                                     "compaction): there is no setting of a package to take to your agent."}


@dataclass(frozen=True)
class Figure:
    """One setting in absolute units: its value on each run, each run's peak in its unit, the one to configure."""

    key: str
    unit: str                       # "chars" | "tokens" | "" (a count, or a share of max_input_tokens)
    share: Optional[float]          # the share of each run's peak it was given as (None: a number)
    values: Tuple[Any, ...]         # its value on each run
    peaks: Tuple[int, ...]          # each run's peak in `unit` (empty: not a size, or no peaks given)
    value: Any                      # the one value to configure

    def text(self, noun: str = "") -> str:
        unit = self.unit or (noun[:-1] if noun.endswith("s") and self.value == 1 else noun)
        said = f"{self.key}: {_number(self.value)}" + (f" {unit}" if unit else "")
        if not self.peaks:
            return said
        n = len(self.peaks)
        if self.share is not None:
            if n == 1:
                return (f"{self.key}: {_pct(self.share)} of this run's peak of {self.peaks[0]:,} {unit} = "
                        f"{self.value:,} {unit}")
            return (f"{self.key}: {_pct(self.share)} of each run's peak (median {_median(list(self.peaks)):,} {unit}) "
                    f"= {self.value:,} {unit} on the median run ({min(self.values):,} to {max(self.values):,} over "
                    f"{n} runs); configure {self.value:,}")
        if self.key in PER_PIECE or not self.value:
            return said
        shares = [self.value / p for p in self.peaks if p]
        if not shares:
            return said
        if n == 1:
            return f"{said}, {_pct(shares[0])} of this run's peak of {self.peaks[0]:,} {unit}"
        return (f"{said}, {_pct(statistics.median(shares))} of the median run's peak ({_pct(min(shares))} to "
                f"{_pct(max(shares))} over {n} runs)")


@dataclass(frozen=True)
class TakeAway:
    """A chosen point as a person takes it to their agent: its figures and the package's code (none: `why_none`)."""

    strategy: str
    settings: Dict[str, Any]                 # the one value of each setting, as the lab runs it
    figures: Tuple[Figure, ...] = ()
    code: str = ""
    why_none: str = ""
    counted: str = ""                        # what a peak is counted in
    runs: int = 0                            # runs whose peaks the figures read
    refused: int = 0                         # runs whose peak gave a setting the package refuses
    fires: Tuple[str, ...] = ()              # when it compresses, in the registry's words, against the peaks


    def lines(self) -> List[str]:
        """The figures as sentences (our words, the registry's keys and numbers)."""
        out = [f.text(NOUNS.get(f.key, "")) for f in self.figures]
        if self.fires:
            out.append("When it compresses: " + "; ".join(self.fires))
        if self.counted and any(f.peaks for f in self.figures):
            out.append(f"A peak is the run's no-compression context before its last call, in {self.counted}.")
        if self.refused:
            out.append(f"On {self.refused} run{'s' * (self.refused != 1)} the package refused the setting: not counted.")
        return out

    def text(self, indent: str = "    ") -> str:
        """Figures, then the code (or why there is none), each line indented: what the CLI prints."""
        body = self.lines() + ([""] + self.code.splitlines() if self.code else [self.why_none])
        return "\n".join(indent + line if line else "" for line in body)


# ── the peaks ──────────────────────────────────────────────────────────────────────────────────────

_PEAKS: Dict[Tuple[int, str], Tuple[Any, int]] = {}  # (id(trace), own count) -> (a weak reference to it, its peak)
_MOST_KEPT = 10_000


def peaks_of(trace: Any, name: str) -> Dict[str, int]:
    """{"chars": ..., "tokens": ...}: the trace's peak in each unit a setting of `name` may have, by its package's own
    count (units.own_peak), kept for as long as the trace lives: a page draws its chosen points at every rerun."""
    from scratchpad_lab.engine.strategies.units import own_peak

    count = strategy(name).own_count
    out = {}
    for unit in SIZE_UNITS:
        own = "chars" if unit == "chars" or count == "chars" else count
        key = (id(trace), own)
        kept = _PEAKS.get(key)
        if kept is None or kept[0]() is not trace:
            kept = _PEAKS[key] = (weakref.ref(trace), own_peak(trace, own))
            if len(_PEAKS) > _MOST_KEPT:
                _PEAKS.pop(next(iter(_PEAKS)))
        out[unit] = kept[1]
    return out


# ── the figures ────────────────────────────────────────────────────────────────────────────────────

def take_away(name: str, settings: Mapping[str, Any], peaks: Sequence[Mapping[str, int]] = ()) -> TakeAway:
    """`settings` (as the lab keeps them: numbers, or shares like "30%" of a run's peak) on the runs whose `peaks`
    are given (one mapping per run, as peaks_of gives it): the figures and the package's code. A share needs the
    peaks; StrategyError names a setting the strategy does not take."""
    entry = strategy(name)
    if name in NO_SNIPPET:
        return TakeAway(name, dict(settings), why_none=NO_SNIPPET[name])
    from scratchpad_lab.engine.studies.recommender import resolve

    table = {k.key: k for k in knobs(name)}
    unknown = [k for k in settings if k not in table]
    if unknown:
        raise StrategyError(f"{name}: unknown key {unknown[0]!r}; its keys are {', '.join(table)}.")
    shares = {k: _share(v) for k, v in settings.items() if _share(v) is not None}
    if shares and not peaks:
        raise StrategyError(f"{name}: {next(iter(shares))}={settings[next(iter(shares))]} is a share of a run's "
                            "peak: give the runs' peaks.")
    runs: List[Dict[str, Any]] = []
    used: List[Mapping[str, int]] = []
    for peak in peaks or [None]:
        try:
            given = {k: (resolve(v, table[k], peak, name) if k in shares else v) for k, v in settings.items()}
            runs.append(make_spec(name, given).resolved())
            used.append(peak)
        except StrategyError:
            continue  # the package refuses the setting on this run (a benchmark skips it there too)
    if not runs:
        raise StrategyError(f"{name}: the package refuses these settings on every run given.")
    configured = {k: (_median([r[k] for r in runs]) if k in shares else runs[0][k]) for k in runs[0]}
    try:
        make_spec(name, configured)
    except StrategyError as exc:  # the medians together break a rule of the package's (e.g. LangMem's budgets)
        return TakeAway(name, configured, why_none=f"No one setting to configure: {exc}")
    figures = []  # every number the code sets, in the registry's order: the ones given and the defaults kept
    for key, knob in table.items():
        if configured[key] is None or knob.kind not in ("int", "int_or_none", "fraction") or key in SWITCHES:
            continue
        sized = knob.unit in SIZE_UNITS and used[0] is not None
        figures.append(Figure(key, knob.unit, shares.get(key), tuple(r[key] for r in runs),
                              tuple(int(p[knob.unit]) for p in used) if sized else (), configured[key]))
    if name not in SNIPPETS:  # a strategy registered outside the lab (a plugin, a test's): its figures, no code
        return TakeAway(name, configured, tuple(figures), counted=COUNTED[entry.own_count],
                        why_none=f"No code for {strategy(name).title}: the lab writes the code of the packages it "
                                 "ships with; this strategy was registered from outside them.")
    return TakeAway(name, configured, tuple(figures), SNIPPETS[name](configured), counted=COUNTED[entry.own_count],
                    runs=len(runs) if used[0] is not None else 0, refused=len(peaks) - len(runs) if peaks else 0,
                    fires=_fires(name, configured, [p for p in used if p is not None]))


def _fires(name: str, configured: Dict[str, Any], peaks: List[Mapping[str, int]]) -> Tuple[str, ...]:
    """The registry's phrases for when it compresses (Strategy.fires), each size set against the runs' peaks."""
    rule = strategy(name).fires
    out = []
    for phrase, unit, threshold in (rule(configured) if rule else []):
        sizes = [p[unit] for p in peaks if unit in SIZE_UNITS and threshold and p[unit]]
        if sizes and len(sizes) == 1:
            phrase += f", {_pct(threshold / sizes[0])} of this run's peak"
        elif sizes:
            phrase += f", {_pct(statistics.median(threshold / size for size in sizes))} of the median run's peak"
        out.append(phrase)
    return tuple(out)


def take_away_for_trace(name: str, settings: Mapping[str, Any], trace: Any = None) -> TakeAway:
    """One trajectory's point (Recommend, the Strategies verdict): its settings against that run's peak (without a
    trace, numbers alone: no share of a peak is said)."""
    if name in NO_SNIPPET:
        return TakeAway(name, dict(settings), why_none=NO_SNIPPET[name])
    return take_away(name, settings, [peaks_of(trace, name)] if trace is not None else [])


def take_away_for_label(label: str, traces: Sequence[Any]) -> TakeAway:
    """A benchmark's setting, named by its label ("deepagents:trigger_tokens=30%,keep_messages=6"), on the runs it
    was measured on."""
    from scratchpad_lab.engine.studies.recommender import parse_grid

    name, _, rest = label.partition(":")
    if name in NO_SNIPPET:
        return TakeAway(name, {}, why_none=NO_SNIPPET[name])
    given = {k: values[0] for k, values in parse_grid(label)[1].items()} if rest else {}
    return take_away(name, given, [peaks_of(t, name) for t in traces])


def _share(value: Any) -> Optional[float]:
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            return float(value.strip()[:-1]) / 100
        except ValueError:
            return None
    return None


def _median(values: List[Any]) -> Any:
    middle = statistics.median(values)
    return int(round(middle)) if all(isinstance(v, int) for v in values) else middle


def _number(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _pct(share: float) -> str:
    """A share as a percentage; below 10 % with one decimal, so a small share does not read 0 %."""
    return f"{share:.1%}" if share < 0.1 else percent(share)


# ── the code: one builder per strategy, each the package's own constructor or call ─────────────────

WIDTH = 88  # a snippet's longest line: pasted into a file as it is, and drawn whole in a page's code block
MODEL_NOTE = f"# {MODEL}: your own LangChain chat model (e.g. init_chat_model); no key here."
AUTOURGOS_MODEL = "\n".join([
    f"# {MODEL}: your own model, any object with .invoke() (e.g. autourgos_openaichat's",
    "# OpenAIChatModel); no key here. Keep tool_calling_mode=\"prompt\" (the default):",
    "# in \"native\" mode the agent sends no scratchpad."])


def _call(head: str, args: List[str], width: int = WIDTH) -> str:
    """`head(arg, arg, ...)`, on one line when it fits in `width`, else one argument a line."""
    flat = f"{head}({', '.join(args)})"
    if len(flat) <= width:
        return flat
    return f"{head}(\n" + "".join(f"    {a},\n" for a in args) + ")"


def _autourgos_middleware(s: Dict[str, Any]) -> str:
    summarizer = _call("summarizer = AutoSummarizeMiddleware", [
        f"summarize_every={s['summarize_every']!r}", f"max_scratchpad_chars={s['max_scratchpad_chars']}",
        f"llm={MODEL}"])
    agent = _call("agent = Agent", [f"llm={MODEL}", "middleware=[summarizer]",
                                    f"max_scratchpad_chars={s['agent_trim_chars']}",
                                    f"max_tool_output_chars={s['max_tool_output_chars']}"])
    return "\n".join(["from autourgos_agent import Agent", "from autourgos_summarizer import AutoSummarizeMiddleware",
                      "", AUTOURGOS_MODEL, "# The middleware's trigger and the Agent's own hard trim are two settings.",
                      summarizer, agent])


def _autourgos_builtin(s: Dict[str, Any]) -> str:
    note = ("# summarize_every=None: no summarizer; only the trim at max_scratchpad_chars cuts."
            if s["summarize_every"] is None else
            "# max_scratchpad_chars is both the summarizer's size trigger and the agent's hard trim.")
    agent = _call("agent = Agent", [f"llm={MODEL}", f"summarize_every={s['summarize_every']!r}",
                                    f"max_scratchpad_chars={s['max_scratchpad_chars']}", f"summarizer_llm={MODEL}",
                                    f"max_tool_output_chars={s['max_tool_output_chars']}"])
    return "\n".join(["from autourgos_agent import Agent", "", AUTOURGOS_MODEL, note, agent])


def _trim_only(s: Dict[str, Any]) -> str:
    agent = _call("agent = Agent", [f"llm={MODEL}", f"max_scratchpad_chars={s['agent_trim_chars']}",
                                    f"max_tool_output_chars={s['max_tool_output_chars']}"])
    return "\n".join(["from autourgos_agent import Agent", "", AUTOURGOS_MODEL,
                      "# No summarizer: the agent keeps the last max_scratchpad_chars chars of its scratchpad.",
                      agent])


def _profile(s: Dict[str, Any]) -> List[str]:
    """The model profile's input window the lab ran with, set on the model (where LangChain and deepagents read it)."""
    if s.get("max_input_tokens") is None:
        return []
    return ["# The input window the lab ran with, in the model's profile, where the package reads it",
            "# (a real model's profile usually carries its own).",
            f"{MODEL}.profile = {{**({MODEL}.profile or {{}}), \"max_input_tokens\": {s['max_input_tokens']}}}"]


def _size(kind: str, value: Any) -> str:
    return f'("{kind}", {value!r})'


def _triggers(s: Dict[str, Any], order: Tuple[str, ...]) -> Optional[str]:
    found = [_size(kind, s[f"trigger_{kind}"]) for kind in order if s.get(f"trigger_{kind}") is not None]
    return None if not found else found[0] if len(found) == 1 else "[" + ", ".join(found) + "]"


def _keep(s: Dict[str, Any]) -> Optional[str]:
    return next((_size(kind, s[f"keep_{kind}"]) for kind in ("messages", "tokens", "fraction")
                 if s.get(f"keep_{kind}") is not None), None)


def _deepagents(s: Dict[str, Any]) -> str:
    trigger, keep, length = _triggers(s, ("tokens", "fraction", "messages")), _keep(s), s.get("truncate_max_length")
    head = ["from deepagents import create_deep_agent", "from deepagents.backends import StateBackend"]
    evict = s.get("tool_token_limit_before_evict")
    files = evict != 20_000  # FilesystemMiddleware's own default, which create_deep_agent keeps
    if files:
        head.append("from deepagents.middleware.filesystem import FilesystemMiddleware")
    lines = ["", MODEL_NOTE, *_profile(s), "backend = StateBackend()"]
    if trigger is None and keep is None and length in (None, 2000):
        head.append("from deepagents.middleware.summarization import create_summarization_middleware")
        lines += ["# deepagents' own, for your model's profile (what create_deep_agent builds itself)",
                  f"summarization = create_summarization_middleware({MODEL}, backend)"]
    else:
        head += ["from deepagents.middleware.summarization import SummarizationMiddleware",
                 "from deepagents.middleware.summarization import compute_summarization_defaults"]
        truncate = ('defaults["truncate_args_settings"]' if length in (None, 2000) else
                    f'{{**defaults["truncate_args_settings"], "max_length": {length}}}')
        lines += ["# deepagents' own defaults for your model's profile, for what is not set here",
                  f"defaults = compute_summarization_defaults({MODEL})",
                  "# trim_tokens_to_summarize=None: all it evicts is summarized, as create_deep_agent does.",
                  _call("summarization = SummarizationMiddleware", [
                      f"model={MODEL}", "backend=backend", "trigger=" + (trigger or 'defaults["trigger"]'),
                      "keep=" + (keep or 'defaults["keep"]'),
                      "trim_tokens_to_summarize=None", f"truncate_args_settings={truncate}"])]
    if files:
        lines.append(_call("files = FilesystemMiddleware", ["backend=backend", f"tool_token_limit_before_evict={evict!r}"]))
    lines += ["# a middleware named as one of create_deep_agent's own replaces it",
              _call("agent = create_deep_agent", [f"model={MODEL}", "backend=backend",
                                                  f"middleware=[{'files, ' if files else ''}summarization]"])]
    return "\n".join(head + lines)


def _langmem(s: Dict[str, Any]) -> str:
    args = ["messages", "running_summary=running_summary", f"model={MODEL}", f"max_tokens={s['max_tokens']}",
            f"max_summary_tokens={s['max_summary_tokens']}"]
    if s.get("max_tokens_before_summary") is not None:
        args.append(f"max_tokens_before_summary={s['max_tokens_before_summary']}")
    system = (["# Give your system prompt as the first message (a SystemMessage): LangMem keeps it",
               "# out of the summary and takes it off max_tokens."] if s.get("system_in_messages") else
              ["# Keep your system prompt out of `messages`; send it in front of what is returned."])
    call = textwrap.indent(_call("result = summarize_messages", args, WIDTH - 4), "    ")
    return "\n".join(["from langmem.short_term import summarize_messages", "", MODEL_NOTE, *system, "",
                      "def compress(messages, running_summary=None):",
                      '    """Call before each model call; keep the running summary for the next call."""', call,
                      "    return result.messages, result.running_summary"])


def _clear_tool_uses(s: Dict[str, Any]) -> str:
    edit = _call("edit = ClearToolUsesEdit", [
        f"trigger={s['trigger']}", f"keep={s['keep']}", f"clear_at_least={s['clear_at_least']}",
        f"exclude_tools={tuple(s['exclude_tools'] or ())!r}", f"placeholder={s['placeholder']!r}"])
    return "\n".join(["from langchain.agents import create_agent",
                      "from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware", "",
                      MODEL_NOTE, "# No summarizer: past the trigger (LangChain's approximate tokens), older tool",
                      "# results become the placeholder.",
                      edit, "context_editing = ContextEditingMiddleware(edits=[edit])",
                      f"agent = create_agent({MODEL}, middleware=[context_editing])  # and your tools=[...]"])


def _langchain_summarization(s: Dict[str, Any]) -> str:
    trigger, keep = _triggers(s, ("tokens", "messages", "fraction")), _keep(s)
    args = [f"model={MODEL}"] + ([f"trigger={trigger}"] if trigger else []) + ([f"keep={keep}"] if keep else [])
    args.append(f"trim_tokens_to_summarize={s.get('trim_tokens_to_summarize')!r}")
    notes = [] if trigger else ["# No trigger (the package's default): it never summarizes."]
    notes += [] if keep else ["# keep left out: the package's own default (its newest 20 messages)."]
    return "\n".join(["from langchain.agents import create_agent",
                      "from langchain.agents.middleware import SummarizationMiddleware", "", MODEL_NOTE,
                      *_profile(s), *notes, _call("summarization = SummarizationMiddleware", args),
                      f"agent = create_agent({MODEL}, middleware=[summarization])  # and your tools=[...]"])


SNIPPETS: Dict[str, Callable[[Dict[str, Any]], str]] = {
    "autourgos-middleware": _autourgos_middleware,
    "autourgos-builtin": _autourgos_builtin,
    "trim-only": _trim_only,
    "deepagents": _deepagents,
    "langmem": _langmem,
    "clear-tool-uses": _clear_tool_uses,
    "langchain-summarization": _langchain_summarization,
}
