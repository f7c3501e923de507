"""The next call, re-decided: the benchmark's model check (`scratchpad-lab bench --decide-with builtin|endpoint`).

Streamlit-free. At each recorded tool call of a run (engine/arguments.run_calls: the step actions as the agent's
parser reads them), a model is asked for the next call, given the task and the context the strategy sent for
that call (StrategyResult.sent_text), and answers a JSON object {"tool", "arguments"}. With the built-in model
the answer is constrained by a JSON schema of the run's tools (llama.cpp turns `response_format` into a
grammar): `tool` is one of the run's tool names, `arguments` an object (the tool's own parameter schema where
the trace has one). An endpoint model is sent the same schema in its instructions (the lab's endpoint client
sends no `response_format`), so its reply may be prose: it is then read as no valid call.

The measure, per call, then its mean over a run's calls, then over the runs (the figures of each setting):
- tool agreement: the decided tool is the recorded one (1 or 0);
- arguments agreement: of the recorded call's argument leaves (each value under its key path, compared as
  trimmed case-folded text), the share the decided call gives the same value under the same path; a call
  whose recorded arguments hold no leaf is left out of this mean;
- same as no compression: the decision (tool and arguments) equals the one made on the no-compression context
  of the strategy's own form (engine/strategies: "messages", the whole conversation; "scratchpad", the real
  agent's uncut scratchpad).
How "no compression" reads: its tool and arguments agreement are whatever the model makes of the full context
(a weak model disagrees with the recorded run there too); those are the row every other row is read against
(`vs_none`: a setting's agreement minus no compression's, per run). Its "same as no compression" is 100 % by
construction, and so is that of any setting that sent exactly what no compression sent: decisions are cached
by the exact messages sent, so the same messages are asked once and get the one decision (and decoding is
greedy). It is not true by construction otherwise: a compressed context may lead to the same call or not.

Bounds: the context is cut to its last `context_chars` characters for every row alike (the built-in model holds
4,096 tokens), each answer to `max_tokens` (an answer cut short is not valid JSON: no valid call), the first
`calls_per_run` recorded calls of each run; the whole check is refused before it starts when its likely calls,
at the model's measured speed, are over a job's wall clock (engine/limits.check_decisions).
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

from scratchpad_lab.analysis.arguments import ToolCall
from scratchpad_lab.model.endpoint import Endpoint, EndpointError
from scratchpad_lab.model.trace import Trace

if TYPE_CHECKING:
    from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest

NO_COMPRESSION = "no compression"
CONTEXT_CHARS = 6_000     # the tail of what was sent: about 1,500 tokens, room for the tools and the answer
MAX_TOKENS = 64           # a short call: {"tool": "...", "arguments": {...}}
CALLS_PER_RUN = 5
INSTRUCTIONS = ("You are the agent working on the task below. Given what you have seen so far, decide your next "
                "tool call. Answer with one JSON object only: {\"tool\": one of the tool names, \"arguments\": "
                "an object of the tool's arguments}.")


@dataclass(frozen=True)
class Decision:
    tool: Optional[str]            # None: the answer was no valid call
    arguments: Any = None
    text: str = ""                 # the model's answer as written (kept short)
    error: Optional[str] = None    # the call failed (its sentence)

    @property
    def key(self) -> str:
        return json.dumps([self.tool, self.arguments], sort_keys=True, default=str)


def tool_schema(trace: Trace, calls: Sequence[ToolCall]) -> Dict[str, Any]:
    """The JSON schema of one next call for this run: its tools (the trace's, else the names its calls used),
    each with its own parameter schema where the trace has an object one."""
    tools = {t.name: t.parameters for t in trace.tools if t.name}
    for call in calls:
        tools.setdefault(call.tool, {})
    options = []
    for name in sorted(tools):
        params = tools[name] if isinstance(tools[name], dict) and tools[name].get("type") == "object" else \
            {"type": "object"}
        options.append({"type": "object", "properties": {"tool": {"const": name}, "arguments": params},
                        "required": ["tool", "arguments"]})
    return {"anyOf": options} if options else {"type": "object"}


def decision_messages(task: str, context: str, schema: Dict[str, Any], context_chars: int) -> List[Dict[str, str]]:
    """What the model is asked: the instructions with the schema, then the task and the context's tail."""
    tail = context[-context_chars:] if len(context) > context_chars else context
    names = sorted({o["properties"]["tool"]["const"] for o in schema.get("anyOf", [])})
    system = f"{INSTRUCTIONS}\nTools: {', '.join(names)}.\nJSON schema of the answer: {json.dumps(schema)}"
    return [{"role": "system", "content": system},
            {"role": "user", "content": f"Task: {task.strip()[:1_000]}\n\nSo far:\n{tail}\n\nYour next tool call:"}]


def read_decision(text: str, tools: Sequence[str]) -> Decision:
    """The call in a model's answer: the first JSON object in it with a known tool; else no valid call."""
    short = text[:500]
    start = text.find("{")
    while start != -1:
        try:
            value, _ = json.JSONDecoder().raw_decode(text[start:])
        except ValueError:
            value = None
        if isinstance(value, dict) and value.get("tool") in tools:
            arguments = value.get("arguments")
            return Decision(str(value["tool"]), arguments if isinstance(arguments, dict) else {}, short)
        start = text.find("{", start + 1)
    return Decision(None, None, short)


def _flat(value: Any, path: str = "") -> Dict[str, str]:
    if isinstance(value, dict):
        out: Dict[str, str] = {}
        for k, v in value.items():
            out.update(_flat(v, f"{path}.{k}" if path else str(k)))
        return out
    if isinstance(value, (list, tuple)):
        out = {}
        for i, v in enumerate(value):
            out.update(_flat(v, f"{path}[{i}]"))
        return out
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    return {path: str(value).strip().casefold()}


def agreement(recorded: ToolCall, decided: Decision) -> Tuple[float, Optional[float]]:
    """(tool agreement 1 or 0, arguments agreement: the share of the recorded leaves the decision gives alike,
    None when the recorded call has no leaf)."""
    tool = 1.0 if decided.tool == recorded.tool else 0.0
    wanted = _flat(recorded.arguments)
    if not wanted:
        return tool, None
    given = _flat(decided.arguments) if decided.tool is not None else {}
    return tool, sum(1 for path, v in wanted.items() if given.get(path) == v) / len(wanted)


class Decider:
    """Asks one model for next calls, one decision per distinct request (the cache is what makes a setting
    that sent what no compression sent read 100 % the same by construction). `llm`: an `.invoke(messages,
    max_tokens=..., response_format=...)` model: the built-in model's client, or the endpoint client."""

    def __init__(self, llm: Any, *, constrained: bool, max_tokens: int = MAX_TOKENS,
                 context_chars: int = CONTEXT_CHARS) -> None:
        self.llm, self.constrained = llm, constrained
        self.max_tokens, self.context_chars = int(max_tokens), int(context_chars)
        self._cache: Dict[str, Decision] = {}
        self._lock = threading.Lock()
        self.asked = 0                   # model calls made (cache misses)
        self.tokens_in = self.tokens_out = 0

    @property
    def model_name(self) -> str:
        return str(getattr(self.llm, "model_name", "the model"))

    def decide(self, task: str, context: str, schema: Dict[str, Any]) -> Decision:
        messages = decision_messages(task, context, schema, self.context_chars)
        key = json.dumps(messages, sort_keys=True)
        with self._lock:  # one model, one call at a time: the cache is filled in the order asked
            if key in self._cache:
                return self._cache[key]
            names = [o["properties"]["tool"]["const"] for o in schema.get("anyOf", [])]
            extra = {"response_format": {"type": "json_schema", "json_schema": {"name": "next_call",
                                                                                "schema": schema}}} \
                if self.constrained else {}
            try:
                text = self.llm.invoke(messages, max_tokens=self.max_tokens, **extra)
                found = read_decision(str(text or ""), names)
            except EndpointError as exc:
                found = Decision(None, None, "", str(exc))
            usage = getattr(self.llm, "last_usage", None) or {}
            self.asked += 1
            self.tokens_in += int(usage.get("input_tokens") or 0)
            self.tokens_out += int(usage.get("output_tokens") or 0)
            self._cache[key] = found
            return found


@dataclass
class RunDecisions:
    """One run's decisions under every row: row label -> the decision at each of its checked calls."""

    name: str
    calls: List[ToolCall]
    rows: Dict[str, List[Decision]] = field(default_factory=dict)
    forms: Dict[str, str] = field(default_factory=dict)      # row label -> its form ("messages", "scratchpad")


def decide_calls(decider: Decider, trace: Trace, calls: Sequence[ToolCall], sent: Callable[[int], str],
                 form: str, stop: Any = None) -> List[Decision]:
    """The decisions at each call, given what was sent for it (`sent(iteration)`); the scratchpad form's
    context is the scratchpad, so the task is always given beside it."""
    schema = tool_schema(trace, calls)
    out = []
    for call in calls:
        if stop is not None and getattr(stop, "is_set", lambda: False)():
            from scratchpad_lab.engine.jobs import Stopped
            raise Stopped("stopped")
        out.append(decider.decide(trace.task, sent(call.iteration), schema))
    return out


def row_figures(run: RunDecisions, label: str) -> Dict[str, Optional[float]]:
    """One row's figures on one run (see the module's docstring)."""
    decisions = run.rows[label]
    reference = run.rows[reference_label(run.forms.get(label, "messages"))]
    tools, arguments, same = [], [], []
    for call, decided, base in zip(run.calls, decisions, reference):
        tool, args = agreement(call, decided)
        tools.append(tool)
        if args is not None:
            arguments.append(args)
        same.append(1.0 if decided.key == base.key else 0.0)
    mean = lambda xs: sum(xs) / len(xs) if xs else None  # noqa: E731
    return {"tool_agreement": mean(tools), "arguments_agreement": mean(arguments),
            "same_as_no_compression": mean(same),
            "valid": mean([1.0 if d.tool is not None else 0.0 for d in decisions]),
            "failed": float(sum(1 for d in decisions if d.error))}


def reference_label(form: str) -> str:
    return NO_COMPRESSION if form == "messages" else f"{NO_COMPRESSION} ({form})"


# ── over a benchmark's runs and settings ───────────────────────────────────────────────────────────

@dataclass
class DecideResult:
    """The agreement table: per row (no compression of each form, then every setting), the means over runs."""

    model: str
    constrained: bool
    runs: List[RunDecisions]
    rows: List[Dict[str, Any]]           # {"setting", "strategy", "form", "runs", measure: mean, "vs_none": ...}
    asked: int
    tokens_in: int
    tokens_out: int
    stopped: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"model": self.model, "constrained": self.constrained, "rows": self.rows, "model_calls": self.asked,
                "tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "stopped": self.stopped,
                "runs": [{"name": r.name, "calls": [[c.iteration, c.tool, c.arguments] for c in r.calls],
                          "decisions": {label: [[d.tool, d.arguments, d.error] for d in ds]
                                        for label, ds in r.rows.items()}} for r in self.runs]}


MEASURES = ("tool_agreement", "arguments_agreement", "same_as_no_compression", "valid")


def uncut_scratchpad(trace: Trace, summarizer: Any) -> Callable[[int], str]:
    """What the scratchpad form sends with nothing cut, at each model call: the real agent's replay under the
    autourgos middleware with no trigger and the largest trims (compare.UNCUT)."""
    from scratchpad_lab.engine.studies.compare import UNCUT
    from scratchpad_lab.engine.strategies.engine import run_one
    from scratchpad_lab.engine.strategies.spec import make_spec
    from scratchpad_lab.engine.run.tokens import TokenCounter

    spec = make_spec("autourgos-middleware", {k: UNCUT[k] for k in ("summarize_every", "max_scratchpad_chars",
                                                                    "agent_trim_chars", "max_tool_output_chars")})
    return run_one(trace, spec, summarizer, {}, TokenCounter(None)).sent_text


def decide_units(units: Sequence[Any], summarizer: Any, decider: Decider, calls_per_run: int = CALLS_PER_RUN,
                 progress: Optional[Callable[[int, int, str], None]] = None, stop: Any = None) -> DecideResult:
    """Every unit (engine/benchmark.Unit: a run and its settings' points) re-decided: the references first, then
    each point's strategy run once more with its decisions taken from what it sent."""
    from scratchpad_lab.engine.studies.run_calls import no_compression_sent
    from scratchpad_lab.engine.jobs import Stopped
    from scratchpad_lab.engine.studies.recommender import point_context, run_point
    from scratchpad_lab.engine.strategies.registry import StrategyError, strategy

    done, runs, stopped = 0, [], None
    total = sum(len(u.points) + 2 for u in units)
    labels: Dict[str, Tuple[str, str]] = {}   # row label -> (strategy, form), in order
    try:
        for unit in units:
            trace, calls = unit.run.trace, list(unit.calls.calls)[:calls_per_run]
            run = RunDecisions(unit.run.name, calls)
            runs.append(run)
            if not calls:
                continue
            for form, sent in (("messages", no_compression_sent(trace)),
                               ("scratchpad", uncut_scratchpad(trace, summarizer))):
                label = reference_label(form)
                run.rows[label], run.forms[label] = decide_calls(decider, trace, calls, sent, form, stop), form
                labels.setdefault(label, (NO_COMPRESSION, form))
                done += 1
                if progress:
                    progress(done, total, f"{unit.run.name}: {label}")
            here = {"label": ""}

            def measure(result: Any) -> Dict[str, Any]:
                form = strategy(result.name).context
                run.rows[here["label"]] = decide_calls(decider, trace, calls, result.sent_text, form, stop)
                run.forms[here["label"]] = form
                return {}

            context = point_context(trace, summarizer, unit.run.scenario, measure)
            for label, name, settings in unit.points:
                here["label"] = label
                try:
                    run_point(name, settings, None, context)
                except StrategyError:
                    continue  # a setting this run cannot take: it has no decisions here (the benchmark says why)
                labels.setdefault(label, (name, strategy(name).context))
                done += 1
                if progress:
                    progress(done, total, f"{unit.run.name}: {label}")
    except Stopped as exc:
        stopped = str(exc) or "stopped"
    rows = []
    for label, (name, form) in labels.items():
        per_run = [(r, row_figures(r, label)) for r in runs if label in r.rows]
        row: Dict[str, Any] = {"setting": label, "strategy": name, "form": form, "runs": len(per_run)}
        for m in MEASURES:
            values = [f[m] for _, f in per_run if f[m] is not None]
            row[m] = sum(values) / len(values) if values else None
        for m in ("tool_agreement", "arguments_agreement"):
            deltas = [f[m] - row_figures(r, reference_label(form))[m] for r, f in per_run
                      if f[m] is not None and row_figures(r, reference_label(form))[m] is not None]
            row[f"{m}_vs_none"] = sum(deltas) / len(deltas) if deltas else None
        row["failed_calls"] = int(sum(f["failed"] or 0 for _, f in per_run))
        rows.append(row)
    return DecideResult(decider.model_name, decider.constrained, runs, rows, decider.asked, decider.tokens_in,
                        decider.tokens_out, stopped)


def table(result: DecideResult) -> str:
    """The agreement table as the CLI prints it."""
    def pct(v: Optional[float]) -> str:
        return "-" if v is None else f"{v:.0%}"

    def delta(v: Optional[float]) -> str:
        return "-" if v is None else f"{v * 100:+.0f} pt"

    width = max([30] + [len(r["setting"]) for r in result.rows])
    lines = [f"{'row':<{width}} {'runs':>4} {'tool':>6} {'vs none':>8} {'args':>6} {'vs none':>8} {'same':>6} {'valid':>6}"]
    for r in result.rows:
        lines.append(f"{r['setting']:<{width}} {r['runs']:>4} {pct(r['tool_agreement']):>6} "
                     f"{delta(r['tool_agreement_vs_none']):>8} {pct(r['arguments_agreement']):>6} "
                     f"{delta(r['arguments_agreement_vs_none']):>8} {pct(r['same_as_no_compression']):>6} "
                     f"{pct(r['valid']):>6}")
    return "\n".join(lines)


# ── the check as one request (the door's `decide_next`, `bench --decide-with`) ──────────────────────

@dataclass
class DecideRequest:
    """The benchmark's runs and settings (engine/benchmark.BenchmarkRequest) and the model that decides."""

    benchmark: BenchmarkRequest          # dataset, strategies, grids, summarizer, runs
    decide_with: str = "builtin"         # "builtin" or "endpoint"
    endpoint: Optional[Endpoint] = None  # with "endpoint": its Endpoint
    key: Optional[str] = field(default=None, repr=False)
    calls_per_run: int = CALLS_PER_RUN
    max_tokens: int = MAX_TOKENS
    context_chars: int = CONTEXT_CHARS
    lifted: bool = False


def decider_for(request: DecideRequest, stop: Any = None) -> Decider:
    """The decider: the built-in model (constrained by the tools' schema) or the endpoint client."""
    if request.decide_with == "builtin":
        from scratchpad_lab.engine.summarize.builtin_model import build
        llm = build(max_tokens=request.max_tokens)
    elif request.decide_with == "endpoint" and request.endpoint is not None:
        from scratchpad_lab.engine.net.providers import EndpointLLM, resolve_key
        llm = EndpointLLM(request.endpoint, request.key or resolve_key(request.endpoint))
    else:
        from scratchpad_lab.engine.strategies.registry import StrategyError
        raise StrategyError("--decide-with is builtin or endpoint (endpoint needs --decide-model NAME).")
    if isinstance(stop, threading.Event):
        llm.stop_event = stop
    return Decider(llm, constrained=request.decide_with == "builtin", max_tokens=request.max_tokens,
                   context_chars=request.context_chars)


def decide_benchmark(request: DecideRequest, progress: Optional[Callable[[int, int, str], None]] = None,
                     stop: Any = None) -> DecideResult:
    """Plan the benchmark's units, check the work limit, and re-decide every checked call under every row."""
    from scratchpad_lab.engine.studies.benchmark import plan_settings, unit_of
    from scratchpad_lab.engine.files.dataset import Dataset, read_dataset
    from scratchpad_lab.engine.limits import check_decisions
    from scratchpad_lab.engine.summarize.summarizers import build_summarizer

    if not 1 <= int(request.calls_per_run) <= 50:
        from scratchpad_lab.engine.strategies.registry import StrategyError
        raise StrategyError("--decide-calls is out of range (1 to 50).")
    b = request.benchmark
    dataset = b.dataset if isinstance(b.dataset, Dataset) else read_dataset(b.dataset, b.runs)
    dataset = dataset.first(b.runs)
    settings = plan_settings(b.strategies, b.grids)
    units = [unit_of(i, run, settings) for i, run in enumerate(dataset.usable)]
    from scratchpad_lab.engine.strategies.engine import trajectory_text

    rows = 2 + len(settings)  # at most: a row that sent what another sent is asked nothing more
    check_decisions([(min(len(u.calls.calls), request.calls_per_run) * rows,
                      min(request.context_chars, len(trajectory_text(u.run.trace)))) for u in units],
                    builtin=request.decide_with == "builtin", max_tokens=request.max_tokens, lifted=request.lifted)
    decider = decider_for(request, stop)
    summarizer = build_summarizer(b.summarizer, stop=stop if isinstance(stop, threading.Event) else None)
    return decide_units(units, summarizer, decider, request.calls_per_run, progress, stop)
