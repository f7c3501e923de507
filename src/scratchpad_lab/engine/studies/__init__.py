"""The studies: compare, sweep, recommend, benchmark, decide, and the prompt lab.

Its modules: compare (Compare and the sweep), settings_table (Compare's settings grid), recommender (one trajectory's search), benchmark (a dataset's), benchmark_report (its HTML report), decide (the next call re-decided), front (the one Pareto rule and the chosen points), run_calls (what argument recall reads of a run), promptlab/ (the prompt matrix).

Streamlit-free. Nothing is imported here: each module is imported where it is used (the first page
does without the heavy ones), so this face names the wing's modules.
"""

__all__ = ['benchmark', 'benchmark_report', 'compare', 'decide', 'front', 'promptlab', 'recommender', 'run_calls', 'settings_table']
