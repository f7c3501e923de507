"""Shared test setup: tests import helpers (fake_openai) from this folder."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
