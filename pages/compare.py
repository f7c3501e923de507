"""Compare: one trajectory replayed under several compression settings, side by side, and a sweep."""
from scratchpad_lab.ui.compare_page import page

page()
