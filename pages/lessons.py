"""Lessons: five guided runs that pause at the moments that matter, each ending with a question."""
from scratchpad_lab.ui.frame import framed
from scratchpad_lab.ui.lessons_page import page

framed()  # run alone (a fresh server's first request to this path): run again in the frame
page()
