"""Scratchpad Lab: see what context compression does to an LLM agent."""
__version__ = "0.1.0"
