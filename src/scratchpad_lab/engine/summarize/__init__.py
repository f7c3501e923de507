"""Summarizers: the one builder, the offline extractive summarizer, the built-in model and its file, and the silent stand-in.

Its modules: summarizers (the one builder), extractive, builtin_model (SmolLM2 through xllamacpp), model_fetch (its file), silent (a summarizer that replies nothing, on purpose).

Streamlit-free. Nothing is imported here: each module is imported where it is used (the first page
does without the heavy ones), so this face names the wing's modules.
"""

__all__ = ['builtin_model', 'extractive', 'model_fetch', 'silent', 'summarizers']
