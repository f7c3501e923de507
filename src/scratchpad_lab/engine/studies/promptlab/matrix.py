"""Prompt lab: snapshots, summarizers, and the prompts x summarizers matrix (concurrent, cancellable),
each cell through the package's own middleware path.

Streamlit-free. The matrix is a job (engine/jobs.py): its worker hands the cells to one pool per endpoint
and reports cells done; stop() cancels the cells not done at once."""

import copy
import re
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait as wait_futures
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from autourgos_summarizer import AutoSummarizeMiddleware

from scratchpad_lab.model.config import PACKAGE_PROMPT, ConfigError, RunConfig, field_default
from scratchpad_lab.model.events import Event, RunLog
from scratchpad_lab.analysis.facts import Fact, extract_facts
from scratchpad_lab.engine.jobs import Job, Report, StopFlag, USER_STOP
from scratchpad_lab.analysis.metrics import of_kind
from scratchpad_lab.engine.run.observe import ObservedSummarizer, RunObserver
from scratchpad_lab.analysis.pricing import cost_usd
from scratchpad_lab.analysis.probes import ProbeQuestion, ProbeResult, run_probes, scenario_probes
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.analysis.quality import annotate_one
from scratchpad_lab.model.compression import FORCED_BY_PROMPT_LAB, compression_data
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.model.summarizer import SummarizerChoice
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.model.trace import Trace

from scratchpad_lab.engine.studies.promptlab.prompts import MAX_PROMPTS, MAX_SUMMARIZERS, PER_ENDPOINT, check_prompt

# ── snapshots ───────────────────────────────────────────────────────────────────────────────────

class SnapshotError(LabError, ValueError):
    """The snapshot asked for does not exist in that run; the message says what does."""


@dataclass
class Snapshot:
    scratchpad: str
    query: str = ""
    iteration: int = 1
    label: str = "pasted text"
    scenario: Optional[str] = None
    extractive_budget_chars: int = field_default("extractive_budget_chars")

    def facts(self) -> List[Fact]:
        return extract_facts(self.scratchpad, self.expected)

    def prompt(self, template: str) -> str:
        """What a summarizer is sent for this snapshot with `template` (a checked template), as the package fills it."""
        return template.format(query=self.query, iteration=self.iteration, scratchpad=self.scratchpad)

    def too_long(self, prompts: Sequence["PromptVariant"], summarizers: Sequence[SummarizerChoice]) -> List[str]:
        """Before a matrix runs: a sentence for each prompt likely too long, with this scratchpad, for the built-in
        model's context (when a column is the built-in model); the model's own count refuses it at the call."""
        if not any(s.kind == "builtin" for s in summarizers):
            return []
        from scratchpad_lab.engine.summarize.builtin_model import too_long_for_model
        out = []
        for p in prompts:
            check = check_prompt(p.text)
            if check.ok:
                said = too_long_for_model(self.prompt(check.template), f"This scratchpad with the prompt “{p.name}”")
                if said:
                    out.append(said)
        return out

    @property
    def expected(self) -> List[str]:
        from scratchpad_lab.model.scenarios import SCENARIOS
        return [f.value for f in SCENARIOS[self.scenario].expected_facts] if self.scenario in SCENARIOS else []


def _task(record: RunRecord) -> str:
    starts = of_kind(record.events, "run_start")
    return str(starts[0].payload.task) if starts else ""


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
    return Snapshot(str(e.payload.before), _task(record), int(e.iteration or 1),
                    f"{label}, compression {k} (iteration {e.iteration})", record.scenario,
                    record.config.summarizer.budget_chars)


def snapshot_at_iteration(record: RunRecord, n: int, label: str = "run") -> Snapshot:
    """The scratchpad as iteration N started: what the middleware saw (before any compression)."""
    events = {int(e.iteration): e for e in of_kind(record.events, "iteration") if e.iteration}
    if n not in events:
        last = max(events) if events else 0
        raise SnapshotError(f"{label} has iterations 1 to {last}; --iteration must be in that range.")
    comp = next((e for e in compressions_of(record) if e.iteration == n), None)
    text = str(comp.payload.before) if comp else str(events[n].payload.scratchpad)
    if not text.strip():
        raise SnapshotError(f"The scratchpad is empty as iteration {n} of {label} starts; pick a later iteration.")
    return Snapshot(text, _task(record), n, f"{label}, iteration {n}", record.scenario,
                    record.config.summarizer.budget_chars)


def record_for(loaded: Union[RunRecord, Trace], label: str = "trace") -> RunRecord:
    """A run record to take snapshots from: a trace is replayed with the package defaults."""
    if isinstance(loaded, RunRecord):
        return loaded
    from scratchpad_lab.engine.run.replay import replay_with_defaults  # what replaying a file means is decided there
    return replay_with_defaults(loaded, name="", label=label)


# ── summarizers ─────────────────────────────────────────────────────────────────────────────────

# A column's summarizer is a SummarizerChoice (model/summarizer.py): the extractive reference, the built-in
# model or an endpoint model, built by the one builder (engine/summarize/summarizers.py); the key is used for this
# matrix's calls only.

def _slot(choice: SummarizerChoice) -> str:
    """Which concurrency limit a column's calls count against: one per endpoint (server); the built-in model
    and the extractive reference take one cell at a time."""
    if choice.kind == "endpoint" and choice.endpoint:
        return choice.endpoint.url
    return "builtin" if choice.kind == "builtin" else "extractive"


def _build(choice: SummarizerChoice, budget_chars: int):
    """The column's `.invoke(prompt)` summarizer; the extractive reference keeps the snapshot's own budget."""
    from scratchpad_lab.engine.summarize.summarizers import build_summarizer, summarizer_llm
    if choice.kind == "builtin":
        return summarizer_llm(choice)
    if choice.kind != "endpoint":
        choice = SummarizerChoice("extractive", budget_chars)
    return build_summarizer(choice).plain()


@dataclass
class PromptVariant:
    name: str
    text: str


# ── cells ───────────────────────────────────────────────────────────────────────────────────────

# Quality flags (analysis/quality.py) that say a reply is no summary: it replaced the scratchpad, but it is not
# scored as one, and it never wins.
NOT_A_SUMMARY = frozenset({"not_a_summary", "error_text", "unchanged"})

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
    started_s: Optional[float] = None  # time.monotonic() when its call began: the page says how long it waits
    limit_s: Optional[float] = None    # the most its call may take (the built-in model's; an endpoint's tries vary)
    model_status: str = ""             # the built-in model's own words while it waits (loading, its place in the queue)

    def waited_s(self) -> Optional[float]:
        """Seconds this cell's call has been going (None unless it is running)."""
        return time.monotonic() - self.started_s if self.status == "running" and self.started_s else None

    def time_left_s(self) -> Optional[float]:
        """Seconds before its call gives up (None unless it is running with a known limit)."""
        waited = self.waited_s()
        return None if waited is None or self.limit_s is None else max(0.0, self.limit_s - waited)

    def waiting_text(self) -> str:
        """A running cell's line: what it waits for, how long so far, and how long it may still take."""
        waited = self.waited_s() or 0.0
        left = self.time_left_s()
        return (f"waiting for {self.summarizer}, {waited:.0f} s" + (f" ({self.model_status})" if self.model_status else "")
                + (f"; it gives up in {left:.0f} s" if left is not None else ""))

    @property
    def done(self) -> bool:
        return self.status in ("ok", "empty", "error", "cancelled")

    @property
    def is_summary(self) -> bool:
        """Did the summarizer write a summary that replaced the scratchpad? Not for a failed call or an empty reply
        (the package kept the scratchpad as it was: nothing was kept *by a summary*), nor for a reply a quality flag
        says is no summary."""
        return self.status == "ok" and not set(self.compression.get("flags", [])) & NOT_A_SUMMARY

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
                "error": c.get("error") if self.status != "cancelled" else "cancelled",
                "probes": [{"question": r.question, "expected": r.expected, "method": r.method,
                            "answerable_before": r.answerable_before, "answerable_after": r.answerable_after}
                           for r in self.probes]}


def compress_once(snapshot: Snapshot, template: Optional[str], summarizer: Any, model: str,
                  max_scratchpad_chars: int = field_default("max_scratchpad_chars"), stop_event: Optional[threading.Event] = None) -> Dict[str, Any]:
    """Fire the package's middleware once on the snapshot, observed as in a run; return the
    compression event's data plus its iteration (the shape quality.annotate gives). `stop_event`
    set: a model call in flight is abandoned at once (the observer's own bounded call)."""
    config = RunConfig.build(scenario=None, summarizer=SummarizerChoice(prompt=template),
                             max_scratchpad_chars=max_scratchpad_chars)
    log = RunLog()
    # summarize_every=1: iteration % 1 == 0, so the package fires at this iteration for its own reason.
    middleware = AutoSummarizeMiddleware(summarize_every=1, max_scratchpad_chars=max_scratchpad_chars)
    obs = RunObserver(log, config, middleware, TokenCounter(None), TokenCounter(model))
    if stop_event is not None:
        obs.stop_event = stop_event
        if hasattr(summarizer, "stop_event"):  # an endpoint client: a call in flight ends at Stop, closed
            summarizer.stop_event = stop_event
    agent = _SnapshotAgent(snapshot.scratchpad, snapshot.query)
    obs.agent = agent
    obs.iteration = snapshot.iteration - 1
    middleware.llm = ObservedSummarizer(summarizer, obs, model=model)
    middleware.on_iteration_start(snapshot.iteration, agent=agent)
    obs.post_hook.on_iteration_start(snapshot.iteration, agent=agent)
    event = of_kind(log.snapshot(), "compression")[0]
    c = {"iteration": event.iteration, **event.data, "trigger": FORCED_BY_PROMPT_LAB,
         "max_scratchpad_chars": max_scratchpad_chars}
    return annotate_one(c, snapshot.expected, template)


class Matrix(Job):
    """prompts x summarizers on one snapshot, run on worker threads; read `cells` any time."""

    def __init__(self, snapshot: Snapshot, prompts: Sequence[PromptVariant], summarizers: Sequence[SummarizerChoice],
                 probes: Sequence[ProbeQuestion] = (), prices: Optional[dict] = None,
                 per_endpoint: int = PER_ENDPOINT) -> None:
        if not snapshot.scratchpad.strip():
            raise SnapshotError("The snapshot is empty: pick a compression or an iteration, or paste some text.")
        if not 1 <= len(prompts) <= MAX_PROMPTS:
            raise ConfigError(f"Give 1 to {MAX_PROMPTS} prompts.")
        if not 1 <= len(summarizers) <= MAX_SUMMARIZERS:
            raise ConfigError(f"Give 1 to {MAX_SUMMARIZERS} summarizers.")
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
        self.cells = [Cell(p.name, s.model_id, i, j) for i, p in enumerate(self.prompts)
                      for j, s in enumerate(self.summarizers)]
        super().__init__(name="scratchpad-lab-matrix", total=len(self.cells), text=f"0 of {len(self.cells)} cells done")
        self.stop_event = self.stop_flag
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()
        self._built: Dict[int, Any] = {}
        self.started_at: Optional[float] = None
        self._cells_s: Optional[float] = None  # from the start to the last cell done

    def cell(self, row: int, col: int) -> Cell:
        return self.cells[row * len(self.summarizers) + col]

    @property
    def finished(self) -> bool:
        return all(c.done for c in self.cells)

    def work(self, report: Report, stop: StopFlag) -> "Matrix":
        """The job's worker: one pool per endpoint (the extractive reference runs one cell at a time),
        then wait for the cells, reporting each one done, until all are done or the matrix is stopped."""
        self.started_at = time.perf_counter()
        pools: Dict[str, ThreadPoolExecutor] = {}
        futures: List[Future] = []
        for cell in self.cells:
            spec = self.summarizers[cell.col]
            pool = pools.get(_slot(spec))
            if pool is None:
                pool = pools[_slot(spec)] = ThreadPoolExecutor(
                    max_workers=1 if spec.kind != "endpoint" else self.per_endpoint,
                    thread_name_prefix="prompt-lab")
            futures.append(pool.submit(self._run_cell, cell))
        for pool in pools.values():
            pool.shutdown(wait=False)
        pending = set(futures)
        while pending and not stop.is_set():  # stopped: the cells are already marked cancelled
            _, pending = wait_futures(pending, timeout=0.1, return_when=FIRST_COMPLETED)
            done = sum(1 for c in self.cells if c.done)
            report(done, len(self.cells), f"{done} of {len(self.cells)} cells done")
        return self

    def elapsed_s(self) -> float:
        """Seconds the cells took (so far, while they run)."""
        return self._cells_s if self._cells_s is not None else super().elapsed_s()

    def run(self, timeout: Optional[float] = None) -> "Matrix":
        """Start and wait (CLI, tests, bench)."""
        self.start()
        self.wait(timeout)
        return self

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait up to `timeout` s for every cell; True when all are done (or the matrix was stopped)."""
        self.join(timeout)
        return self.finished

    def stop(self, reason: str = USER_STOP) -> None:
        """Cancel every cell not done: those not started never start, calls in flight are abandoned."""
        self.stop_flag.request(reason)
        with self._lock:
            for cell in self.cells:
                if not cell.done:
                    cell.status = "cancelled"
            self._finish_clock()

    def _finish_clock(self) -> None:
        if self.started_at is not None and all(c.done for c in self.cells):
            self._cells_s = time.perf_counter() - self.started_at

    def _summarizer(self, col: int):
        """One client per column, built once (a client costs ~0.1 s of TLS setup); each cell gets a
        shallow copy so its usage figures (set on the object by each call) stay its own."""
        with self._build_lock:
            built = self._built.get(col)
            if built is None:
                built = self._built[col] = _build(self.summarizers[col], self.snapshot.extractive_budget_chars)
        return copy.copy(built)

    def _run_cell(self, cell: Cell) -> None:
        with self._lock:
            if self.stop_event.is_set() or cell.done:
                cell.status = "cancelled"
                return
            cell.status = "running"
            cell.started_s = time.monotonic()
        spec = self.summarizers[cell.col]
        template = self.templates[cell.row]
        try:
            summarizer = self._summarizer(cell.col)
            if getattr(summarizer, "is_builtin_model", False):  # its wait, its place in the queue: on the cell
                cell.limit_s = float(summarizer.timeout_s)
                summarizer.status_listeners = [lambda text: setattr(cell, "model_status", text)]
            c = compress_once(self.snapshot, None if template == PACKAGE_PROMPT else template, summarizer,
                              model=getattr(summarizer, "model_name", spec.model_id), stop_event=self.stop_event)
            probes = run_probes(c["before"], c["after"], self.probes)
            cost = cost_usd(spec.model_id,
                            int(c.get("tokens_in") or 0), int(c.get("tokens_out") or 0), self.prices)
            status = c["status"]
        except Exception as exc:  # a summarizer that cannot even be built (bad URL): an error cell
            text = self.snapshot.scratchpad
            c = annotate_one({"iteration": self.snapshot.iteration, **compression_data(
                reason="periodic", trigger=FORCED_BY_PROMPT_LAB, before=text, after=text, before_tokens=0,
                after_tokens=0, model=spec.model_id, error=str(exc))}, self.snapshot.expected, template)
            probes, cost, status = [], None, "error"
        with self._lock:
            if cell.status == "cancelled":  # stopped while the call was in flight: the reply is ignored
                return
            cell.compression, cell.probes, cell.cost, cell.status = c, probes, cost, status
            cell.model_status = ""
            self._finish_clock()

    def to_json(self) -> List[Dict[str, Any]]:
        return [c.to_json() for c in self.cells]

    def winners(self) -> List[str]:
        """Which prompt kept the most facts (then probes) for each summarizer that follows the prompt: one sentence
        per column, our words and the person's prompt names (plain text). Only summaries compete: a failed call,
        an empty reply or a reply flagged as no summary never wins, and a column without two summaries names no
        winner, saying why when it has none at all."""
        out: List[str] = []
        if len(self.prompts) < 2:
            return out
        for j, spec in enumerate(self.summarizers):
            if not spec.follows_prompt:
                continue  # every row is the same summary
            cells = [self.cell(i, j) for i in range(len(self.prompts))]
            if not all(c.done and c.status != "cancelled" for c in cells):
                continue
            scored = [(_score(c), i) for i, c in enumerate(cells) if c.is_summary]
            if not scored:
                out.append(f"Winning prompt with {spec.heading}: none, no prompt got a summary (each reply failed, "
                           "was empty or was flagged as no summary).")
                continue
            if len(scored) == 1:
                (kept, total, probes, asked), i = scored[0]
                out.append(f"Winning prompt with {spec.heading}: {self.prompts[i].name}, the only prompt that got a "
                           f"summary: {_kept_words(kept, total, probes, asked)}.")
                continue
            best = max(score[0::2] for score, _ in scored)
            ties = [i for score, i in scored if score[0::2] == best]
            kept, total, probes, asked = next(score for score, i in scored if i == ties[0])
            what = _kept_words(kept, total, probes, asked)
            if len(ties) == len(cells):
                out.append(f"Winning prompt with {spec.heading}: none, every prompt kept the same: {what}.")
            elif len(ties) > 1:
                out.append(f"Winning prompt with {spec.heading}: " + ", ".join(self.prompts[i].name for i in ties)
                           + f", tied: each kept {what}.")
            else:
                out.append(f"Winning prompt with {spec.heading}: {self.prompts[ties[0]].name}, which kept the most: "
                           f"{what}.")
        return out


def _score(cell: Cell) -> Tuple[int, int, int, int]:
    """(facts kept, facts before, probes answerable after, probes) of a cell that is a summary."""
    before = cell.compression.get("facts_before", [])
    return (len(before) - len(cell.compression.get("facts_lost", [])), len(before),
            sum(p.answerable_after for p in cell.probes), len(cell.probes))


def _kept_words(kept: int, total: int, probes: int, asked: int) -> str:
    return f"{kept} of {total} facts" + (f" and {probes} of {asked} probes" if asked else "")


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


