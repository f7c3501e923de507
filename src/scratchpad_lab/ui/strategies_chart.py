"""The Strategies chart: context tokens sent at every step, one line and one fixed colour per strategy.

Altair only (no streamlit), so the guide's picture is drawn by the same code as the page.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional

import altair as alt
import pandas as pd

from scratchpad_lab.analysis.figures import LABELS
from scratchpad_lab.engine.strategies.registry import STRATEGIES, strategy
from scratchpad_lab.ui.charts import COUNT, LEGEND, LEVEL

BASELINE = "no compression"
BASELINE_COLOUR = "#cccccc"


def colour(name: str) -> str:
    """One colour per strategy, the same on every view (chart lines and column headers): its registry entry's."""
    if name == BASELINE:
        return BASELINE_COLOUR
    return STRATEGIES[name].colour if name in STRATEGIES else "#000000"
# Every strategy's name in full, three to a row under the chart (the lab's legend layout), so seven strategies
# fit the chart's width in the page at 1280 px.
STRATEGY_LEGEND = {**LEGEND, "title": None}
SOLID, DASHED = "solid", "dashed (same as another)"
CUT = "cut nothing"   # a recommender point whose settings never fired: not on the front, and not beaten either


def frame(results, baseline: bool = False) -> pd.DataFrame:
    """One row per strategy and step, and (`baseline`) the no-compression baseline of each form the strategies
    are read against (scratchpad, messages). A strategy whose line is the same as an earlier one's is drawn
    dashed and thinner on top of it, and its legend entry says which it equals, so both show."""
    rows = []
    seen: dict = {}
    for r in results:
        label = r.label or r.name
        tokens = tuple(r.sent_tokens)
        same = seen.get(tokens)
        seen.setdefault(tokens, label)
        shown = f"{label} (same as {same})" if same else label
        for step, t in enumerate(tokens, start=1):
            rows.append({"step": step, "tokens": t, "strategy": shown, "name": r.name,
                         "drawn": DASHED if same else SOLID})
    if baseline:
        forms = {strategy(r.name).context: r.baseline_tokens for r in results}
        for form, tokens in forms.items():
            shown = f"{BASELINE} ({form})" if len(forms) > 1 else BASELINE
            for step, t in enumerate(tokens, start=1):
                rows.append({"step": step, "tokens": t, "strategy": shown, "name": BASELINE, "drawn": DASHED})
    return pd.DataFrame(rows, columns=["step", "tokens", "strategy", "name", "drawn"])


def chart(results, width: int = 900, height: int = 320, baseline: bool = False) -> alt.Chart:
    data = frame(results, baseline)
    labels: List[str] = list(dict.fromkeys(data["strategy"])) if len(data) else []
    names = {row.strategy: row.name for row in data.itertuples()} if len(data) else {}
    scale = alt.Scale(domain=labels, range=[colour(names[label]) for label in labels])
    return (alt.Chart(data, width=width, height=height)
            .mark_line(point=alt.OverlayMarkDef(size=18), interpolate="linear")
            .encode(x=alt.X("step:Q", title="step (model call)", axis=alt.Axis(format="d", tickMinStep=1)),
                    # one count for every strategy (the caption above the chart says so): a longer title is cut
                    y=alt.Y("tokens:Q", title="context tokens sent", axis=alt.Axis(**COUNT)),
                    color=alt.Color("strategy:N", scale=scale, legend=alt.Legend(**STRATEGY_LEGEND)),
                    strokeDash=alt.StrokeDash("drawn:N", scale=alt.Scale(domain=[SOLID, DASHED],
                                                                         range=[[1, 0], [6, 4]]), legend=None),
                    strokeWidth=alt.StrokeWidth("drawn:N", scale=alt.Scale(domain=[SOLID, DASHED], range=[3.5, 2]),
                                                legend=None),
                    order=alt.Order("drawn:N"),
                    tooltip=["strategy", "step", "tokens"]))


# A point's words (engine/recommend.Point.texts, the Strategies table's wording of the same row), by column.
POINT_TEXTS = {"kept_by_kind": LABELS["kept_by_kind"], "health": LABELS["health"], "pins_kept": LABELS["pins"]}


def points_frame(points, titles, describe: Optional[Callable[[Any], str]] = None) -> pd.DataFrame:
    """The recommender's points (engine/recommend.Point) as the front chart draws them and the page's tables list
    them: with each point's facts kept by kind and compressions with a problem, and its pins kept when the search had
    pins (the column only then). `describe(point)` writes its settings (the page's words, ui/setting_words.py; by
    default its `--strategy` argument)."""
    describe = describe or (lambda p: p.cli_arg())
    rows = []
    for i, p in enumerate(points):
        f = p.figures
        if p.error or not f:
            continue
        texts = p.texts()
        rows.append({"point": i, "strategy": titles.get(p.strategy, p.strategy), "name": p.strategy,
                     "peak % of no compression": round(100 * (f.get("peak_share") or 0), 1),
                     "facts at the answer %": round(100 * (f.get("facts_at_answer") or 0), 1),
                     "summarizer tokens": f["summarizer_tokens_in"] + f["summarizer_tokens_out"],
                     "front": "on the front" if p.on_front else CUT if f.get("cut_nothing") else "dominated",
                     "settings": describe(p),
                     **{label: texts.get(key) for key, label in POINT_TEXTS.items()},
                     "why": p.why or "another point keeps as much for less"})
    columns = ["point", "strategy", "name", "peak % of no compression", "facts at the answer %", "summarizer tokens",
               "front", "settings", LABELS["kept_by_kind"], LABELS["health"], LABELS["pins"], "why"]
    if not any(r[LABELS["pins"]] is not None for r in rows):
        columns.remove(LABELS["pins"])
    return pd.DataFrame(rows, columns=columns)


def front_chart(points, titles, width: int = 900, height: int = 360,
                describe: Optional[Callable[[Any], str]] = None) -> alt.Chart:
    """Every point: what it keeps (facts at the answer) against its peak, one colour per strategy; the front's
    points large and ringed, its settings in the tooltip as `describe` writes them. A click selects a point (the
    selection `point`)."""
    data = points_frame(points, titles, describe)
    labels = list(dict.fromkeys(data["strategy"]))
    names = dict(zip(data["strategy"], data["name"]))
    scale = alt.Scale(domain=labels, range=[colour(names[label]) for label in labels])
    pick = alt.selection_point(name="point", fields=["point"], on="click")
    return (alt.Chart(data, width=width, height=height)
            .mark_point(filled=True, opacity=0.9)
            .encode(x=alt.X("peak % of no compression:Q", title="peak context, % of no compression (lower is cheaper)",
                            axis=alt.Axis(**LEVEL)),
                    y=alt.Y("facts at the answer %:Q", title="facts at the answer, %", axis=alt.Axis(**LEVEL)),
                    color=alt.Color("strategy:N", scale=scale, legend=alt.Legend(**STRATEGY_LEGEND)),
                    size=alt.Size("front:N", scale=alt.Scale(domain=["on the front", "dominated", CUT], range=[260, 50, 50]),
                                  legend=None),  # said above the chart: a second legend beside it would not fit
                    stroke=alt.condition("datum.front == 'on the front'", alt.value("#000000"), alt.value(None)),
                    strokeWidth=alt.value(1.5),
                    tooltip=["strategy", "settings", "peak % of no compression", "facts at the answer %",
                             "summarizer tokens", LABELS["kept_by_kind"], LABELS["health"], "front", "why"])
            .add_params(pick))
