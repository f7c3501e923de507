"""Strategies: one trajectory under every compression system of the references, each through its package."""
from scratchpad_lab.ui.strategies_page import page

page()
