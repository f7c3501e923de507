"""Benchmark: every strategy over a grid of settings on a dataset of runs, by the arguments the agent needed."""
from scratchpad_lab.ui.benchmark_page import page

page()
