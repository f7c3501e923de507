"""Strategies: one trajectory under every compression system of the references, each through its package."""
from scratchpad_lab.ui.frame import framed
from scratchpad_lab.ui.strategies_page import page

framed()  # run alone (a fresh server's first request to this path): run again in the frame
page()
