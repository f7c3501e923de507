"""Prompt lab: try summarizer prompts x summarizers on one scratchpad, and take the winner back."""
from scratchpad_lab.ui.frame import framed
from scratchpad_lab.ui.prompt_lab_page import page

framed()  # run alone (a fresh server's first request to this path): run again in the frame
page()
