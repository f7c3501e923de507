"""Playground: run a scenario live and watch compression happen."""
from scratchpad_lab.ui.frame import framed
from scratchpad_lab.ui.playground import page

framed()  # run alone (a fresh server's first request to this path): run again in the frame
page()
