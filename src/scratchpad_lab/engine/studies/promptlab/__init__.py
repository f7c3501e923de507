"""Prompt lab: one scratchpad, several summarizer prompts x several summarizers, side by side.

Streamlit-free, so the page, the CLI and the tests share it. What it guarantees:

- a **snapshot** is a scratchpad the middleware saw (or would see): the K-th compression of a run,
  the scratchpad as iteration N started, a trace replayed with the package defaults to find one, or
  pasted text (`matrix.py`);
- every cell goes through the package's own path: a real `AutoSummarizeMiddleware` is fired once on
  a stand-in agent holding the snapshot, its summarizer wrapped by the run observer (engine/run/observe.py),
  so the prompt is formatted exactly as in a run, the scratchpad after is what the package writes, and
  the compression event is recorded by the same hook as in a run;
- calls run concurrently, at most `per_endpoint` at a time per endpoint, and each cell can be
  cancelled (a cell not started never starts; a call in flight is abandoned, its reply ignored);
- prompts start from a small library (the package's prompt, then one text file each in data/prompts/)
  and are checked in plain words, with a fix offered (`prompts.py`);
- each cell is scored by the one home of each rule: facts, flags, probes, cost (analysis/);
- `scratchpad-lab prompt-lab` drives the same from a terminal (`cli/prompt_lab.py`).
"""
from scratchpad_lab.engine.studies.promptlab.matrix import (Cell, Matrix, PromptVariant, Snapshot, SnapshotError, compress_once,
                     compressions_of, differing, iterations_of, prompt_file_name, record_for,
                     snapshot_at_compression, snapshot_at_iteration)
from scratchpad_lab.engine.studies.promptlab.prompts import (LIBRARY, MAX_PROMPT_CHARS, MAX_PROMPTS, MAX_SUMMARIZERS, PER_ENDPOINT, PLACEHOLDER_HELP,
                      PROMPT_LIBRARY, PromptCheck, check_prompt, literal_template, prompt_from_upload)

__all__ = ["Cell", "Matrix", "PromptVariant", "Snapshot", "SnapshotError",
           "compress_once", "compressions_of", "differing", "iterations_of", "prompt_file_name", "record_for",
           "snapshot_at_compression", "snapshot_at_iteration", "LIBRARY", "MAX_PROMPT_CHARS", "MAX_PROMPTS", "MAX_SUMMARIZERS",
           "prompt_from_upload", "PER_ENDPOINT", "PLACEHOLDER_HELP", "PROMPT_LIBRARY", "PromptCheck", "check_prompt", "literal_template"]
