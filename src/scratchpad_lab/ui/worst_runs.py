"""A benchmark's worst run, opened in the Strategies view at the call where an argument was lost.

The Benchmark page lists a setting's worst runs (engine/benchmark.SettingSummary.worst: the runs with the lowest
argument recall, each with the calls that lost values). Opening one (`open_worst`) hands that dataset run's
trajectory to the Strategies page as an entry its trajectory picker selects (kept with the tab's opened
entries, LIB_OPENED, under "bench:<n>", so Runs and Compare list it too), picks that strategy with the cell's
settings in its widgets, starts the same Strategies job its Run button would (the door's `strategies`, with the
benchmark's own summarizer, so the replay is the benchmark's cell again) and switches page. A Strategies run still
going is not cut short: the click is refused in one line saying what to do; one that has ended, taken in by its page
or not, is replaced. The Strategies
page calls `opened_note(entry)`: while that entry is picked, a note names the run, the setting, each call that
lost values and the values lost, and the step its "What each strategy sent" slider starts at is the call that
lost the most.

A run's name and its lost values come from the dataset: they are shown with st.text only; the entry's title
is our own words and numbers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import streamlit as st

from scratchpad_lab.engine.strategies.registry import strategy
from scratchpad_lab.engine.tasks import StrategiesRequest, TraceReplayRequest, knobs, make_spec, replay_trace
from scratchpad_lab.engine.tasks import strategies as strategies_task
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.ui import live
from scratchpad_lab.ui.problems import show_problem
from scratchpad_lab.ui.setting_words import label_words
from scratchpad_lab.ui.state import BENCH_OPENED, LIB_OPENED, STRAT_JOB, STRAT_SOURCE

STRATEGIES_PAGE = "pages/strategies.py"
OPEN_PROBLEM = "This run could not be opened in the Strategies view."
BUSY = ("A Strategies run is still going in this tab: stop it on the Strategies page or let it finish, then press "
        "Open in Strategies again.")


@dataclass(frozen=True)
class OpenedWorst:
    """What the Strategies page names about a worst run opened from the Benchmark."""

    entry_key: str                                   # the Strategies entry it opened ("bench:<n>")
    run: str                                         # the dataset run's name (untrusted: st.text only)
    setting: str                                     # the benchmark setting's label
    strategy: str
    recall: float                                    # its argument recall under that setting
    calls: Tuple[Tuple[int, str, Tuple[str, ...]], ...]  # (iteration, tool, values lost), the worst call first

    @property
    def step(self) -> int:
        """The model call to show first: the one that lost the most values."""
        return self.calls[0][0] if self.calls else 1

    def lines(self) -> Tuple[str, ...]:
        """The note's lines that quote the dataset (plain text)."""
        head = f"{self.run} under {label_words(self.setting)}: {self.recall:.0%} of the needed argument values were kept."
        return (head,) + tuple(f"Call {i} ({tool}) was sent a context without: {', '.join(lost)}"
                               for i, tool, lost in self.calls)


def _entry_for(run: Any) -> Any:
    """The tab's entry of this dataset run (made once: the run's trace, and its replay with the package defaults,
    which is what the Runs page shows of a trace)."""
    from scratchpad_lab.ui.runs_page import Entry

    opened: Dict[str, Any] = st.session_state[LIB_OPENED]
    for entry in opened.values():
        if entry.source == "benchmark" and entry.loaded is run.trace:
            return entry
    number = sum(1 for e in opened.values() if e.source == "benchmark") + 1
    key = f"bench:{number}"
    record = replay_trace(TraceReplayRequest(run.trace, "benchmark run replayed with the package defaults",
                                             "benchmark run")).run_here()
    title = f"benchmark #{number} · worst run · trace of {len(run.trace.steps)} steps"
    opened[key] = Entry(key, "benchmark", title, run.trace, record, run.name, run.report, list(run.warnings))
    return opened[key]


def _widget_value(knob: Any, value: Any) -> Any:
    """A setting's value as the Strategies page's widget for that knob holds it."""
    if knob.kind == "names":
        return " ".join(value) if isinstance(value, (list, tuple)) else str(value or "")
    if knob.kind == "fraction":
        return None if value is None else float(value)
    if knob.kind == "text":
        return str(value)
    return None if value is None else int(value)


def open_worst(result: Any, ran: Any, label: str, worst: Dict[str, Any]) -> bool:
    """Open one of `label`'s worst runs in the Strategies view (see the module's docstring); True when the page is
    to switch. `result` is the Benchmark, `ran` the BenchmarkRequest that made it (its dataset and summarizer)."""
    run = next((r for r in ran.dataset.usable if r.name == worst["run"]), None)
    record = next((r for r in result.runs if r["name"] == worst["run"]), None)
    cell = (record or {}).get("cells", {}).get(label)
    if run is None or cell is None:
        show_problem(OPEN_PROBLEM, "The benchmark's dataset no longer holds this run: run the benchmark again.")
        return False
    if live.running(STRAT_JOB):  # one that has ended is replaced below, seen on its page or not
        st.warning(BUSY)
        return False
    name, settings = cell["strategy"], dict(cell.get("settings") or {})
    try:
        entry = _entry_for(run)
        spec = make_spec(name, settings)
        job = strategies_task(StrategiesRequest(entry.loaded, (spec,), ran.summarizer, (entry.key, (name,)),
                                                entry.title))
    except LabError as exc:  # the work limit, or a setting the run cannot take
        show_problem(OPEN_PROBLEM, exc.sentence)
        return False
    state = st.session_state
    state[STRAT_SOURCE] = state["strat_source"] = entry.key
    state["strat_pick"] = [name]
    for knob in knobs(name):
        if knob.key in settings:
            state[f"strat_{name}_{knob.key}"] = _widget_value(knob, settings[knob.key])
    choice = ran.summarizer
    if choice is not None and choice.kind in ("extractive", "builtin"):  # an endpoint's widgets stay the person's
        state["strat_summarizer"], state["strat_budget"] = choice.kind, int(choice.budget_chars)
    state.pop("strat_step", None)  # the slider starts at the losing call (opened_note)
    calls = tuple((int(c["iteration"]), str(c["tool"]),
                   tuple(str(v) for v in c["lost"]) + tuple(f"{v} (in a file its context names: recoverable)"
                                                            for v in c.get("recoverable", ())))
                  for c in worst["lost"])
    state[BENCH_OPENED] = OpenedWorst(entry.key, run.name, label, name, float(worst["argument_recall"]), calls)
    # A Strategies run that ended while its page was not on screen was never taken in, and held the slot: this run
    # replaces it (its result would have been replaced by this one's the moment it ends).
    live.settle(STRAT_JOB)
    live.start(STRAT_JOB, job)
    return True


def opened_note(entry: Any) -> Optional[int]:
    """On the Strategies page: while the picked entry is a worst run opened from the Benchmark, the note naming
    where its arguments were lost; returns the step the slider starts at (None otherwise)."""
    opened: Optional[OpenedWorst] = st.session_state.get(BENCH_OPENED)
    if opened is None or opened.entry_key != entry.key:
        return None
    with st.container(border=True, key="strat_bench_note"):
        st.info(f"Opened from the Benchmark: a worst run of {strategy(opened.strategy).title}, replayed with the "
                f"benchmark's settings and summarizer. The step below starts at call {opened.step}, where it lost "
                "the most: look for the lost values in what the strategy sent.", icon=":material/leaderboard:")
        for line in opened.lines():
            st.text(line)  # the run's name, its tools and values come from the dataset
    return opened.step
