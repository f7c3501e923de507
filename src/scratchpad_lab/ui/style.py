"""The page's own fixed style (no untrusted text in it). A module of its own, with nothing to import,
so the first page can apply it without importing the run view (ui/view.py) and the analysis behind it."""
from pathlib import Path

# The page icon: a file the app serves itself (a `:material/...:` page icon makes every visitor's browser
# fetch an svg from fonts.gstatic.com; the lab works offline).
ICON = str(Path(__file__).resolve().parents[1] / "data" / "icon.png")

# A tighter page so the live view fits one screen. The trigger panel reserves the height of its longest
# usual text (the "Why:" sentence runs 1-4 lines), so the rows under it stay put while a run is live; its
# bars are drawn at their value at once (Streamlit animates a progress bar's width, which lags its label).
# The size chart's box keeps the height of its unit switch and chart from the run's first paint, and the status
# row the height of its metrics: either can arrive a moment after the rest of the first live view, and what is
# under them must not jump then.
PAGE_CSS = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.6rem; padding-bottom: 3rem;
  padding-left: 2rem; padding-right: 2rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.7rem; padding: 0.2rem 0; }
[class*="st-key-"][class*="_status"] [data-testid="stMetricValue"] { font-size: 1.45rem; }
[class*="st-key-"][class*="_triggers"] { min-height: 15.5rem; }
[class*="st-key-"][class*="_triggers"] [data-testid="stProgress"] * { transition: none !important; }
.st-key-live_chart { min-height: 15.5rem; }
.st-key-live_status { min-height: 3.7rem; }
</style>"""
