"""Lessons: five guided runs that pause at the moments that matter, each ending with a question."""
from scratchpad_lab.ui.lessons_page import page

page()
