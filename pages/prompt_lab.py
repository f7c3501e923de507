"""Prompt lab: try summarizer prompts x summarizers on one scratchpad, and take the winner back."""
from scratchpad_lab.ui.prompt_lab_page import page

page()
