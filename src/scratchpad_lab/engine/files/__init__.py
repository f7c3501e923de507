"""Run files: reading a run record, a trace or another tool's run, and datasets of many runs.

Its modules: loader (the one loader, over importers/), dataset (a file or folder of runs, their outcomes and gold actions), trace_check (what in a trace will not replay as it reads).

Streamlit-free. Nothing is imported here: each module is imported where it is used (the first page
does without the heavy ones), so this face names the wing's modules.
"""

__all__ = ['dataset', 'loader', 'trace_check']
