"""Streamlit render helpers shared by the pages (the only part of the package that imports streamlit)."""
