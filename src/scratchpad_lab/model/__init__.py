"""Files: the trace and run-record schemas, loading them safely, and what replaying a file means.

Streamlit-free, so the CLI and the tests use it without a browser."""
