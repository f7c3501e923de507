"""The engine: builds and runs the real agent and middleware, observes them, and records events.

Streamlit-free, so the CLI and the tests use it without a browser."""
