"""Playground: run a scenario live and watch compression happen."""
from scratchpad_lab.ui.playground import page

page()
