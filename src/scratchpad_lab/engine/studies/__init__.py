"""The studies: compare, sweep, recommend, benchmark, decide, and the prompt lab.

Its modules: compare (Compare and the sweep), settings_table (Compare's settings grid), recommender (one trajectory's search), benchmark (a dataset's), benchmark_report (its HTML report), decide (the next call re-decided), front (the one Pareto rule and the chosen points), run_calls (what argument recall reads of a run), promptlab/ (the prompt matrix).

Streamlit-free. Nothing is imported here until it is asked for: each public name below (what modules outside the wing
use) comes from its module on first use, so the first page does without the heavy ones; static tools
read the same names from the imports under TYPE_CHECKING.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scratchpad_lab.engine.studies.benchmark import (Benchmark, BenchmarkRequest, KINDS_COLUMN, PROBLEMS_COLUMN,
        SEED, benchmark_job, run_benchmark)
    from scratchpad_lab.engine.studies.benchmark_report import write_report
    from scratchpad_lab.engine.studies.compare import (MAX_GRID, NEVER, Setting, UNCUT, compression_off, grid,
        sweep_rows)
    from scratchpad_lab.engine.studies.decide import CALLS_PER_RUN, DecideRequest, MAX_TOKENS, decide_benchmark, table
    from scratchpad_lab.engine.studies.promptlab import (Cell, LIBRARY, MAX_PROMPTS, MAX_SUMMARIZERS, Matrix,
        PLACEHOLDER_HELP, PROMPT_LIBRARY, PromptVariant, Snapshot, check_prompt, compressions_of, differing,
        iterations_of, prompt_file_name, prompt_from_upload, record_for, snapshot_at_compression,
        snapshot_at_iteration)
    from scratchpad_lab.engine.studies.recommender import (MAX_POINTS, Search, default_grid, parse_grid, plan,
        resolve, search)
    from scratchpad_lab.engine.studies.settings_table import (COMPARE_SUMMARIZERS, SUMMARIZER_CHOICES, default_table,
        parse_table)

# each public name and the module of this wing it lives in
_HOMES = {"Benchmark": "benchmark", "BenchmarkRequest": "benchmark", "CALLS_PER_RUN": "decide",
          "COMPARE_SUMMARIZERS": "settings_table", "Cell": "promptlab", "DecideRequest": "decide",
          "KINDS_COLUMN": "benchmark", "LIBRARY": "promptlab", "MAX_GRID": "compare", "MAX_POINTS": "recommender",
          "MAX_PROMPTS": "promptlab", "MAX_SUMMARIZERS": "promptlab", "MAX_TOKENS": "decide", "Matrix": "promptlab",
          "NEVER": "compare", "PLACEHOLDER_HELP": "promptlab", "PROBLEMS_COLUMN": "benchmark",
          "PROMPT_LIBRARY": "promptlab", "PromptVariant": "promptlab", "SEED": "benchmark",
          "SUMMARIZER_CHOICES": "settings_table", "Search": "recommender", "Setting": "compare",
          "Snapshot": "promptlab", "UNCUT": "compare", "benchmark_job": "benchmark", "check_prompt": "promptlab",
          "compression_off": "compare", "compressions_of": "promptlab", "decide_benchmark": "decide",
          "default_grid": "recommender", "default_table": "settings_table", "differing": "promptlab",
          "grid": "compare", "iterations_of": "promptlab", "parse_grid": "recommender",
          "parse_table": "settings_table", "plan": "recommender", "prompt_file_name": "promptlab",
          "prompt_from_upload": "promptlab", "record_for": "promptlab", "resolve": "recommender",
          "run_benchmark": "benchmark", "search": "recommender", "snapshot_at_compression": "promptlab",
          "snapshot_at_iteration": "promptlab", "sweep_rows": "compare", "table": "decide",
          "write_report": "benchmark_report"}
__all__ = ["Benchmark", "BenchmarkRequest", "CALLS_PER_RUN", "COMPARE_SUMMARIZERS", "Cell", "DecideRequest",
           "KINDS_COLUMN", "LIBRARY", "MAX_GRID", "MAX_POINTS", "MAX_PROMPTS", "MAX_SUMMARIZERS", "MAX_TOKENS",
           "Matrix", "NEVER", "PLACEHOLDER_HELP", "PROBLEMS_COLUMN", "PROMPT_LIBRARY", "PromptVariant", "SEED",
           "SUMMARIZER_CHOICES", "Search", "Setting", "Snapshot", "UNCUT", "benchmark_job", "check_prompt",
           "compression_off", "compressions_of", "decide_benchmark", "default_grid", "default_table", "differing",
           "grid", "iterations_of", "parse_grid", "parse_table", "plan", "prompt_file_name", "prompt_from_upload",
           "record_for", "resolve", "run_benchmark", "search", "snapshot_at_compression", "snapshot_at_iteration",
           "sweep_rows", "table", "write_report"]


def __getattr__(name: str) -> Any:
    """A public name of the wing, from its module on first use (the module's import is then Python's own)."""
    if name in _HOMES:
        return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
