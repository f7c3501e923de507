"""Runs: sample runs, this tab's runs and uploads, opened step by step and downloadable."""
from scratchpad_lab.ui.runs_page import page

page()
