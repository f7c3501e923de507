"""Altair charts that agree with each other.

- One colour per event kind (periodic, size, trim, empty, error) in every chart: `event_scale()`.
- The size chart (the sawtooth) draws both caps, named in a legend above it, even when they are equal ("both
  caps: 15,000"); a cap far above the data is not drawn, instead of flattening the line (the trigger panel
  beside the chart gives both caps' values); events
  sit on the line; iteration axes are whole numbers; legends are never truncated.
- The Compare overlay uses the Okabe-Ito palette: distinct hues for colour-blind readers.
- A scatter's axes fit its points (`fitted_domain`): every point, whisker included, inside the plot with room.
- Heatmaps say good vs bad by colour (tokens saved, facts kept, answer score: one green ramp, more is
  better; summarizer tokens: an orange ramp, more is a cost), with each cell's label black or white by
  the luminance of its own colour.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.events import Event
from scratchpad_lab.analysis.figures import failed_call, your_decision

if TYPE_CHECKING:  # pandas is imported where a table is built (the first page does without it)
    import pandas as pd

# event kind -> (legend label, colour). Colour-blind-safe hues (Okabe-Ito), one per kind, everywhere.
EVENT_KINDS = {  # short labels: two to a legend row fit the chart's width in the live view at 1280 px
    "periodic": ("periodic compression", "#0072B2"),
    "size": ("size compression", "#009E73"),
    "trim": ("the agent's own cut", "#E69F00"),
    "empty": ("summarizer replied nothing", "#CC79A7"),
    "error": ("summarizer failed", "#D55E00"),
    "rejected": ("you rejected the summary", "#56B4E9"),
    "abandoned": ("stopped during review", "#000000"),
}
EVENT_DOMAIN = [label for label, _ in EVENT_KINDS.values()]
EVENT_RANGE = [color for _, color in EVENT_KINDS.values()]


def event_scale():
    """The one colour scale of event kinds (altair is imported lazily: the first page does without it)."""
    import altair as alt
    return alt.Scale(domain=EVENT_DOMAIN, range=EVENT_RANGE)


CATEGORICAL = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442"]
CAP_COLOR = "#555555"
CAP_DASHES = [[6, 4], [2, 3]]  # the first cap drawn (compress when over, or both caps): dashed; the other: dotted
LEGEND = dict(orient="bottom", labelLimit=0, titleLimit=0, columns=3, symbolLimit=0)
WHOLE = dict(tickMinStep=1, format="d")  # whole-number iteration axes
# A value axis whose labels sit level with their grid lines: Streamlit's chart theme pushes the end labels
# inward (labelFlush), which draws "0" above the zero line, so a line at 0 reads as below zero.
LEVEL = dict(labelFlush=False)
# A size axis (chars, tokens): whole numbers with thousands separators ("15,000"). Left to Vega, a run whose
# scratchpad is still empty (every size 0, a zero-span domain) read "0.000000" at every tick.
COUNT = dict(LEVEL, format=",d", tickMinStep=1)
CHOSEN = "a chosen point (★ in the table)"  # the legend's name of the ring round each chosen point
OFF_CHART = 3.0  # a cap more than this many times the largest size is named, not drawn to scale (it would squash
# the sawtooth into the bottom of the plot: 15,000 over a run that peaks at 2,800)


def fitted_domain(values: Sequence[float], share: float = 0.08, least: float = 3.0) -> List[float]:
    """An axis range that holds every value with room on both sides (`share` of the span, at least `least`), so
    no mark sits on the plot's edge, cut in half, and the points are not squeezed into a corner of a range that
    starts at 0. [0, 1] when there is no value."""
    found = [float(v) for v in values if v is not None and v == v]
    if not found:
        return [0.0, 1.0]
    low, high = min(found), max(found)
    pad = max((high - low) * share, least)
    return [round(low - pad, 2), round(high + pad, 2)]


def event_kind(e: Event) -> Optional[str]:
    """The kind an event is drawn as: a compression by its status (failed ones by how they failed),
    else by its trigger; an agent trim; anything else is not marked."""
    if e.kind == "trim":
        return "trim"
    if e.kind != "compression":
        return None
    status, reason = e.payload.status, e.payload.reason
    if your_decision(e.payload):  # figures.py's one rule: your decision, not a failure
        return e.payload.review
    if failed_call(e.payload):
        return status
    return reason if reason in ("periodic", "size") else "periodic"  # a strategy's own reasons: drawn as periodic


def size_frame(events: Sequence[Event], unit: str = "chars", series: str = "") -> pd.DataFrame:
    """Two points per iteration: the size as it started and the size sent (after the middleware).
    Drawn in order they make the sawtooth: growth, then the drop at a compression."""
    import pandas as pd  # lazy: the first page does without it
    rows: List[Dict] = []
    key_before, key_after = ("before_chars", "chars") if unit == "chars" else ("before_tokens", "tokens")
    seq = 0
    for e in events:
        if e.kind == "iteration":
            p = e.payload
            rows.append({"iteration": e.iteration, "size": getattr(p, key_before), "seq": seq, "point": "start",
                         "series": series})
            rows.append({"iteration": e.iteration, "size": getattr(p, key_after), "seq": seq + 1, "point": "sent",
                         "series": series})
            seq += 2
    return pd.DataFrame(rows, columns=["iteration", "size", "seq", "point", "series"])


def marks_frame(events: Sequence[Event], unit: str = "chars") -> pd.DataFrame:
    """Events on the line: a compression at the size its iteration started with (the top of its drop);
    a trim at the size the next iteration started with (the bottom of the cut it made)."""
    import pandas as pd  # lazy: the first page does without it
    key_before = "before_chars" if unit == "chars" else "before_tokens"
    starts = {e.iteration: getattr(e.payload, key_before) for e in events if e.kind == "iteration"}
    rows = []
    for e in events:
        kind = event_kind(e)
        if kind is None:
            continue
        if e.kind == "compression":
            p = e.payload
            value = getattr(p, key_before)
            at, what = e.iteration, f"{p.before_chars:,} → {p.after_chars:,} chars"
        else:
            at = e.iteration + 1 if (e.iteration or 0) + 1 in starts else e.iteration
            value = starts.get(at, 0)
            what = f"after step {e.iteration}: {e.payload.before_chars:,} → {e.payload.after_chars:,} chars"
        rows.append({"iteration": at, "size": value, "event": EVENT_KINDS[kind][0], "what": what})
    return pd.DataFrame(rows, columns=["iteration", "size", "event", "what"])


def caps_frame(config: RunConfig, top: float) -> pd.DataFrame:
    """Both caps, each labelled; one line labelled "both caps" when they are equal. A cap far above the
    data (e.g. 1,000,000: compression off) is not drawn to scale, which would flatten the sawtooth: it
    is named at the chart's top edge instead (`drawn` False)."""
    import pandas as pd  # lazy: the first page does without it
    trigger, trim = config.max_scratchpad_chars, config.agent_trim_chars
    caps = [("both caps", trigger)] if trigger == trim else \
        [("compress when over", trigger), ("agent's own limit", trim)]
    rows = []
    for name, value in caps:
        off = value > top * OFF_CHART
        rows.append({"cap": name, "value": value, "drawn": not off, "y": top * 1.15 if off else value,
                     "label": f"{name}: {value:,}" + (" (off the chart)" if off else "")})
    return pd.DataFrame(rows)


def size_chart(events: Sequence[Event], config: RunConfig, unit: str = "chars", upto: Optional[int] = None,
               height: int = 260, presenting: bool = False):
    """The sawtooth; `presenting` (presenter mode) writes its axes, labels and legend larger."""
    import altair as alt  # lazy: the first page does without it
    if upto is not None:
        events = [e for e in events if e.iteration is None or e.iteration <= upto]
    data = size_frame(events, unit)
    title = "scratchpad chars" if unit == "chars" else "scratchpad tokens"
    # the axis is read by its numbers (the iterations of the status row and the timeline); its title's row
    # goes to the plot, which shares one screen with the rest of the live view
    x = alt.X("iteration:Q", title=None, axis=alt.Axis(**WHOLE))
    layers = [alt.Chart(data).mark_line(point=True, color="#333333").encode(
        x=x, y=alt.Y("size:Q", title=title, axis=alt.Axis(**COUNT)), order="seq:Q",
        tooltip=["iteration:Q", "point:N", alt.Tooltip("size:Q", format=",")])]
    marks = marks_frame(events, unit)
    # the legend names the kinds this run has (the colours stay those of every chart), two to a row, so it
    # fits the chart's width at 1280 px
    present = [label for label in EVENT_DOMAIN if label in set(marks["event"])]
    legend = alt.Legend(**{**LEGEND, "columns": 2, "values": present}) if present else None
    layers.append(alt.Chart(marks).mark_point(size=150, filled=True, opacity=0.95).encode(
        x=x, y="size:Q",
        color=alt.Color("event:N", title=None, scale=event_scale(), legend=legend),
        shape=alt.Shape("event:N", scale=alt.Scale(domain=EVENT_DOMAIN,
                                                   range=["circle", "diamond", "triangle-down", "square", "cross",
                                                          "triangle-up", "triangle-right"]),
                        legend=None),
        tooltip=["iteration:Q", "event:N", "what:N"]))
    if unit == "chars":
        top = max(float(data["size"].max()) if not data.empty else 0.0, 1.0)
        caps = caps_frame(config, top)
        drawn = caps[caps["drawn"]]
        # each cap drawn is named in a legend of its own above the plot (dashed, dotted), not written on the plot,
        # where its label sat on the data points; a cap off the chart is left out (the trigger panel beside the
        # chart gives both caps' values), so the legend stays one short row at 1280 px
        if len(drawn):
            dashes = alt.Scale(domain=list(drawn["label"]), range=CAP_DASHES[:len(drawn)])
            layers.append(alt.Chart(drawn).mark_rule(color=CAP_COLOR, strokeWidth=1.5).encode(
                y="y:Q", tooltip=["label:N"],
                strokeDash=alt.StrokeDash("label:N", title=None, scale=dashes, legend=alt.Legend(
                    **{**LEGEND, "columns": 2, "orient": "top"}, symbolType="stroke", symbolStrokeColor=CAP_COLOR,
                    symbolSize=300, labelFontSize=13 if presenting else 11))))
    chart = alt.layer(*layers).properties(height=height)
    if presenting:
        chart = chart.configure_axis(labelFontSize=16, titleFontSize=16).configure_legend(labelFontSize=14)
    return chart


def overlay_chart(series: Dict[str, Sequence[Event]], unit: str = "tokens"):
    """Several runs' sawtooths in one chart (compare), one clearly different hue per setting."""
    import altair as alt  # lazy: the first page does without it
    import pandas as pd  # lazy: the first page does without it
    frames = [size_frame(events, unit, name) for name, events in series.items()]
    data = pd.concat(frames, ignore_index=True) if frames else size_frame([], unit)
    names = list(series)
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("iteration:Q", axis=alt.Axis(**WHOLE)), y=alt.Y("size:Q", title=f"scratchpad {unit}", axis=alt.Axis(**COUNT)),
        order="seq:Q",
        color=alt.Color("series:N", title="setting", sort=names,
                        scale=alt.Scale(domain=names, range=(CATEGORICAL * 2)[:max(len(names), 1)]),
                        legend=alt.Legend(**{**LEGEND, "columns": 2})),
        tooltip=["series:N", "iteration:Q", "point:N", alt.Tooltip("size:Q", format=",")],
    ).properties(height=300)


# ── heatmaps ────────────────────────────────────────────────────────────────

GOOD_RAMP = ["#f7fcf5", "#c7e9c0", "#74c476", "#238b45", "#00441b"]   # more is better
COST_RAMP = ["#fff5eb", "#fdd0a2", "#fd8d3c", "#d94801", "#7f2704"]   # more is a cost


def _rgb(hex_color: str) -> tuple:
    return tuple(int(hex_color[i:i + 2], 16) for i in (1, 3, 5))


def ramp_color(ramp: List[str], t: float) -> str:
    """The colour at t in [0, 1] along a ramp, interpolated in RGB as Vega does for the same range."""
    t = min(max(t, 0.0), 1.0) * (len(ramp) - 1)
    i = min(int(t), len(ramp) - 2)
    a, b = _rgb(ramp[i]), _rgb(ramp[i + 1])
    f = t - i
    return "#" + "".join(f"{round(x + (y - x) * f):02x}" for x, y in zip(a, b))


def luminance(hex_color: str) -> float:
    """Relative luminance (WCAG) of a colour."""
    def lin(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(v) for v in _rgb(hex_color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def label_color(background: str) -> str:
    """Black or white, whichever contrasts more with the background."""
    lum = luminance(background)
    return "#000000" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#ffffff"


def heatmap(frame: pd.DataFrame, field: str, title: str, number_format: str, good: bool = True,
            axis_titles: tuple = ("max_scratchpad_chars", "summarize_every")):
    """A sweep heatmap: summarize_every down, max_scratchpad_chars across, `field` as colour and label.
    `good`: more is better (green ramp), else more is a cost (orange ramp). `axis_titles`: the two settings'
    plain labels (across, down), as the page names them."""
    import altair as alt  # lazy: the first page does without it
    import pandas as pd  # lazy: the first page does without it
    ramp = GOOD_RAMP if good else COST_RAMP
    everies = list(dict.fromkeys(frame["summarize_every"]))
    values = frame[field].astype(float)
    lo, hi = (values.min(skipna=True), values.max(skipna=True)) if values.notna().any() else (0.0, 1.0)
    span = (hi - lo) or 1.0
    data = frame.copy()
    data["_label_color"] = [label_color(ramp_color(ramp, (v - lo) / span if hi != lo else 0.5))
                            if pd.notna(v) else "#000000" for v in values]
    # each cell's number written here, by Python's format (the same spec), so it reads as the table and the
    # text say it: Vega rounds a half up (0.125 -> "13%") where every other view says "12%"
    data["_label"] = [format(int(v) if number_format.endswith("d") else v, number_format) if pd.notna(v) else ""
                      for v in values]
    domain = [lo + span * k / (len(ramp) - 1) for k in range(len(ramp))] if hi != lo else [lo - 0.5, lo + 0.5]
    scale = alt.Scale(domain=domain, range=ramp if hi != lo else [ramp[2], ramp[2]], interpolate="rgb")
    base = alt.Chart(data).encode(
        x=alt.X("max_scratchpad_chars:O", title=axis_titles[0],
                axis=alt.Axis(format=",", formatType="number", labelAngle=0)),
        y=alt.Y("summarize_every:O", title=axis_titles[1], sort=everies))
    cells = base.mark_rect().encode(
        color=alt.Color(f"{field}:Q", title="better →" if good else "costlier →", scale=scale,
                        legend=alt.Legend(format=number_format)),
        tooltip=[alt.Tooltip("summarize_every:O", title=axis_titles[1]),
                 alt.Tooltip("max_scratchpad_chars:Q", format=",", title=axis_titles[0]),
                 alt.Tooltip(f"{field}:Q", format=number_format, title=title),
                 alt.Tooltip("compressions:Q", title="compressions")])
    labels = base.transform_filter(f"isValid(datum.{field})").mark_text(fontSize=12).encode(
        text=alt.Text("_label:N"),
        color=alt.Color("_label_color:N", scale=None, legend=None))
    # The labels' colour is a per-cell value (scale None), the cells' a ramp: one shared colour scale
    # cannot be both, and Vega fails to draw the whole chart, so each layer keeps its own.
    return (cells + labels).resolve_scale(color="independent").properties(title=title)
