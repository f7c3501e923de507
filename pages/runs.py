"""Runs: sample runs, this tab's runs and uploads, opened step by step and downloadable."""
from scratchpad_lab.ui.frame import framed
from scratchpad_lab.ui.runs_page import page

framed()  # run alone (a fresh server's first request to this path): run again in the frame
page()
