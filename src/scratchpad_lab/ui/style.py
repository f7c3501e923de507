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
# under them must not jump then. The status row's run name is cut short (its whole name is in the runs' table), so
# the row stays one line at 1280 px (ui/view.status_line). The scratchpad pane's text is sized to its column so a
# line holds view.PANE_COLS chars (43 x 0.6 em: the code font's advance), and the pane to view.PANE_ROWS lines of
# it: what the page sends fills the pane at every width.
PAGE_CSS = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.6rem; padding-bottom: 3rem;
  padding-left: 2rem; padding-right: 2rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.7rem; padding: 0.2rem 0; }
[class*="st-key-"][class*="_status"] [data-testid="stMetricValue"] { font-size: 1.45rem; }
[class*="st-key-"][class*="_triggers"] { min-height: 15.5rem; }
[class*="st-key-"][class*="_triggers"] [data-testid="stProgress"] * { transition: none !important; }
.st-key-live_chart { min-height: 15.5rem; }
[class*="st-key-"][class*="_scratchpad"] [data-testid="stHorizontalBlock"] > :first-child { flex: 1 1 0;
  min-width: 0; }
[class*="st-key-"][class*="_scratchpad"] [data-testid="stHorizontalBlock"] [data-testid="stText"],
[class*="st-key-"][class*="_scratchpad"] [data-testid="stHorizontalBlock"] [data-testid="stText"] * {
  white-space: nowrap !important; overflow: hidden; text-overflow: ellipsis; font-size: 0.92rem; }
[class*="st-key-"][class*="_scratchpad"] [data-testid="stPopover"] button { min-height: 0; padding-top: 0;
  padding-bottom: 0; }
[class*="st-key-"][class*="_scratchpad"] { container-type: inline-size; }
[class*="st-key-"][class*="_scratchpad"] [data-testid="stElementContainer"]:has(> [data-testid="stCode"]) {
  --pane-font: clamp(0.875rem, calc((100cqi - 2rem - 2px) / 25.8), 1.35rem); height: auto !important;
  flex: 0 0 auto !important; }
[class*="st-key-"][class*="_scratchpad"] [data-testid="stCode"] { height: auto !important; }
[class*="st-key-"][class*="_scratchpad"] [data-testid="stCode"] pre {
  height: calc(var(--pane-font) * 1.6 * 7 + 2rem) !important; }
[class*="st-key-"][class*="_scratchpad"] [data-testid="stCode"] code {
  font-size: var(--pane-font) !important; line-height: 1.6 !important; }
[class*="st-key-"][class*="_status"] [data-testid="stMarkdownContainer"] p > strong:only-child {
  display: inline-block; max-width: 10rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  vertical-align: bottom; }
.st-key-live_status { min-height: 3.7rem; }
</style>"""
