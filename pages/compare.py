"""Compare: one trajectory replayed under several compression settings, side by side, and a sweep."""
from scratchpad_lab.ui.frame import framed
from scratchpad_lab.ui.compare_page import page

framed()  # run alone (a fresh server's first request to this path): run again in the frame
page()
