"""Compare and sweep: one trajectory replayed under several compression settings.

Streamlit-free (the Compare page, the CLI `sweep` and the benchmark use it). The agent's path is held
fixed, so settings are compared on exactly the same work:
- a scenario run is re-run by its deterministic scripted policy (same tool calls; its final answer
  still comes from what is left in the scratchpad, so the answer score moves);
- a trace, or a recorded real-model run, is replayed step for step and keeps its recorded answer.
`context_tokens_saved` is measured against the same trajectory with compression off (the middleware
never fires) and the same agent trim.
`compare` and `compression_off` run as jobs on the pages (engine/jobs.py): they take a progress
callback and a stop flag; a replay stops at its next iteration, and a stopped comparison raises Stopped.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

from scratchpad_lab.model.config import ConfigError, RunConfig, field_default, largest, triggers_text
from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.analysis.quality import savings
from scratchpad_lab.engine.cells.dispatch import opened
from scratchpad_lab.engine.cells.executor import (ExecutorChoice, Outcome, Placement, RunShare, StudyCell, Work,
                                                 new_key, plain)
from scratchpad_lab.engine.jobs import Report, StopFlag
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.engine.run.replay import replay_source
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.summarizer import SummarizerChoice
from scratchpad_lab.model.trace import Trace

MAX_SETTINGS = 6
MAX_GRID = 6
NEVER = {"summarize_every": None, "max_scratchpad_chars": largest("max_scratchpad_chars")}  # the middleware never fires
# Nothing is cut at all: the middleware never fires, the agent trims nothing and keeps every tool result whole
# (the scratchpad strategies' no-compression baseline, engine/strategies/engine.py).
UNCUT = {**NEVER, "agent_trim_chars": largest("agent_trim_chars"),
         "max_tool_output_chars": largest("max_tool_output_chars")}


@dataclass
class Setting:
    """One column of a comparison: the compression knobs that differ between columns."""

    summarize_every: Optional[int] = field_default("summarize_every")
    max_scratchpad_chars: int = field_default("max_scratchpad_chars")
    agent_trim_chars: Optional[int] = None        # None: the base config's
    summarizer: Optional[SummarizerChoice] = None  # None: the base config's (its key, if any, is the job's, not here)
    prompt_name: Optional[str] = None               # a prompt-lab version's name for the summarizer's prompt

    def changes(self) -> Dict:
        out = {"summarize_every": self.summarize_every, "max_scratchpad_chars": self.max_scratchpad_chars}
        for name in ("agent_trim_chars", "summarizer", "prompt_name"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def label(self) -> str:
        text = triggers_text(self.summarize_every, self.max_scratchpad_chars)
        if self.agent_trim_chars is not None:
            text += f" / trim {self.agent_trim_chars:,}"
        chosen = self.summarizer
        if chosen is not None:
            text += f" / {chosen.endpoint.model}" if chosen.kind == "endpoint" and chosen.endpoint else f" / {chosen.kind}"
        if self.prompt_name:
            text += f" / prompt “{self.prompt_name}”"
        elif chosen is not None and chosen.prompt:
            text += " / custom prompt"
        return text


def replay_one(source: Source, base: RunConfig, changes: Dict, keys: Optional[Dict[str, str]] = None,
               stop: Optional[StopFlag] = None, report: Optional[Report] = None) -> RunRecord:
    """One replay under `changes`; with `stop` set it ends at its next iteration (then Stopped is raised)."""
    config = base.replace(**{**changes, "step_delay_s": 0.0})
    record = Run(config, source, keys=keys, name=_name(changes), stop=stop, report=report).run()
    if stop is not None:
        stop.check()
    return record


def _name(changes: Dict) -> str:
    return Setting(**{k: changes.get(k) for k in ("summarize_every", "max_scratchpad_chars")}).label()


def row(record: RunRecord, baseline: RunRecord, prices: Optional[dict] = None) -> Dict:
    """One comparison row, in the shape `scratchpad-lab sweep --json` prints. Every figure comes from
    its one home: the run's figures row (figures.figures: compressions, calls, sizes as sent, facts
    kept), savings from quality.savings."""
    s = figures(record.events, record.scenario, prices)
    saved = savings(record.events, baseline.events)
    c = record.config
    return {
        "summarize_every": c.summarize_every,
        "max_scratchpad_chars": c.max_scratchpad_chars,
        "compressions": s.compressions,
        "summarizer_calls": s.summarizer_calls,
        "summarizer_tokens_in": s.summarizer_tokens_in,
        "summarizer_tokens_out": s.summarizer_tokens_out,
        "peak_context_tokens": s.peak_tokens,
        "mean_context_tokens": s.mean_tokens,
        "context_tokens_saved": saved.context_tokens_saved,
        "answer_score": s.answer_score,
        "facts_retained": s.facts_retained,
        "net_tokens_saved": saved.net_tokens_saved,
    }


def compare(loaded: Union[RunRecord, Trace], settings: Sequence[Setting], *, keys: Optional[Dict[str, str]] = None,
            progress: Optional[Callable[[int, int, str], None]] = None, stop: Optional[StopFlag] = None) -> tuple:
    """Replay under each setting. Returns (records, baselines by agent trim, keeps_recorded_answer).

    `progress(replays done, settings, the setting replaying now)` before each setting and once at the end;
    `stop` set: the replay going on ends at its next iteration and Stopped is raised."""
    if not 1 <= len(settings) <= MAX_SETTINGS * MAX_GRID:
        raise ConfigError(f"between 1 and {MAX_SETTINGS * MAX_GRID} settings, got {len(settings)}")
    # What replaying a file means is decided in one place (replay.py): never a model or key of the file's.
    source, base, keeps_answer, _ = replay_source(loaded)  # reusable: every Run builds its own agent
    total = len(settings)
    baselines: Dict[int, RunRecord] = {}
    records: List[RunRecord] = []
    for index, setting in enumerate(settings):
        changes = setting.changes()
        trim = changes.get("agent_trim_chars", base.agent_trim_chars)
        if progress:
            progress(index, total, setting.label())
        if trim not in baselines:
            baselines[trim] = replay_one(source, base, {**NEVER, "agent_trim_chars": trim}, stop=stop)
        records.append(replay_one(source, base, changes, keys, stop=stop))
    if progress:
        progress(total, total, "done")
    return records, baselines, keeps_answer


def sweep_context(share: RunShare, summarizer: Any = None, counter: Any = None) -> Dict[str, Any]:
    """What a sweep's cells share in one process: how to replay the run (its record, else its trajectory), and the
    compression-off baselines, worked out at the first cell that needs each agent trim. The study's summarizer is
    the run's own setting, so `summarizer` and `counter` are not used."""
    loaded = share.record if share.record is not None else share.trace
    if loaded is None:
        raise ValueError("a sweep needs the run's record or trajectory.")
    source, base, _, _ = replay_source(loaded)
    return {"source": source, "base": base, "baselines": {}}


def sweep_cell(strategy: str, settings: Dict[str, Any], price_model: Optional[str],
               context: Dict[str, Any]) -> Outcome:
    """One cell of a sweep: the run replayed with `settings` and its row (`row`) against its baseline."""
    source, base, baselines = context["source"], context["base"], context["baselines"]
    trim = settings.get("agent_trim_chars", base.agent_trim_chars)
    if trim not in baselines:
        baselines[trim] = replay_one(source, base, {**NEVER, "agent_trim_chars": trim})
    return plain(row(replay_one(source, base, settings), baselines[trim])), None, 0


SWEEP = Work(sweep_context, sweep_cell)   # a sweep's cell, run where the executor puts it


def sweep_rows(loaded: Union[RunRecord, Trace], settings: Sequence[Setting], processes: Optional[int] = None,
               executor: Optional[ExecutorChoice] = None) -> List[Dict]:
    """The rows of `compare` + `row` for every setting (what `scratchpad-lab sweep` prints), the cells run through
    the one executor (engine/cells/executor.py): on a multi-core machine in worker processes beside this thread, or
    on Ray. Same rows, in the same order, either way."""
    if not 1 <= len(settings) <= MAX_SETTINGS * MAX_GRID:
        raise ConfigError(f"between 1 and {MAX_SETTINGS * MAX_GRID} settings, got {len(settings)}")
    changes = [setting.changes() for setting in settings]
    share = RunShare(new_key(), loaded if isinstance(loaded, Trace) else loaded.trace,
                     budget_chars=SummarizerChoice().budget_chars, record=None if isinstance(loaded, Trace) else loaded)
    here = sweep_context(share)  # a record with nothing to replay is refused here, before any process starts
    # a cell crosses to a worker as JSON: the summarizer as its plain fields (never a key), folded back on replay
    cells = [StudyCell(0, str(k), "sweep", {name: value.model_dump() if isinstance(value, SummarizerChoice) else value
                                            for name, value in change.items()}) for k, change in enumerate(changes)]
    rows: List[Optional[Dict]] = [None] * len(cells)
    # A setting naming a model of its own (never a worker's: it holds no key) runs here, in this thread.
    offline = all(c.get("summarizer") is None or c["summarizer"].kind in ("extractive", "silent") for c in changes)
    processes = min(2, os.cpu_count() or 1) if processes is None else processes

    def collect(cell: StudyCell, outcome: Outcome) -> None:
        rows[int(cell.label)] = outcome[0]

    with opened(executor, processes if offline and len(changes) >= 4 else 1) as cells_here:
        cells_here.run([share], cells, SWEEP, SummarizerChoice(), None, collect, None, Placement(),
                       here=lambda _share: here)
    return [r for r in rows if r is not None]


def baseline_for(record: RunRecord, baselines: Dict[int, RunRecord]) -> RunRecord:
    return baselines[record.config.agent_trim_chars]


def grid(summarize_every: Iterable[Optional[int]], max_scratchpad_chars: Iterable[int]) -> List[Setting]:
    everies, caps = list(summarize_every), list(max_scratchpad_chars)
    if not everies or not caps or len(everies) > MAX_GRID or len(caps) > MAX_GRID:
        raise ConfigError(f"a sweep takes 1 to {MAX_GRID} values of each setting")
    return [Setting(summarize_every=e, max_scratchpad_chars=c) for e in everies for c in caps]


def compression_off(loaded: Union[RunRecord, Trace], stop: Optional[StopFlag] = None,
                    report: Optional[Report] = None) -> RunRecord:
    """The same trajectory with compression off (the middleware never fires) and the same agent trim.
    `report(iteration, total, text)` as the replay goes; `stop` set: Stopped at its next iteration."""
    source, base, _, _ = replay_source(loaded)
    return replay_one(source, base, NEVER, stop=stop, report=report)
