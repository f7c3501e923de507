"""Analysis of recorded runs: facts, metrics, quality flags, triggers, narration, comparisons.

Streamlit-free, so the CLI and the tests use it without a browser."""
