"""Work limits: what a job will cost, judged from the trajectory and the settings before it starts.

Streamlit-free. The file limits (10 MB, 5,000 steps, 12,000 bytes a step) bound what is read, not what
is then done with it: the same 9 MB trace is 2 s of work replayed with the package defaults and many
minutes (and gigabytes) under deepagents with five strategies, or with a 1,000,000-character trim. So
every task that replays a trajectory under chosen settings (engine/tasks: compare and the page's
sweep, `sweep`, `replay`, a trace's replay, strategies, recommend, opening a point) calls `check_work` once,
when it is asked for, before any work starts; the pages and commands call the tasks. It estimates
- CPU seconds: per replayed step, plus per character each step handles (a scratchpad replay handles
  its scratchpad, at most the trim; a message strategy handles the messages it keeps, all of them
  for deepagents' graph state), per character a message strategy reads (once: large single observations),
  and the agent's parser on every response (engine/reply.parse_seconds), with figures measured by
  bench/work_limits.py;
- memory: the text the job's results keep (a scratchpad replay keeps the scratchpad of every step), and the
  conversation a message strategy holds as its package's messages while it runs;
- model calls, with an endpoint summarizer: about one per compression the settings make likely;
- the built-in model's calls (engine/summarize/builtin_model.py) as what they are on this CPU: each likely call at the
  model's measured speed (its prompt, the scratchpad or window it summarizes, and its reply cap), their sum
  held to the wall clock a job's model calls may take (an endpoint's calls end there too), and counted
  against its model calls;
and raises WorkLimitExceeded, a sentence saying what it would cost and what to change, when one is over
its budget. The CLI lifts the limit with --no-work-limit (locally only); hosted mode has tighter
budgets and no way round them. The estimates are upper-bound leaning (compression only makes a
scratchpad smaller than its trim), so a job refused here would have been near its budget or over.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Sequence, Tuple

from scratchpad_lab.engine.run.reply import parse_seconds
from scratchpad_lab.engine.strategies.registry import NO_TRIM, strategy
from scratchpad_lab.model.endpoint import hosted_mode
from scratchpad_lab.model.errors import LabError

# Budgets, local / hosted (SCRATCHPAD_LAB_HOSTED=1).
BUDGETS = {"cpu_s": (120.0, 45.0), "held_mb": (900.0, 300.0), "model_calls": (400, 60),
           "job_wall_s": (1800.0, 300.0)}  # a job's model calls end at this wall clock, whatever their timeouts

# Measured with bench/work_limits.py (CPU seconds, synthetic traces of 1,800 bytes a step; see README):
STEP_S = 0.0004            # a scratchpad replay step (the lab's observed replay, package defaults)
CHAR_S = 5e-9              # each character of scratchpad a step handles (tokens, prompt, trim)
# The scratchpad strategies' no-compression replay reads every character of the run whole (each result's facts and
# tokens): at least this much a character, however few its steps. Measured 2026-12-05 on the long coding runs
# (bench/long_runs.py, CPU seconds): long runs have few, large steps, which the per-step price missed (the autourgos
# middleware on the 402k-character Claude Code session, its baseline included, was priced 0.40 s and took 0.94 s).
# On the synthetic 5,000-step probe the per-step price stays the larger, so its figures do not move.
SCRATCHPAD_CHAR_S = 2.5e-6
DEEPAGENTS_STEP_S = 0.0093
DEEPAGENTS_MESSAGE_S = 2.1e-6   # each message in deepagents' graph state, at each step (it keeps them all)
LANGMEM_STEP_S = 0.0038
# clear-tool-uses: LangChain's ContextEditingMiddleware copies every message of the conversation at each call
# (measured here: 13,104 messages-at-a-call over 100 steps took 0.44 s, 470,279 over 600 steps 15.5 s)
CLEAR_STEP_S = 0.002
CLEAR_MESSAGE_S = 3.3e-5
WINDOW_MESSAGE_S = 4e-6    # each message over the default window a message strategy counts at each step
# A message strategy reads each message's text whole (tokens counted, copied into the package's messages),
# about once, so large single observations cost by their characters, not by the steps. Measured on a trace
# with two 3.9 MB observations of random text (tokenizes worst; plain words cost a third), CLI `strategies`
# in hosted mode, against the same trace with 1,000-character observations (issue 29: all seven took 70 s
# and 552 MB, estimated 0.2 s and 0.1 MB). Nine steps cost what three did: it is not per step.
MESSAGE_CHAR_S = {"deepagents": 4.5e-7, "langmem": 1.5e-6, "clear-tool-uses": 9e-7}
MESSAGE_CHAR_BYTES = {"deepagents": 10, "langmem": 20, "clear-tool-uses": 10}  # peak memory over the text's size
LIFT_FLAG = "--no-work-limit"


class WorkLimitExceeded(LabError, ValueError):
    """The job would cost more than its budget; the message says how much, and what to change."""


@dataclass
class CostedReplay:
    """One replay of the trajectory in a job: a scratchpad replay with its trim, or a message strategy."""

    label: str
    kind: str = "scratchpad"            # registry.COST_KINDS: "scratchpad" | "deepagents" | "langmem" | "clear-tool-uses"
    window_chars: int = 15_000          # scratchpad: the trim; messages: where the strategy summarizes
    keeps_text: bool = True             # its result keeps each step's scratchpad
    trims_kept: bool = False            # its trim events keep the text before and after (Strategies)
    calls_every: Optional[int] = None   # scratchpad: summarize_every (an estimate of its summarizer calls)
    summarizes: bool = True
    builtin: bool = False               # its summaries are the built-in model's, on this CPU


@dataclass
class Sizes:
    """What the trajectory weighs, step by step."""

    steps: int
    scratchpad: List[int]               # chars of the scratchpad as each step starts, nothing cut
    messages: List[int]                 # messages in the conversation before each model call
    message_chars: List[int]            # chars of those messages
    mean_message_chars: float
    parse_s: float = 0.0                # the agent's parser on every response, once (each replay parses them all)
    chars: int = 0                      # the text of the whole conversation (task, responses, whole results)


def trajectory_sizes(trace: Any, max_tool_output_chars: int = 5_000) -> Sizes:
    """Sizes from a Trace (cheap: lengths only)."""
    scratchpad, messages, message_chars = [], [], []
    chars = count = total = 0
    for step in trace.steps:
        scratchpad.append(chars)
        messages.append(count + 1)
        message_chars.append(total + len(trace.task))
        observations = list(step.observations)
        # The agent's scratchpad: the step's reply (its thought and action lines) and each result cut at
        # max_tool_output_chars, with the agent's labels; a message strategy keeps each result whole.
        chars += len(step.response) + sum(min(len(o), max_tool_output_chars) + 16 for o in observations) + 32
        count += 1 + len(observations)
        total += len(step.response) + sum(len(o) for o in observations)
    return Sizes(len(trace.steps), scratchpad, messages, message_chars,
                 (total / count) if count else 0.0, sum(parse_seconds(step.response) for step in trace.steps),
                 total + len(trace.task))


def _window_sum(values: Iterable[int], cap: int) -> int:
    return sum(min(v, cap) for v in values)


def cpu_seconds(replay: CostedReplay, sizes: Sizes) -> float:
    return sizes.parse_s + _work_seconds(replay, sizes)


def _work_seconds(replay: CostedReplay, sizes: Sizes) -> float:
    if replay.kind == "scratchpad":
        work = STEP_S * sizes.steps + CHAR_S * _window_sum(sizes.scratchpad, replay.window_chars)
        return max(work, SCRATCHPAD_CHAR_S * sizes.chars) if replay.window_chars >= NO_TRIM else work
    window_messages = max(1, int(replay.window_chars / max(sizes.mean_message_chars, 1.0)))
    default_window = 1_000 if replay.kind == "deepagents" else 50
    over = sum(max(0, min(n, window_messages) - default_window) for n in sizes.messages)
    reading = MESSAGE_CHAR_S[replay.kind] * sizes.chars
    if replay.kind == "clear-tool-uses":
        return reading + CLEAR_STEP_S * sizes.steps + CLEAR_MESSAGE_S * sum(sizes.messages)
    if replay.kind == "deepagents":
        return reading + DEEPAGENTS_STEP_S * sizes.steps + DEEPAGENTS_MESSAGE_S * sum(sizes.messages) + WINDOW_MESSAGE_S * over
    return reading + LANGMEM_STEP_S * sizes.steps + WINDOW_MESSAGE_S * over


def held_bytes(replay: CostedReplay, sizes: Sizes) -> int:
    if replay.kind != "scratchpad":  # the conversation as the package's messages, while it runs
        return MESSAGE_CHAR_BYTES[replay.kind] * sizes.chars
    if not replay.keeps_text:
        return 0
    # each step's scratchpad; with trims kept, the text before and after each trim as well
    return (3 if replay.trims_kept else 1) * _window_sum(sizes.scratchpad, replay.window_chars)


def model_calls(replay: CostedReplay, sizes: Sizes) -> int:
    """About how many summaries the settings make (each one a model call with an endpoint summarizer)."""
    if not replay.summarizes:
        return 0
    if replay.kind == "scratchpad":
        periodic = sizes.steps // replay.calls_every if replay.calls_every else 0
        grown = (sizes.scratchpad[-1] if sizes.scratchpad else 0) // max(replay.window_chars, 1)
        return periodic + grown
    final = sizes.message_chars[-1] if sizes.message_chars else 0
    return int(final // max(replay.window_chars, 1)) + 1


CHARS_PER_TOKEN = 4          # what a summarizer prompt's text weighs in tokens, about (English, the lab's encodings)
PROMPT_OVERHEAD_TOKENS = 120  # the package prompt's own words around the scratchpad


def builtin_seconds(replay: CostedReplay, sizes: Sizes) -> float:
    """The built-in model's time on this replay: its likely calls, each the size of what it summarizes (at most
    the trim or the strategy's window, at most the model's context; with a periodic trigger, twice what that many
    steps bring in) at the model's measured speed."""
    if not replay.builtin or not replay.summarizes:
        return 0.0
    from scratchpad_lab.engine.summarize import builtin_model as m

    seen = max(sizes.scratchpad or [0]) if replay.kind == "scratchpad" else max(sizes.message_chars or [0])
    chars = min(seen, replay.window_chars)
    if replay.kind == "scratchpad" and replay.calls_every and sizes.steps:
        chars = min(chars, 2 * replay.calls_every * seen / sizes.steps)
    prompt = min(m.N_CTX - m.DEFAULT_MAX_TOKENS, chars / CHARS_PER_TOKEN + PROMPT_OVERHEAD_TOKENS)
    return model_calls(replay, sizes) * m.call_seconds(prompt)


# ── the jobs the pages and commands run, as replays ────────────────────────────────────────────────

def strategy_replays(specs: Sequence[Any], builtin: bool = False) -> List[CostedReplay]:
    """The replays of a Strategies job (or a recommender's search): each strategy, costed by its registry
    entry (`Strategy.cost`, which every registered strategy has), and the no-compression replay the
    scratchpad strategies are read against (once; the message strategies' baseline is counted from the
    trajectory's messages, no replay)."""
    out = []
    if any(strategy(spec.name).context == "scratchpad" for spec in specs):
        out.append(CostedReplay("no compression", window_chars=NO_TRIM, keeps_text=False, summarizes=False))
    # vars, not asdict: a WorkCost holds scalars only, and asdict's deep copies were two thirds of the time a
    # 5,000-run benchmark's check took (115,000 points)
    return out + [CostedReplay(spec.name, **{**vars(strategy(spec.name).cost(spec.resolved())), "builtin": builtin})
                  for spec in specs]


def setting_replays(base: Any, settings: Sequence[Any], keep_records: bool = True) -> List[CostedReplay]:
    """The replays of Compare (or a sweep, `keep_records=False`: rows only) over a base RunConfig: each
    setting, and one 'compression off' baseline per agent trim."""
    out, trims = [], set()
    for setting in settings:
        changes = setting.changes() if hasattr(setting, "changes") else dict(setting)
        kind = (changes.get("summarizer") or base.summarizer).kind
        trim = int(changes.get("agent_trim_chars") or base.agent_trim_chars)
        out.append(CostedReplay(getattr(setting, "label", lambda: "a setting")(), window_chars=trim,
                          keeps_text=keep_records, calls_every=changes.get("summarize_every"),
                          summarizes=kind != "silent", builtin=kind == "builtin"))
        if trim not in trims:
            trims.add(trim)
            out.append(CostedReplay(f"compression off, trim {trim:,}", window_chars=trim, summarizes=False))
    return out


# ── the check ───────────────────────────────────────────────────────────────────────────────────

@dataclass
class Estimate:
    steps: int
    cpu_s: float
    held_mb: float
    model_calls: int
    builtin_s: float = 0.0              # the built-in model's calls at its measured speed (beside cpu_s)


KEPT_OVERHEAD = 0.25  # each further result a job keeps makes the rest of it slower (the collector walks it)


def estimate(trace: Any, replays: Sequence[CostedReplay], max_tool_output_chars: int = 5_000,
             rows_only: bool = False, at_once: int = 1) -> Estimate:
    """`rows_only`: each replay keeps only its row once it is done, and `at_once` of them run at a time (a
    recommender's search), so no result is walked again and only the running ones hold their text."""
    sizes = trajectory_sizes(trace, max_tool_output_chars)
    # Measured: three strategies in one process cost 1.5x the sum of each alone (80 s against 53 s of CPU
    # on the 5,000-step trace), as every result kept so far is walked again by Python's collector. A search
    # keeps rows only: its default 26 points on a 150-step trace took 10-12 s of CPU, 17 s estimated so.
    kept = 0 if rows_only else sum(1 for r in replays if r.keeps_text or r.kind != "scratchpad")
    factor = 1 + KEPT_OVERHEAD * max(0, kept - 1)
    held = sorted(held_bytes(r, sizes) for r in replays)
    model_s = sum(builtin_seconds(r, sizes) for r in replays)  # one model per process: its calls take turns
    return Estimate(sizes.steps, factor * sum(cpu_seconds(r, sizes) for r in replays),
                    sum(held[-max(1, at_once):] if rows_only else held) / 1e6,
                    sum(model_calls(r, sizes) for r in replays), model_s)


def budget(name: str) -> float:
    local, hosted = BUDGETS[name]
    return hosted if hosted_mode() else local


def check_work(loaded: Any, *, strategies: Sequence[Any] = (), settings: Sequence[Any] = (),
               replay: Any = None, base: Any = None, keep_records: bool = True,
               endpoint_summarizer: bool = False, lifted: bool = False,
               search_workers: int = 0, builtin_summarizer: bool = False) -> Optional[Estimate]:
    """Refuse a job over its budget before it starts (WorkLimitExceeded), else return its estimate.

    `loaded`: the trajectory (a Trace, or a RunRecord with its embedded trace). `strategies`: the
    StrategySpecs of a Strategies job; `settings`: the compare Settings (or change dicts) of a Compare
    or sweep job (`keep_records=False`) over `base` (a RunConfig; default: the record's config or the
    defaults); `replay`: the RunConfig of one replay. `search_workers`: the strategies are a recommender's
    search (engine/studies/recommender.py), each point keeping only its row, this many running at a time. `endpoint_summarizer`: the summaries are model
    calls. `builtin_summarizer`: the strategies' summaries are the built-in model's (a setting or a replay says
    so itself). `lifted`: the CLI's --no-work-limit (never in hosted mode)."""
    trace = loaded if hasattr(loaded, "steps") else getattr(loaded, "trace", None)
    if trace is None:  # a scenario run re-run by its script: bounded by max_iterations
        return None
    if lifted and hosted_mode():
        raise WorkLimitExceeded(f"In hosted mode the work limits cannot be lifted ({LIFT_FLAG} is for a lab "
                                "running on your own machine).")
    if base is None:
        from scratchpad_lab.model.config import RunConfig
        base = getattr(loaded, "config", None) or RunConfig.build(scenario=None)
    replays = list(strategy_replays(strategies, builtin_summarizer)) + list(setting_replays(base, settings, keep_records))
    if replay is not None:
        base = replay
        replays.append(CostedReplay("the replay", window_chars=replay.agent_trim_chars,
                                    calls_every=replay.summarize_every,
                                    summarizes=replay.summarizer.kind != "silent",
                                    builtin=replay.summarizer.kind == "builtin"))
        endpoint_summarizer = endpoint_summarizer or replay.summarizer.kind in ("endpoint", "same-as-agent")
    endpoint_summarizer = endpoint_summarizer or any(r.builtin and r.summarizes for r in replays)
    found = estimate(trace, replays, base.max_tool_output_chars, rows_only=search_workers > 0,
                     at_once=search_workers)
    if lifted:
        return found
    problems = []
    if found.cpu_s > budget("cpu_s"):
        problems.append(f"about {_duration(found.cpu_s)} of work, over the {_duration(budget('cpu_s'))} a job may take")
    if found.builtin_s + found.cpu_s > budget("job_wall_s"):
        problems.append(f"about {_duration(found.builtin_s)} of the built-in model's summaries at its measured "
                        f"speed, over the {_duration(budget('job_wall_s'))} a job may take")
    if found.held_mb > budget("held_mb"):
        problems.append(f"about {found.held_mb:,.0f} MB of results held in memory, over the "
                        f"{budget('held_mb'):,.0f} MB a job may hold")
    if endpoint_summarizer and found.model_calls > budget("model_calls"):
        problems.append(f"about {found.model_calls:,} summarizer calls, over the {int(budget('model_calls')):,} "
                        "a job may make")
    if problems:
        what = (f"a search of {len(strategies)} point{'s' * (len(strategies) != 1)} on it" if search_workers else
                f"{len(strategies)} strateg{'y' if len(strategies) == 1 else 'ies'} on it" if strategies else
                f"{len(settings)} setting{'s' * (len(settings) != 1)} on it" if settings else "replaying it")
        raise WorkLimitExceeded(
            f"This trajectory has {found.steps:,} steps; {what} would be {' and '.join(problems)}. "
            f"{_advice(strategies, settings, search=search_workers > 0)}")
    return found


# ── a run's wall clock ──────────────────────────────────────────────────────────────────────────
# The one sentence for a run that hit its wall-clock cap (engine/run/runner.py ends it so). It names the setting
# as each surface spells it (issue 45: it said `wall_clock_s` and "the pacing delay", which the CLI has neither of).
WALL_CLOCK_SETTINGS = ("--wall-clock SECONDS on the command line, or “Run's wall clock (s)” in the Playground's "
                       "settings (with the model's settings, or under Advanced)")


def over_wall_clock(wall_clock_s: float, remedy: str, detail: str = "") -> str:
    """The run hit its wall-clock cap: what it was, how to give it longer on each surface, and `remedy`."""
    return (f"The run hit its wall-clock cap of {wall_clock_s:g} s{detail}. Give it longer with "
            f"{WALL_CLOCK_SETTINGS}; or {remedy}.")


def _advice(strategies: Sequence[Any], settings: Sequence[Any], search: bool = False) -> str:
    tips = list(dict.fromkeys(f"leave out {s.name} ({strategy(s.name).heavy})" for s in strategies
                              if strategy(s.name).heavy))  # the registry says which strategies are heavy, and why
    if strategies and len(strategies) > 1:
        tips.append("narrow the grids (fewer values to try)" if search else "pick fewer strategies")
    if settings and len(settings) > 1:
        tips.append("compare fewer settings")
    tips.append("use a lower agent trim or shorter trigger windows, or a shorter trajectory")
    where = f" On your own machine, the command line's {LIFT_FLAG} lifts the limit." if not hosted_mode() else ""
    return "To run it, " + ", or ".join(tips) + "." + where


def _on_the_model(found: Estimate) -> str:
    return f" ({_duration(found.builtin_s)} of it the built-in model's summaries)" if found.builtin_s >= 1 else ""


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{math.ceil(seconds):,} s"
    return f"{seconds / 60:,.0f} minutes"


def check_benchmark(runs: Sequence[Any], *, workers: int, endpoint_summarizer: bool = False,
                    lifted: bool = False, builtin_summarizer: bool = False) -> Estimate:
    """A benchmark (engine/studies/benchmark.py) costed as what it is: `runs` are (trace, its points' StrategySpecs),
    each run a search that keeps rows only, summed over the runs and shared by `workers` cores. Refused, with
    how to narrow it, when its wall clock would be over a job's, or its summaries over a job's model calls."""
    if lifted and hosted_mode():
        raise WorkLimitExceeded(f"In hosted mode the work limits cannot be lifted ({LIFT_FLAG} is for a lab "
                                "running on your own machine).")
    found = [estimate(trace, strategy_replays(specs, builtin_summarizer), rows_only=True) for trace, specs in runs]
    total = Estimate(sum(e.steps for e in found), sum(e.cpu_s for e in found),
                     max((e.held_mb for e in found), default=0.0), sum(e.model_calls for e in found),
                     sum(e.builtin_s for e in found))
    endpoint_summarizer = endpoint_summarizer or builtin_summarizer
    if lifted:
        return total
    # the built-in model's calls take turns on its one slot whatever the workers: they are not shared out
    wall = total.cpu_s / max(1, workers) + total.builtin_s
    problems = []
    if wall > budget("job_wall_s"):
        problems.append(f"about {_duration(wall)} on {workers} core{'s' * (workers != 1)}{_on_the_model(total)}, over the "
                        f"{_duration(budget('job_wall_s'))} a job may take")
    if endpoint_summarizer and total.model_calls > budget("model_calls"):
        problems.append(f"about {total.model_calls:,} summarizer calls, over the {int(budget('model_calls')):,} "
                        "a job may make")
    if problems:
        points = sum(len(specs) for _, specs in runs)
        where = f" On your own machine, the command line's {LIFT_FLAG} lifts the limit." if not hosted_mode() else ""
        raise WorkLimitExceeded(
            f"This benchmark has {len(runs):,} runs and {points:,} points; it would be {' and '.join(problems)}. "
            "To run it, take fewer runs (--runs N), fewer strategies (--strategy NAME), or a smaller grid "
            f"(--grid NAME:key=v1|v2).{where}")
    return total


def check_decisions(runs: Sequence[Tuple[int, int]], *, builtin: bool, max_tokens: int,
                    lifted: bool = False) -> float:
    """The next call re-decided (engine/studies/decide.py): `runs` are (model calls at most: the run's checked calls for
    each row; the context chars each is sent: the run's whole conversation, at most the check's cut). With the
    built-in model they are charged at its measured speed against a job's wall clock; any model's against a
    job's model calls. Returns the seconds charged (0 for an endpoint, whose calls end at the job's wall clock
    by themselves)."""
    if lifted and hosted_mode():
        raise WorkLimitExceeded(f"In hosted mode the work limits cannot be lifted ({LIFT_FLAG} is for a lab "
                                "running on your own machine).")
    seconds, calls = 0.0, sum(n for n, _ in runs)
    if builtin:
        from scratchpad_lab.engine.summarize.builtin_model import call_seconds
        seconds = sum(n * call_seconds(chars / CHARS_PER_TOKEN + PROMPT_OVERHEAD_TOKENS * 2, max_tokens)
                      for n, chars in runs)
    if lifted:
        return seconds
    problems = []
    if seconds > budget("job_wall_s"):
        problems.append(f"about {_duration(seconds)} of the built-in model's decisions at its measured speed, over "
                        f"the {_duration(budget('job_wall_s'))} a job may take")
    if calls > budget("model_calls"):
        problems.append(f"up to {calls:,} model calls, over the {int(budget('model_calls')):,} a job may make")
    if problems:
        where = f" On your own machine, the command line's {LIFT_FLAG} lifts the limit." if not hosted_mode() else ""
        raise WorkLimitExceeded(f"Re-deciding the next calls would be {' and '.join(problems)}. To run it, take "
                                "fewer runs (--runs N), fewer calls a run (--decide-calls N), fewer strategies "
                                f"(--strategy NAME) or a smaller grid.{where}")
    return seconds
