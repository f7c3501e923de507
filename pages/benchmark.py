"""Benchmark: every strategy over a grid of settings on a dataset of runs, by the arguments the agent needed."""
from scratchpad_lab.ui.frame import framed
from scratchpad_lab.ui.benchmark_page import page

framed()  # run alone (a fresh server's first request to this path): run again in the frame
page()
