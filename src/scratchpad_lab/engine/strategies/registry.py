"""The strategy registry: every compression system the Strategies page and `scratchpad-lab strategies` offer.

Streamlit-free and cheap to import (no LangChain: a strategy's module is imported only when it runs).
A strategy is one module with a `run(...)` function plus one `register(Strategy(...))` below: its name,
title, one line about it, its settings (`Knob`s, in the package's own words, with ranges and defaults),
what it sends the model (`context`), any rule across its settings (`check`), what replaying a trajectory
under it costs (`cost`, read by the work limit in engine/limits.py), its colour on every chart and
column, and the modules its run imports (`imports`, loaded where Stop can reach them). The page's list,
the CLI's list and help, the settings parser, the work limit, the charts and the engine all read
`STRATEGIES`, nothing else. A strategy registered without a cost is refused (`register` raises): an
unknown cost would let any job through the work limit as free.

`context` says what the strategy sends and how the engine calls `run`: "scratchpad" strategies get
`run(trace, spec, summarizer, baseline)`, "messages" strategies also get the token counter,
`run(trace, spec, summarizer, baseline, counter)` (see engine.py). `context` is also the strategy's form:
it is read against the no-compression baseline of that form (engine.BASELINES), so doing nothing reads
exactly 100 %; `never` gives settings that do nothing, and a test holds every entry to it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Literal, Optional, Tuple

from scratchpad_lab.model.config import RunConfig, field_bounds
from scratchpad_lab.model.errors import LabError


class StrategyError(LabError, ValueError):
    """A strategy name, key or value a user gave is wrong; the message names it."""


@dataclass(frozen=True)
class Knob:
    key: str
    kind: str                  # "int" | "int_or_none" | "fraction" | "names" (tool names) | "text"
    default: Any
    low: float
    high: float
    help: str
    unit: str = ""             # "chars" | "tokens" (the package's own count, about chars / 4) | "" (a count)


CHARS_PER_TOKEN = 4       # the packages' own approximate count
NO_TRIM = 1_000_000       # the largest agent trim a RunConfig allows (nothing is cut)
COST_KINDS = ("scratchpad", "deepagents", "langmem", "clear-tool-uses")


@dataclass(frozen=True)
class WorkCost:
    """What one replay under a strategy costs, in the terms engine/limits.py estimates with."""

    kind: str                           # COST_KINDS: whose measured figures apply (bench/work_limits.py)
    window_chars: int                   # scratchpad: the trim; messages: where the strategy summarizes
    keeps_text: bool = True             # its result keeps each step's scratchpad
    trims_kept: bool = False            # its trim events keep the text before and after
    calls_every: Optional[int] = None   # scratchpad: summarize_every (an estimate of its summarizer calls)
    summarizes: bool = True             # it calls a summarizer at all

    def __post_init__(self) -> None:
        if self.kind not in COST_KINDS:
            raise ValueError(f"a work cost's kind is one of {COST_KINDS}, not {self.kind!r}")


@dataclass(frozen=True)
class Strategy:
    name: str                                  # as the CLI takes it: `--strategy NAME[:key=value,...]`
    title: str                                 # as the page shows it
    about: str
    module: str                                # the module whose run(...) replays a trace under it
    context: Literal["scratchpad", "messages"]
    knobs: Tuple[Knob, ...] = ()
    check: Optional[Callable[[Dict[str, Any]], None]] = None  # raises StrategyError for a bad combination
    # The recommender's default search (engine/studies/recommender.py): the values tried for the main settings, every
    # combination. A value "30%" is that share of the trajectory's no-compression peak in the setting's unit
    # (the autourgos strategies' scratchpad is held under the agent's own trim, so theirs are absolute).
    grid: Tuple[Tuple[str, Tuple[Any, ...]], ...] = ()
    # When it compresses, in words, from its resolved settings: [(phrase, unit, threshold)], any of them firing
    # (unit "chars", "tokens" (the package's own count, about chars / 4), "messages" or "iterations"). The
    # Strategies page says why a run never compressed by setting these against the trajectory's peak.
    fires: Optional[Callable[[Dict[str, Any]], List[Tuple[str, str, Optional[float]]]]] = None
    # What a replay under it costs, from its resolved settings: the work limit's estimate (engine/limits.py).
    # Required: register() refuses a strategy without one.
    cost: Optional[Callable[[Dict[str, Any]], WorkCost]] = None
    colour: str = "#000000"              # its line and column colour on every view (ui/strategies_chart.py)
    imports: Tuple[str, ...] = ()        # modules its run imports (seconds the first time in a process)
    heavy: str = ""                      # why it is slow on a long trajectory: the work limit's advice to leave it out
    # Settings under which it cuts nothing on any trajectory the lab takes (every trigger and cap off or at its
    # largest): run so, it must read exactly its form's no-compression baseline (tests/test_doing_nothing.py).
    never: Tuple[Tuple[str, Any], ...] = ()
    # "Pass pins to the summarizer" (model/pins.py): the package's own prompt parameter the pins are asked for in,
    # or, for a strategy whose package takes no prompt, `no_prompt`: why the switch does nothing for it, as its
    # row and the page say ("not a summarizer", "no prompt parameter"). register() refuses an entry with neither.
    prompt_parameter: str = ""
    no_prompt: str = ""
    # "What if..." (engine/run/forking.py) forks a run of the agent with the middleware, at one of its compressions: a
    # strategy whose result keeps such a run (StrategyResult.run: the autourgos middleware's) is forked; for every
    # other, `no_fork` says why not, in a clause the Strategies page shows where the control would be (fork_note).
    no_fork: str = ""
    # What its package counts when it compares a size with its trigger (engine/strategies/units.py): "chars" (the
    # autourgos scratchpad), "messages" (the conversation's messages, approximately) or "request" (deepagents: the
    # messages, the system message and the tool schemas). A share setting ("30%") is of the run's peak by this count.
    own_count: str = "messages"
    # A row of what the recording itself did (the recorded compaction): offered where a run carries one, and not one
    # of the strategies a study runs by default (default_names).
    recorded: bool = False
    # What its compression leaves where the text was: "summary" (a summarizer's words), or "clearing" (a placeholder
    # for each tool result it cleared: what it "kept" of them is nothing, by design, and the rest stays whole).
    compresses_by: str = "summary"


NOT_A_SUMMARIZER = "not a summarizer"
NO_PROMPT_PARAMETER = "no prompt parameter"
FORKED = "the autourgos middleware's runs"  # what What if... forks, as the page names it


def _message_loop(who: str) -> str:
    """Why a message strategy's result is not forked: what it is (read from the driver, engine/strategies/)."""
    return f"{who} runs here inside the lab's own loop over the messages, not in a run of the agent that a fork replays"


def fork_note(name: str) -> str:
    """The line the Strategies page shows, in place of What if..., under a strategy whose result keeps no run to
    fork: what What if... forks, and why not this one (its entry's `no_fork`; a strategy registered without one
    is said to keep no run, which is what its result shows)."""
    entry = strategy(name)
    why = entry.no_fork or f"{entry.title} keeps no run of the agent with the middleware to replay"
    return f"What if... forks {FORKED}: {why}."


def pins_switch(name: str, to_summarizer: bool) -> Any:
    """What "pass pins to the summarizer" is for this strategy, as its row says it: the switch (True or False)
    when its package takes a prompt, else the words saying why the switch does nothing for it."""
    entry = strategy(name)
    return bool(to_summarizer) if entry.prompt_parameter else entry.no_prompt


STRATEGIES: Dict[str, Strategy] = {}


def register(strategy: Strategy) -> Strategy:
    """Add a strategy to every list (page, CLI, parser, work limit, engine), after those registered before it.
    A strategy without a cost is refused: the work limit would let its jobs through as free."""
    if strategy.name in STRATEGIES:
        raise ValueError(f"a strategy named {strategy.name!r} is already registered")
    if strategy.cost is None:
        raise ValueError(f"the strategy {strategy.name!r} has no cost: give it cost=..., a function of its "
                         "settings returning a WorkCost, so the work limit can weigh its jobs")
    if bool(strategy.prompt_parameter) == bool(strategy.no_prompt):
        raise ValueError(f"the strategy {strategy.name!r} needs one of prompt_parameter= (the package's prompt the "
                         "pins are asked for in) or no_prompt= (why it takes none)")
    STRATEGIES[strategy.name] = strategy
    return strategy


def names() -> List[str]:
    return list(STRATEGIES)


def default_names(has_compaction: bool = False) -> List[str]:
    """The strategies a study runs when none is named: every registered one, the recording's own compaction only
    where a run carries one."""
    return [n for n, s in STRATEGIES.items() if not s.recorded or has_compaction]


def strategy(name: str) -> Strategy:
    """The registered strategy `name`; StrategyError naming the ones there are for any other."""
    if name not in STRATEGIES:
        raise StrategyError(f"unknown strategy {name!r}; use one of {', '.join(STRATEGIES)}.")
    return STRATEGIES[name]


def _int(key, default, low, high, help_text, none_ok=False, unit=""):
    return Knob(key, "int_or_none" if none_ok else "int", default, low, high, help_text, unit)


def _largest(field: str) -> int:
    return field_bounds(field)[1]


def _run_knob(key, help_text, field=None):
    """An autourgos setting: its default and range are RunConfig's (their one home)."""
    field = field or key
    low, high = field_bounds(field)
    return _int(key, RunConfig.model_fields[field].default, low, high, help_text, none_ok=field == "summarize_every",
                unit="chars" if field.endswith("_chars") else "")


def _autourgos_fires(s: Dict[str, Any]) -> List[Tuple[str, str, Optional[float]]]:
    out: List[Tuple[str, str, Optional[float]]] = []
    if s.get("summarize_every"):
        out.append((f"summarizes every {s['summarize_every']} iterations", "iterations", s["summarize_every"]))
    out.append((f"summarizes when the scratchpad passes {s['max_scratchpad_chars']:,} chars", "chars",
                s["max_scratchpad_chars"]))
    return out


def _tokens_phrase(verb: str, tokens: int) -> Tuple[str, str, float]:
    return (f"{verb} at {tokens:,} tokens (its own count, about chars / 4)", "tokens", tokens)


def _deepagents_fires(s: Dict[str, Any]) -> List[Tuple[str, str, Optional[float]]]:
    limit = s.get("max_input_tokens")
    out: List[Tuple[str, str, Optional[float]]] = []
    if s.get("trigger_tokens") is not None:
        out.append(_tokens_phrase("summarizes", s["trigger_tokens"]))
    if s.get("trigger_fraction") is not None and limit:
        out.append(_tokens_phrase("summarizes", int(s["trigger_fraction"] * limit)))
    if s.get("trigger_messages") is not None:
        out.append((f"summarizes at {s['trigger_messages']:,} messages", "messages", s["trigger_messages"]))
    if not out:  # compute_summarization_defaults: 85% of the profile's window, else 170,000 tokens
        out.append(_tokens_phrase("summarizes", int(0.85 * limit) if limit else 170_000))
    return out


def _langmem_fires(s: Dict[str, Any]) -> List[Tuple[str, str, Optional[float]]]:
    return [_tokens_phrase("summarizes", s.get("max_tokens_before_summary") or s["max_tokens"])]


def _clear_fires(s: Dict[str, Any]) -> List[Tuple[str, str, Optional[float]]]:
    return [(f"clears tool results above {s['trigger']:,} tokens (its own count, about chars / 4), keeping the "
             f"newest {s['keep']}", "tokens", s["trigger"])]


def _langchain_fires(s: Dict[str, Any]) -> List[Tuple[str, str, Optional[float]]]:
    out: List[Tuple[str, str, Optional[float]]] = []
    if s.get("trigger_tokens") is not None:
        out.append(_tokens_phrase("summarizes", s["trigger_tokens"]))
    if s.get("trigger_fraction") is not None and s.get("max_input_tokens"):
        out.append(_tokens_phrase("summarizes", int(s["trigger_fraction"] * s["max_input_tokens"])))
    if s.get("trigger_messages") is not None:
        out.append((f"summarizes at {s['trigger_messages']:,} messages", "messages", s["trigger_messages"]))
    return out or [("never summarizes: it has no trigger (the package's default); set trigger_tokens or "
                    "trigger_messages", "", None)]


def _autourgos_cost(trim_key: str, summarizes: bool = True) -> Callable[[Dict[str, Any]], WorkCost]:
    """A scratchpad replay: the scratchpad it handles is held under the agent's trim (`trim_key`)."""
    return lambda s: WorkCost("scratchpad", int(s[trim_key]), trims_kept=True, calls_every=s.get("summarize_every"),
                              summarizes=summarizes)


def _deepagents_window(s: Dict[str, Any]) -> int:
    profile = s.get("max_input_tokens")
    if s.get("trigger_tokens"):
        tokens = s["trigger_tokens"]
    elif s.get("trigger_fraction") and profile:
        tokens = s["trigger_fraction"] * profile
    elif s.get("trigger_messages"):
        return int(s["trigger_messages"]) * 700  # messages; chars are found from the trace's mean
    else:
        tokens = 0.85 * profile if profile else 170_000  # compute_summarization_defaults
    return int(tokens * CHARS_PER_TOKEN)


def _langmem_cost(s: Dict[str, Any]) -> WorkCost:
    tokens = s.get("max_tokens_before_summary") or s["max_tokens"]
    return WorkCost("langmem", int(tokens) * CHARS_PER_TOKEN, keeps_text=False)


def _langchain_cost(s: Dict[str, Any]) -> WorkCost:
    tokens = s.get("trigger_tokens") or (s.get("trigger_fraction") or 0) * (s.get("max_input_tokens") or 0)
    window = int(tokens * CHARS_PER_TOKEN) if tokens else (
        int(s["trigger_messages"]) * 700 if s.get("trigger_messages") else NO_TRIM * 100)
    return WorkCost("langmem", window, keeps_text=False)  # LangMem's measured figures: the same kind of work


CHAT_MODEL = "langchain_core.language_models.chat_models"

# The autourgos agent's cut of each tool result: a cut the scratchpad strategies make (their baseline keeps
# every result whole), so it is one of their settings.
_WHOLE_TOOL_RESULTS = ("max_tool_output_chars", field_bounds("max_tool_output_chars")[1])
TOOL_CUT_HELP = "The agent cuts each tool result to its first N characters before it enters the scratchpad."

# ── the strategies, in the order the page and the CLI list them ─────────────────────────────────────

register(Strategy(
    "autourgos-middleware", "autourgos middleware",
    "AutoSummarizeMiddleware replaces the whole scratchpad with a summary every N steps, or when it is over a "
    "size cap and has grown; the agent's own trim still runs after each step.",
    "scratchpad_lab.engine.strategies.autourgos_middleware", "scratchpad",
    knobs=(
        _run_knob("summarize_every", "Summarize every N iterations (none = only the size trigger)."),
        _run_knob("max_scratchpad_chars",
                  "Also summarize when the scratchpad is longer than this many characters and has grown."),
        _run_knob("agent_trim_chars", "The agent's own hard trim: after each step it keeps only the last N characters."),
        _run_knob("max_tool_output_chars", TOOL_CUT_HELP),
    ),
    grid=(("summarize_every", (4, None)), ("max_scratchpad_chars", (5_000, 10_000))), fires=_autourgos_fires,
    cost=_autourgos_cost("agent_trim_chars"), colour="#1f77b4",
    never=(("summarize_every", None), ("max_scratchpad_chars", _largest("max_scratchpad_chars")),
           ("agent_trim_chars", _largest("agent_trim_chars")), _WHOLE_TOOL_RESULTS),
    prompt_parameter="the middleware's prompt (the lab's summarizer prompt, as a run sends it)", own_count="chars"))

register(Strategy(
    "autourgos-builtin", "autourgos built-in",
    "The agent's own summarizer (Agent(summarize_every=..., summarizer_llm=...)), no middleware: one number, "
    "max_scratchpad_chars, is both its size trigger and its hard trim.",
    "scratchpad_lab.engine.strategies.autourgos_builtin", "scratchpad",
    knobs=(
        _run_knob("summarize_every", "Summarize every N iterations (none = only the size trigger)."),
        _run_knob("max_scratchpad_chars",
                  "Both the size trigger and the agent's hard trim (the package shares one value).",
                  field="agent_trim_chars"),
        _run_knob("max_tool_output_chars", TOOL_CUT_HELP),
    ),
    grid=(("summarize_every", (4, None)), ("max_scratchpad_chars", (5_000, 10_000))), fires=_autourgos_fires,
    cost=_autourgos_cost("max_scratchpad_chars"), colour="#9467bd",
    never=(("summarize_every", None), ("max_scratchpad_chars", _largest("agent_trim_chars")), _WHOLE_TOOL_RESULTS),
    no_prompt=NO_PROMPT_PARAMETER,  # the agent's built-in summarizer formats its own fixed prompt
    # the package's Agent._maybe_summarize: its own triggers and its own _summarizer_lock, which the middleware's
    # lock and triggers that a fork holds (engine/run/forking.py) do not reach, and a RunConfig cannot switch it on
    no_fork="the agent's built-in summarizer compresses inside the agent, with its own triggers and lock, not in "
            "the middleware whose lock and triggers a fork holds", own_count="chars"))

register(Strategy(
    "trim-only", "trim only",
    "No summarizer at all: the agent keeps the last N characters of its scratchpad and marks the cut "
    "[...earlier steps trimmed...].",
    "scratchpad_lab.engine.strategies.trim_only", "scratchpad",
    knobs=(_run_knob("agent_trim_chars", "Keep only the last N characters after each step."),
           _run_knob("max_tool_output_chars", TOOL_CUT_HELP)),
    grid=(("agent_trim_chars", (4_000, 8_000, 15_000)),),
    fires=lambda s: [("has no summarizer: only the agent's trim, at "
                      f"{s['agent_trim_chars']:,} chars, cuts", "chars", s["agent_trim_chars"])],
    cost=_autourgos_cost("agent_trim_chars", summarizes=False), colour="#7f7f7f",
    never=(("agent_trim_chars", _largest("agent_trim_chars")), _WHOLE_TOOL_RESULTS), no_prompt=NOT_A_SUMMARIZER,
    no_fork="trim only has no summarizer, so it makes no compression to fork at", own_count="chars"))


def _deepagents_check(s: Dict[str, Any]) -> None:
    keeps = [k for k in ("keep_messages", "keep_tokens", "keep_fraction") if s.get(k) is not None]
    if len(keeps) > 1:
        raise StrategyError(f"deepagents: give one of keep_messages, keep_tokens, keep_fraction, not {', '.join(keeps)}.")
    uses_fraction = [k for k in ("trigger_fraction", "keep_fraction") if s.get(k) is not None]
    if uses_fraction and s.get("max_input_tokens") is None:
        raise StrategyError(f"deepagents: {uses_fraction[0]} is a share of max_input_tokens; set max_input_tokens too.")


register(Strategy(
    "deepagents", "deepagents",
    "deepagents' summarization middleware: when the conversation passes a trigger it writes the older messages "
    "to a file, keeps the newest verbatim and puts a summary in front; its filesystem middleware moves tool "
    "results over 80,000 characters to files.",
    "scratchpad_lab.engine.strategies.deep_agents", "messages",
    knobs=(
        _int("max_input_tokens", None, 1_000, 10_000_000,
             "The model profile's input window. Set: triggers default to 85% and keep to 10% of it; "
             "unset: 170,000 tokens and the last 6 messages.", none_ok=True, unit="tokens"),
        _int("trigger_tokens", None, 100, 10_000_000, "Summarize when the conversation reaches this many tokens.",
             none_ok=True, unit="tokens"),
        Knob("trigger_fraction", "fraction", None, 0.01, 1.0,
             "Summarize at this share of max_input_tokens (needs max_input_tokens)."),
        _int("trigger_messages", None, 2, 100_000, "Summarize when the conversation has this many messages.",
             none_ok=True),
        _int("keep_messages", None, 1, 100_000, "Keep this many newest messages verbatim.", none_ok=True),
        _int("keep_tokens", None, 10, 10_000_000, "Keep the newest messages that fit in this many tokens.",
             none_ok=True, unit="tokens"),
        Knob("keep_fraction", "fraction", None, 0.01, 1.0,
             "Keep the newest messages that fit in this share of max_input_tokens."),
        _int("tool_token_limit_before_evict", 20_000, 100, 10_000_000,
             "Move a tool result longer than 4x this many characters to a file.", none_ok=True, unit="tokens"),
        _int("truncate_max_length", 2_000, 10, 1_000_000,
             "Old write_file/edit_file arguments longer than this are cut (its arg truncation)."),
    ),
    check=_deepagents_check,
    grid=(("trigger_tokens", ("30%", "60%")), ("keep_messages", (6, 20))), fires=_deepagents_fires,
    cost=lambda s: WorkCost("deepagents", _deepagents_window(s), keeps_text=False), colour="#2ca02c",
    heavy="its graph state keeps every message",
    imports=("deepagents.backends.filesystem", "deepagents.middleware.filesystem",
             "deepagents.middleware.summarization", "langchain.agents.middleware.types",
             "langgraph.graph.message", "langgraph.prebuilt.tool_node", "langgraph.types", CHAT_MODEL),
    never=(("trigger_tokens", 10_000_000), ("tool_token_limit_before_evict", None), ("truncate_max_length", 1_000_000)),
    prompt_parameter="summary_prompt", no_fork=_message_loop("deepagents"), own_count="request"))


def _langmem_check(s: Dict[str, Any]) -> None:
    if s["max_summary_tokens"] >= s["max_tokens"]:
        raise StrategyError("langmem: max_summary_tokens must be smaller than max_tokens (LangMem refuses it).")


register(Strategy(
    "langmem", "LangMem",
    "LangMem's summarize_messages before each model call: once the messages pass a budget, the oldest are "
    "folded into a running summary and the rest are sent verbatim.",
    "scratchpad_lab.engine.strategies.lang_mem", "messages",
    knobs=(
        _int("max_tokens", 4_000, 50, 10_000_000,
             "Token budget for the messages sent (required by LangMem; 4,000 is about the autourgos "
             "default of 15,000 characters).", unit="tokens"),
        _int("max_summary_tokens", 256, 10, 1_000_000,
             "Room LangMem plans for the summary (it is not sent to the model as a limit).", unit="tokens"),
        _int("max_tokens_before_summary", None, 50, 10_000_000,
             "Summarize once the messages pass this many tokens (unset: max_tokens).", none_ok=True, unit="tokens"),
        _int("system_in_messages", 0, 0, 1,
             "0: the system prompt stays outside the summarized messages and is sent in front of the result (as "
             "LangMem's guide calls it); 1: it is given as a leading SystemMessage, which LangMem keeps out of the "
             "summary and takes off max_tokens (it cannot summarize below the system prompt's size)."),
    ),
    check=_langmem_check,
    grid=(("max_tokens", ("15%", "30%", "60%")),), fires=_langmem_fires,
    cost=_langmem_cost, colour="#d62728", imports=("langmem.short_term", "langchain_core.messages", CHAT_MODEL),
    never=(("max_tokens", 10_000_000), ("max_tokens_before_summary", None)),
    prompt_parameter="initial_summary_prompt and existing_summary_prompt", no_fork=_message_loop("LangMem")))


def _clear_tool_uses_check(s: Dict[str, Any]) -> None:
    if not str(s.get("placeholder") or "").strip():
        raise StrategyError("clear-tool-uses: placeholder needs some text (it replaces each cleared tool result).")


register(Strategy(
    "clear-tool-uses", "LangChain clear tool uses",
    "LangChain's ContextEditingMiddleware with ClearToolUsesEdit (observation masking): once the conversation "
    "passes a token trigger, every tool result but the newest few is replaced by a placeholder before the model "
    "call. No summarizer, no model call.",
    "scratchpad_lab.engine.strategies.clear_tool_uses", "messages", compresses_by="clearing",
    knobs=(
        _int("trigger", 100_000, 100, 10_000_000,
             "Clear when the conversation passes this many tokens (LangChain's approximate count, chars / 4).", unit="tokens"),
        _int("keep", 3, 0, 100_000, "Keep this many of the newest tool results in full."),
        _int("clear_at_least", 0, 0, 10_000_000,
             "Stop clearing once this many tokens are reclaimed (0: clear every older result).", unit="tokens"),
        Knob("exclude_tools", "names", (), 0, 50, "Tool names whose results are never cleared (names joined by +)."),
        Knob("placeholder", "text", "[cleared]", 1, 200, "The text a cleared tool result becomes."),
    ),
    check=_clear_tool_uses_check,
    grid=(("trigger", ("30%", "60%")), ("keep", (1, 3))), fires=_clear_fires,
    # LangChain's ContextEditingMiddleware copies the whole conversation at every call
    cost=lambda s: WorkCost("clear-tool-uses", int(s["trigger"]) * CHARS_PER_TOKEN, keeps_text=False,
                            summarizes=False),
    colour="#ff7f0e", heavy="the slowest on a long trajectory: it copies every message at every call",
    imports=("langchain.agents.middleware", "langchain.agents.middleware.types", "langchain_core.messages",
             CHAT_MODEL),
    never=(("trigger", 10_000_000),), no_prompt=NOT_A_SUMMARIZER,
    no_fork=_message_loop("LangChain's clear tool uses")))


def _langchain_summarization_check(s: Dict[str, Any]) -> None:
    keeps = [k for k in ("keep_messages", "keep_tokens", "keep_fraction") if s.get(k) is not None]
    if len(keeps) > 1:
        raise StrategyError("langchain-summarization: give one of keep_messages, keep_tokens, keep_fraction, "
                            f"not {', '.join(keeps)}.")
    uses_fraction = [k for k in ("trigger_fraction", "keep_fraction") if s.get(k) is not None]
    if uses_fraction and s.get("max_input_tokens") is None:
        raise StrategyError(f"langchain-summarization: {uses_fraction[0]} is a share of max_input_tokens; "
                            "set max_input_tokens too.")


register(Strategy(
    "langchain-summarization", "LangChain summarization",
    "LangChain's own SummarizationMiddleware (the class deepagents wraps): when the conversation passes a trigger, "
    "the older messages are replaced for good by one summary message written with its own prompt; the newest "
    "are kept, never splitting a tool call from its results.",
    "scratchpad_lab.engine.strategies.langchain_summarization", "messages",
    knobs=(
        _int("trigger_tokens", None, 100, 10_000_000,
             "Summarize when the conversation reaches this many tokens (LangChain's approximate count). "
             "With no trigger at all the package never summarizes.", none_ok=True, unit="tokens"),
        _int("trigger_messages", None, 2, 100_000, "Summarize when the conversation has this many messages.",
             none_ok=True),
        Knob("trigger_fraction", "fraction", None, 0.01, 1.0,
             "Summarize at this share of max_input_tokens (needs max_input_tokens)."),
        _int("keep_messages", None, 1, 100_000, "Keep this many newest messages (unset: the package's 20).",
             none_ok=True),
        _int("keep_tokens", None, 10, 10_000_000, "Keep the newest messages that fit in this many tokens.",
             none_ok=True, unit="tokens"),
        Knob("keep_fraction", "fraction", None, 0.01, 1.0,
             "Keep the newest messages that fit in this share of max_input_tokens."),
        _int("trim_tokens_to_summarize", 4_000, 100, 10_000_000,
             "Send only the newest this-many tokens of what is summarized, starting on a human message "
             "(none: send it all).", none_ok=True, unit="tokens"),
        _int("max_input_tokens", None, 1_000, 10_000_000,
             "The model profile's input window, for the fraction settings.", none_ok=True, unit="tokens"),
    ),
    check=_langchain_summarization_check,
    grid=(("trigger_tokens", ("30%", "60%")), ("trim_tokens_to_summarize", (4_000, None))),
    fires=_langchain_fires, cost=_langchain_cost, colour="#8c564b",
    imports=("langchain.agents.middleware", "langgraph.graph.message", "langchain_core.messages", CHAT_MODEL),
    never=(("trigger_tokens", None), ("trigger_messages", None), ("trigger_fraction", None)),
    prompt_parameter="summary_prompt", no_fork=_message_loop("LangChain's summarization")))


register(Strategy(
    "recorded-compaction", "the recording's own compaction",
    "The compaction the recorded agent itself made (Claude Code's), replayed as it happened: before it, the whole "
    "conversation; from it on, the summary the agent wrote and what came after. Measured like every strategy, on "
    "the same calls. A run that carries no compaction of its own reads as doing nothing.",
    "scratchpad_lab.engine.strategies.recorded", "messages",
    knobs=(_int("use_summary", 1, 0, 1,
                "1: replay the recording's compaction; 0: leave it out (the session as if it never compacted)."),),
    cost=lambda s: WorkCost("clear-tool-uses", NO_TRIM, keeps_text=False, summarizes=False),
    colour="#17becf", imports=("langchain_core.messages",), never=(("use_summary", 0),),
    no_prompt="its summary is the recording's", no_fork=_message_loop("the recording's compaction"),
    recorded=True))
