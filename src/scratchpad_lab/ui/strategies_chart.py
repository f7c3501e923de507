"""The Strategies chart: context tokens sent at every step, one line and one fixed colour per strategy.

Altair only (no streamlit), so the README's picture is drawn by the same code as the page.
"""
from __future__ import annotations

from typing import List

import altair as alt
import pandas as pd

# One colour per strategy, the same on every view (chart lines and column headers).
COLORS = {"autourgos-middleware": "#1f77b4", "autourgos-builtin": "#9467bd", "trim-only": "#7f7f7f",
          "deepagents": "#2ca02c", "langmem": "#d62728", "clear-tool-uses": "#ff7f0e",
          "langchain-summarization": "#8c564b", "no compression": "#cccccc"}


def frame(results) -> pd.DataFrame:
    rows = []
    for r in results:
        for step, tokens in enumerate(r.sent_tokens, start=1):
            rows.append({"step": step, "tokens": tokens, "strategy": r.label or r.name, "name": r.name})
    return pd.DataFrame(rows, columns=["step", "tokens", "strategy", "name"])


def chart(results, width: int = 900, height: int = 320) -> alt.Chart:
    data = frame(results)
    labels: List[str] = list(dict.fromkeys(data["strategy"])) if len(data) else []
    names = {row.strategy: row.name for row in data.itertuples()} if len(data) else {}
    scale = alt.Scale(domain=labels, range=[COLORS.get(names[l], "#000000") for l in labels])
    return (alt.Chart(data, width=width, height=height)
            .mark_line(point=alt.OverlayMarkDef(size=18), interpolate="linear")
            .encode(x=alt.X("step:Q", title="step (model call)", axis=alt.Axis(format="d", tickMinStep=1)),
                    y=alt.Y("tokens:Q", title="context tokens sent"),
                    color=alt.Color("strategy:N", scale=scale, legend=alt.Legend(orient="top", title=None,
                                                                                 labelLimit=400)),
                    tooltip=["strategy", "step", "tokens"]))
