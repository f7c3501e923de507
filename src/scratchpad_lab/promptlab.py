"""Prompt lab: one scratchpad, several summarizer prompts x several summarizers, side by side.

Streamlit-free, so the page, the CLI and the tests share it. What it guarantees:

- a **snapshot** is a scratchpad the middleware saw (or would see): the K-th compression of a run,
  the scratchpad as iteration N started, a trace replayed with the package defaults to find one, or
  pasted text;
- every cell goes through the package's own path: a real `AutoSummarizeMiddleware` is fired once on
  a stand-in agent holding the snapshot, its summarizer wrapped by the run observer (observe.py), so
  the prompt is formatted exactly as in a run (the package formats its prompt, the observer swaps in
  the custom template for that very scratchpad), the scratchpad after is what the package writes, and
  the compression event is recorded by the same hook as in a run;
- calls run concurrently, at most `per_endpoint` at a time per endpoint, and each cell can be
  cancelled (a cell not started never starts; a call in flight is abandoned, its reply ignored);
- each cell is scored by the one home of each rule: facts (facts.py), flags (quality.py), probes
  (probes.py), cost (pricing.py).
"""
from __future__ import annotations

import copy
import difflib
import re
import string
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from autourgos_summarizer import AutoSummarizeMiddleware

from .engine.config import PACKAGE_PROMPT, PROMPT_PLACEHOLDERS, ConfigError, RunConfig, validate_prompt_template
from .engine.events import Event, RunLog
from .engine.extractive import ExtractiveSummarizer
from .analysis.facts import Fact, extract_facts, retention
from .analysis.metrics import of_kind
from .engine.observe import ObservedSummarizer, RunObserver
from .analysis.pricing import cost_usd
from .analysis.probes import ProbeQuestion, ProbeResult, run_probes, scenario_probes
from .engine.providers import Endpoint, EndpointLLM
from .analysis.quality import flags_for
from .files.records import RunRecord
from .engine.tokens import TokenCounter
from .files.trace import RecordError, Trace

MAX_PROMPTS = 4
MAX_SUMMARIZERS = 3
MAX_PROMPT_CHARS = 20_000
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
    if len(text) > MAX_PROMPT_CHARS:
        return PromptCheck(text, None, [f"The prompt is {len(text):,} characters; the limit is "
                                        f"{MAX_PROMPT_CHARS:,}. Shorten it."])
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


# ── snapshots ───────────────────────────────────────────────────────────────────────────────────

class SnapshotError(ValueError):
    """The snapshot asked for does not exist in that run; the message says what does."""


@dataclass
class Snapshot:
    scratchpad: str
    query: str = ""
    iteration: int = 1
    label: str = "pasted text"
    scenario: Optional[str] = None
    extractive_budget_chars: int = 1_500

    def facts(self) -> List[Fact]:
        return extract_facts(self.scratchpad, self.expected)

    @property
    def expected(self) -> List[str]:
        from .scenarios import SCENARIOS
        return [f.value for f in SCENARIOS[self.scenario].expected_facts] if self.scenario in SCENARIOS else []


def _task(record: RunRecord) -> str:
    starts = of_kind(record.events, "run_start")
    return str(starts[0].data.get("task", "")) if starts else ""


def compressions_of(record: RunRecord) -> List[Event]:
    return of_kind(record.events, "compression")


def iterations_of(record: RunRecord) -> List[int]:
    return [int(e.iteration) for e in of_kind(record.events, "iteration") if e.iteration]


def snapshot_at_compression(record: RunRecord, k: int, label: str = "run") -> Snapshot:
    """The scratchpad the K-th compression (1-based) of a run saw."""
    comps = compressions_of(record)
    if not comps:
        raise SnapshotError(f"{label} has no compression; pick an iteration instead, or a run with compressions.")
    if not 1 <= k <= len(comps):
        raise SnapshotError(f"{label} has {len(comps)} compression(s); --compression must be 1 to {len(comps)}.")
    e = comps[k - 1]
    return Snapshot(str(e.data.get("before", "")), _task(record), int(e.iteration or 1),
                    f"{label}, compression {k} (iteration {e.iteration})", record.scenario,
                    record.config.extractive_budget_chars)


def snapshot_at_iteration(record: RunRecord, n: int, label: str = "run") -> Snapshot:
    """The scratchpad as iteration N started: what the middleware saw (before any compression)."""
    events = {int(e.iteration): e for e in of_kind(record.events, "iteration") if e.iteration}
    if n not in events:
        last = max(events) if events else 0
        raise SnapshotError(f"{label} has iterations 1 to {last}; --iteration must be in that range.")
    comp = next((e for e in compressions_of(record) if e.iteration == n), None)
    text = str(comp.data.get("before", "")) if comp else str(events[n].data.get("scratchpad", ""))
    if not text.strip():
        raise SnapshotError(f"The scratchpad is empty as iteration {n} of {label} starts; pick a later iteration.")
    return Snapshot(text, _task(record), n, f"{label}, iteration {n}", record.scenario,
                    record.config.extractive_budget_chars)


def record_for(loaded: Union[RunRecord, Trace], label: str = "trace") -> RunRecord:
    """A run record to take snapshots from: a trace is replayed with the package defaults."""
    if isinstance(loaded, RunRecord):
        return loaded
    from .files.replay import replay_with_defaults  # what replaying a file means is decided there
    return replay_with_defaults(loaded, name="", label=label)


# ── summarizers ─────────────────────────────────────────────────────────────────────────────────

@dataclass
class SummarizerSpec:
    """The extractive reference (endpoint None) or an endpoint model. The key is used for this
    matrix's calls and kept nowhere else."""

    endpoint: Optional[Endpoint] = None
    key: str = field(default="", repr=False)

    @property
    def name(self) -> str:
        return "extractive" if self.endpoint is None else self.endpoint.model

    @property
    def slot(self) -> str:
        """Which concurrency limit the calls count against: one per endpoint (server)."""
        return "extractive" if self.endpoint is None else self.endpoint.url

    def build(self, budget_chars: int):
        if self.endpoint is None:
            return ExtractiveSummarizer(budget_chars)
        return EndpointLLM(self.endpoint, self.key)


@dataclass
class PromptVariant:
    name: str
    text: str


# ── cells ───────────────────────────────────────────────────────────────────────────────────────

class _SnapshotAgent:
    """What the middleware and the observer read from an agent, holding one snapshot."""

    tool_calling_mode = "prompt"
    logger = None

    def __init__(self, scratchpad: str, query: str) -> None:
        self.scratchpad = scratchpad
        self.current_query = query


@dataclass
class Cell:
    prompt: str                      # the prompt's name
    summarizer: str                  # "extractive" or the model name
    row: int
    col: int
    status: str = "pending"          # pending | running | ok | empty | error | cancelled
    compression: Dict[str, Any] = field(default_factory=dict)  # the compression event, annotated
    probes: List[ProbeResult] = field(default_factory=list)
    cost: Optional[float] = None

    @property
    def done(self) -> bool:
        return self.status in ("ok", "empty", "error", "cancelled")

    @property
    def summary(self) -> str:
        return str(self.compression.get("response", ""))

    @property
    def kept(self) -> List[str]:
        lost = set(self.compression.get("facts_lost", []))
        return [f for f in self.compression.get("facts_before", []) if f not in lost]

    def to_json(self) -> Dict[str, Any]:
        """The CLI's JSON shape, exactly."""
        c = self.compression
        return {"prompt": self.prompt, "summarizer": self.summarizer,
                "status": self.status if self.status in ("ok", "empty", "error") else "error",
                "summary": self.summary, "before_chars": int(c.get("before_chars", 0)),
                "after_chars": int(c.get("after_chars", 0)), "before_tokens": int(c.get("before_tokens", 0)),
                "after_tokens": int(c.get("after_tokens", 0)), "facts_before": list(c.get("facts_before", [])),
                "facts_lost": list(c.get("facts_lost", [])), "flags": list(c.get("flags", [])),
                "latency_s": round(float(c.get("latency_s", 0.0)), 4), "tokens_in": int(c.get("tokens_in", 0)),
                "tokens_out": int(c.get("tokens_out", 0)),
                "error": c.get("error") if self.status != "cancelled" else "cancelled"}


def compress_once(snapshot: Snapshot, template: Optional[str], summarizer: Any, model: str,
                  max_scratchpad_chars: int = 15_000, stop_event: Optional[threading.Event] = None) -> Dict[str, Any]:
    """Fire the package's middleware once on the snapshot, observed as in a run; return the
    compression event's data plus its iteration (the shape quality.annotate gives). `stop_event`
    set: a model call in flight is abandoned at once (the observer's own bounded call)."""
    config = RunConfig.build(scenario=None, summarizer_prompt=template,
                             max_scratchpad_chars=max_scratchpad_chars)
    log = RunLog()
    # summarize_every=1: iteration % 1 == 0, so the package fires at this iteration for its own reason.
    middleware = AutoSummarizeMiddleware(summarize_every=1, max_scratchpad_chars=max_scratchpad_chars)
    obs = RunObserver(log, config, middleware, TokenCounter(None), TokenCounter(model))
    if stop_event is not None:
        obs.stop_event = stop_event
    agent = _SnapshotAgent(snapshot.scratchpad, snapshot.query)
    obs.agent = agent
    obs.iteration = snapshot.iteration - 1
    middleware.llm = ObservedSummarizer(summarizer, obs, model=model)
    middleware.on_iteration_start(snapshot.iteration, agent=agent)
    obs.post_hook.on_iteration_start(snapshot.iteration, agent=agent)
    event = of_kind(log.snapshot(), "compression")[0]
    c = {"iteration": event.iteration, **event.data, "reason": "periodic",
         "max_scratchpad_chars": max_scratchpad_chars}
    r = retention(c["before"], c["after"], snapshot.expected)
    c["facts_before"] = [f.text for f in r.before]
    c["facts_lost"] = [f.text for f in r.lost]
    c["facts_lost_kinds"] = {f.text: f.kind for f in r.lost}
    c["facts_retained"] = r.share
    c["flags"] = flags_for(c, template)
    return c


class Matrix:
    """prompts x summarizers on one snapshot, run on worker threads; read `cells` any time."""

    def __init__(self, snapshot: Snapshot, prompts: Sequence[PromptVariant], summarizers: Sequence[SummarizerSpec],
                 probes: Sequence[ProbeQuestion] = (), prices: Optional[dict] = None,
                 per_endpoint: int = PER_ENDPOINT) -> None:
        if not snapshot.scratchpad.strip():
            raise SnapshotError("The snapshot is empty: pick a compression or an iteration, or paste some text.")
        if not 1 <= len(prompts) <= MAX_PROMPTS:
            raise ValueError(f"Give 1 to {MAX_PROMPTS} prompts.")
        if not 1 <= len(summarizers) <= MAX_SUMMARIZERS:
            raise ValueError(f"Give 1 to {MAX_SUMMARIZERS} summarizers.")
        self.snapshot = snapshot
        self.prompts = list(prompts)
        self.summarizers = list(summarizers)
        self.templates: List[str] = []
        for p in self.prompts:
            check = check_prompt(p.text)
            if not check.ok:
                raise ConfigError(f"Prompt “{p.name}”: " + " ".join(check.problems))
            self.templates.append(check.template)
        self.probes = list(probes) or scenario_probes(snapshot.scenario)
        self.prices = prices
        self.per_endpoint = per_endpoint
        self.cells = [Cell(p.name, s.name, i, j) for i, p in enumerate(self.prompts)
                      for j, s in enumerate(self.summarizers)]
        self.stop_event = threading.Event()
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()
        self._built: Dict[int, Any] = {}
        self._pools: Dict[str, ThreadPoolExecutor] = {}
        self._futures: List[Future] = []
        self.started_at: Optional[float] = None
        self.elapsed_s: float = 0.0

    def cell(self, row: int, col: int) -> Cell:
        return self.cells[row * len(self.summarizers) + col]

    @property
    def finished(self) -> bool:
        return all(c.done for c in self.cells)

    @property
    def progress(self) -> float:
        return sum(1 for c in self.cells if c.done) / len(self.cells)

    def start(self) -> "Matrix":
        self.started_at = time.perf_counter()
        for cell in self.cells:
            spec = self.summarizers[cell.col]
            pool = self._pools.get(spec.slot)
            if pool is None:
                pool = self._pools[spec.slot] = ThreadPoolExecutor(
                    max_workers=1 if spec.endpoint is None else self.per_endpoint,
                    thread_name_prefix="prompt-lab")
            self._futures.append(pool.submit(self._run_cell, cell))
        for pool in self._pools.values():
            pool.shutdown(wait=False)
        return self

    def run(self, timeout: Optional[float] = None) -> "Matrix":
        """Start and wait (CLI, tests, bench)."""
        self.start()
        self.wait(timeout)
        return self

    def wait(self, timeout: Optional[float] = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        for f in self._futures:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not self._wait_one(f, remaining):
                return False
        return True

    def _wait_one(self, future: Future, timeout: Optional[float]) -> bool:
        end = None if timeout is None else time.monotonic() + timeout
        while not future.done():
            if self.stop_event.is_set():
                return True  # abandoned: the cell is already marked cancelled
            left = 0.1 if end is None else min(0.1, end - time.monotonic())
            if left <= 0:
                return False
            try:
                future.result(timeout=left)
            except Exception:
                pass
        return True

    def stop(self) -> None:
        """Cancel every cell not done: those not started never start, calls in flight are abandoned."""
        self.stop_event.set()
        with self._lock:
            for cell in self.cells:
                if not cell.done:
                    cell.status = "cancelled"
            self._finish_clock()

    def _finish_clock(self) -> None:
        if self.started_at is not None and all(c.done for c in self.cells):
            self.elapsed_s = time.perf_counter() - self.started_at

    def _summarizer(self, col: int):
        """One client per column, built once (a client costs ~0.1 s of TLS setup); each cell gets a
        shallow copy so its usage figures (set on the object by each call) stay its own."""
        with self._build_lock:
            built = self._built.get(col)
            if built is None:
                built = self._built[col] = self.summarizers[col].build(self.snapshot.extractive_budget_chars)
        return copy.copy(built)

    def _run_cell(self, cell: Cell) -> None:
        with self._lock:
            if self.stop_event.is_set() or cell.done:
                cell.status = "cancelled"
                return
            cell.status = "running"
        spec = self.summarizers[cell.col]
        template = self.templates[cell.row]
        try:
            summarizer = self._summarizer(cell.col)
            c = compress_once(self.snapshot, None if template == PACKAGE_PROMPT else template, summarizer,
                              model=getattr(summarizer, "model_name", spec.name), stop_event=self.stop_event)
            probes = run_probes(c["before"], c["after"], self.probes)
            cost = cost_usd("extractive" if spec.endpoint is None else spec.endpoint.model,
                            int(c.get("tokens_in") or 0), int(c.get("tokens_out") or 0), self.prices)
            status = c["status"]
        except Exception as exc:  # a summarizer that cannot even be built (bad URL): an error cell
            c = {"iteration": self.snapshot.iteration, "status": "error", "error": str(exc), "response": "",
                 "before": self.snapshot.scratchpad, "after": self.snapshot.scratchpad,
                 "before_chars": len(self.snapshot.scratchpad), "after_chars": len(self.snapshot.scratchpad),
                 "facts_before": [f.text for f in self.snapshot.facts()], "facts_lost": [], "flags": ["error_text"],
                 "latency_s": 0.0, "tokens_in": 0, "tokens_out": 0, "prompt": "", "model": spec.name,
                 "reason": "periodic"}
            probes, cost, status = [], None, "error"
        with self._lock:
            if cell.status == "cancelled":  # stopped while the call was in flight: the reply is ignored
                return
            cell.compression, cell.probes, cell.cost, cell.status = c, probes, cost, status
            self._finish_clock()

    def to_json(self) -> List[Dict[str, Any]]:
        return [c.to_json() for c in self.cells]


def differing(cells: Sequence[Cell]) -> List[Cell]:
    """Cells whose summary is not the same as every other cell's (for "show only cells that differ")."""
    seen: Dict[str, int] = {}
    for c in cells:
        seen[c.summary] = seen.get(c.summary, 0) + 1
    return [c for c in cells if seen[c.summary] == 1]


def prompt_file_name(name: str) -> str:
    """A safe file name for a prompt version download."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "prompt"
    return safe[:60] + ".txt"


# ── command line: `scratchpad-lab prompt-lab` (registered in cli.py) ───────────────────────────

class _Append(__import__("argparse").Action):
    """--summarizer and --summarizer-model share one ordered list, so columns keep the order given."""

    def __call__(self, parser, namespace, values, option_string=None):
        items = list(getattr(namespace, "columns", None) or [])
        items.append(("model", values) if option_string == "--summarizer-model" else ("extractive", values))
        namespace.columns = items


def add_cli(sub) -> None:
    p = sub.add_parser("prompt-lab", help="try summarizer prompts x summarizers on one scratchpad")
    p.add_argument("source", help="a run record or a trace (a trace is replayed with the package defaults)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--compression", type=int, metavar="K", help="the scratchpad before the K-th compression")
    which.add_argument("--iteration", type=int, metavar="N", help="the scratchpad as iteration N started")
    p.add_argument("--prompt-file", action="append", required=True, metavar="FILE",
                   help=f"a prompt template file (1 to {MAX_PROMPTS}); its file name names it")
    p.add_argument("--summarizer", action=_Append, choices=["extractive"], help="the offline extractive column")
    p.add_argument("--summarizer-model", action=_Append, metavar="NAME", help="an endpoint model column (repeatable)")
    p.add_argument("--summarizer-base-url", action="append", metavar="URL",
                   help="one per --summarizer-model in order, or one for all (default: OpenAI)")
    p.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the key")
    p.add_argument("--send-key-to-custom-url", action="store_true",
                   help="send a provider's own key variable to a custom base URL too")
    p.add_argument("--probe", action="append", metavar="QUESTION=ANSWER", help="your own probe question")
    p.add_argument("--json", action="store_true", help="print one JSON object per cell")


def _cli_inputs(args):
    """(snapshot, prompts, summarizers, probes) from the arguments; ValueError/RecordError say what is wrong."""
    from pathlib import Path

    from .cli import cli_key, endpoint_for
    from .files.records import load_path

    given = vars(args)
    prompts = []
    if len(args.prompt_file) > MAX_PROMPTS:
        raise ValueError(f"give at most {MAX_PROMPTS} --prompt-file")
    for name in args.prompt_file:
        try:
            text = Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read --prompt-file {name}: {exc}") from None
        check = check_prompt(text)
        if not check.ok:
            raise ValueError(f"--prompt-file {name}: " + " ".join(check.problems))
        prompts.append(PromptVariant(Path(name).name, text))
    columns = given.get("columns") or [("extractive", "extractive")]
    models = [v for kind, v in columns if kind == "model"]
    urls = given.get("summarizer_base_url") or []
    if urls and not models:
        raise ValueError("--summarizer-base-url needs --summarizer-model")
    if len(urls) not in (0, 1, len(models)):
        raise ValueError(f"{len(urls)} --summarizer-base-url for {len(models)} --summarizer-model: give one for "
                         "all, or one per model in order")
    if len(columns) > MAX_SUMMARIZERS:
        raise ValueError(f"give at most {MAX_SUMMARIZERS} summarizers")
    specs, m = [], 0
    for kind, value in columns:
        if kind == "extractive":
            specs.append(SummarizerSpec())
            continue
        url = urls[m] if len(urls) > 1 else (urls[0] if urls else None)
        m += 1
        endpoint = endpoint_for(value, url, given.get("api_key_env") or "")
        specs.append(SummarizerSpec(endpoint, cli_key(endpoint, given, "summarizer")))
    probes = []
    for text in given.get("probe") or []:
        question, sep, answer = text.partition("=")
        if not sep or not question.strip() or not answer.strip():
            raise ValueError(f"--probe {text!r} should be QUESTION=ANSWER")
        probes.append(ProbeQuestion(question.strip(), answer.strip()))
    loaded = load_path(args.source)
    record = record_for(loaded, Path(args.source).name)
    label = Path(args.source).name
    if given.get("compression") is not None:
        snapshot = snapshot_at_compression(record, args.compression, label)
    else:
        snapshot = snapshot_at_iteration(record, args.iteration, label)
    return snapshot, prompts, specs, probes


def run_cli(args) -> int:
    """0: the cells ran (some may be empty or errors); 2: bad arguments or files; 1: no cell could run
    (every cell is an error: e.g. no endpoint could be reached)."""
    import json
    import sys

    from .engine.providers import EndpointError

    try:
        snapshot, prompts, specs, probes = _cli_inputs(args)
        matrix = Matrix(snapshot, prompts, specs, scenario_probes(snapshot.scenario) + probes)
    except (ValueError, RecordError, EndpointError) as exc:  # ConfigError, SnapshotError are ValueErrors
        print(f"scratchpad-lab: error: {exc}", file=sys.stderr)
        return 2
    matrix.run()
    if "json" in vars(args):
        print(json.dumps(matrix.to_json(), ensure_ascii=False))
    else:
        print(f"snapshot: {snapshot.label}: {len(snapshot.scratchpad):,} chars, {len(snapshot.facts())} facts")
        for c in matrix.cells:
            d = c.to_json()
            kept = len(d["facts_before"]) - len(d["facts_lost"])
            print(f"{d['prompt']:<28} {d['summarizer']:<20} {d['status']:<6} {d['before_chars']:>7,} -> "
                  f"{d['after_chars']:>7,} chars, facts kept {kept}/{len(d['facts_before'])}, "
                  f"{d['latency_s']:.2f} s" + (f", error: {d['error']}" if d["error"] else ""))
    return 0 if any(c.status in ("ok", "empty") for c in matrix.cells) else 1
