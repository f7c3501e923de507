"""The shipped sample runs tell the truth: each one, run again under its own recorded settings, gives
the figures it records (the answer score, the compressions and where they happened, sizes, facts
kept, the final answer). A sample recorded before the agent, the summarizer or the fact extractor
changed would show a person figures no run gives any more; re-record them with the CLI (README,
"Sample runs")."""
from __future__ import annotations

import dataclasses

import pytest

from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.engine.run.runner import Run
from scratchpad_lab.model.records import load_record
from scratchpad_lab.ui.library import sample_files

SAMPLES = sample_files()
# Figures that measure the machine, not the run, are left out.
TIMED = {"summarizer_latency_s"}


def _figures(record) -> dict:
    summary = dataclasses.asdict(figures(record.events, record.scenario))
    compressions = [(e.iteration, e.payload.reason, e.payload.status, e.payload.before_chars, e.payload.after_chars)
                    for e in record.events if e.kind == "compression"]
    trims = [(e.iteration, e.payload.before_chars, e.payload.after_chars) for e in record.events if e.kind == "trim"]
    return {**{k: v for k, v in summary.items() if k not in TIMED}, "compression events": compressions,
            "trims": trims, "final answer": record.final_answer}  # facts kept is in the figures row


def test_there_are_samples_to_check():
    assert len(SAMPLES) >= 5, SAMPLES


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_a_sample_run_again_under_its_own_settings_gives_its_recorded_figures(path):
    recorded = load_record(path)
    assert recorded.mode == "scenario", "every shipped sample is a scenario run, which can be run again"
    again = Run(recorded.config.replace(step_delay_s=0.0)).run()
    assert _figures(again) == _figures(recorded), f"{path.name} is stale: re-record it with the CLI"
