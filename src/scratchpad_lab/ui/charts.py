"""Altair charts: the scratchpad size per iteration (the sawtooth), caps as lines, events marked."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from ..config import RunConfig
from ..events import Event


def size_frame(events: Sequence[Event], unit: str = "chars", series: str = "") -> pd.DataFrame:
    """Two points per iteration: the size as it started and the size sent (after the middleware).
    Drawn in order they make the sawtooth: growth, then the drop at a compression."""
    import pandas as pd  # lazy: the first page does without it
    rows: List[Dict] = []
    key_before, key_after = ("before_chars", "chars") if unit == "chars" else ("before_tokens", "tokens")
    seq = 0
    for e in events:
        if e.kind == "iteration":
            rows.append({"iteration": e.iteration, "size": e.data.get(key_before, 0), "seq": seq, "point": "start",
                         "series": series})
            rows.append({"iteration": e.iteration, "size": e.data.get(key_after, 0), "seq": seq + 1, "point": "sent",
                         "series": series})
            seq += 2
    return pd.DataFrame(rows, columns=["iteration", "size", "seq", "point", "series"])


def marks_frame(events: Sequence[Event], unit: str = "chars") -> pd.DataFrame:
    import pandas as pd  # lazy: the first page does without it
    rows = []
    for e in events:
        if e.kind == "compression":
            value = e.data.get("before_chars" if unit == "chars" else "before_tokens", 0)
            rows.append({"iteration": e.iteration, "size": value,
                         "event": f"compression ({e.data.get('reason')}, {e.data.get('status')})"})
        elif e.kind == "trim" and unit == "chars":
            rows.append({"iteration": e.iteration, "size": e.data.get("before_chars", 0), "event": "agent trim"})
    return pd.DataFrame(rows, columns=["iteration", "size", "event"])


def size_chart(events: Sequence[Event], config: RunConfig, unit: str = "chars", upto: Optional[int] = None):
    import altair as alt  # lazy: the first page does without it
    import pandas as pd  # lazy: the first page does without it
    if upto is not None:
        events = [e for e in events if e.iteration is None or e.iteration <= upto]
    data = size_frame(events, unit)
    title = "Scratchpad size (chars)" if unit == "chars" else "Scratchpad size (tokens)"
    base = alt.Chart(data).encode(x=alt.X("iteration:Q", title="iteration", axis=alt.Axis(tickMinStep=1)))
    line = base.mark_line(point=True).encode(
        y=alt.Y("size:Q", title=title), order="seq:Q",
        tooltip=["iteration:Q", "point:N", alt.Tooltip("size:Q", format=",")])
    layers = [line]
    marks = marks_frame(events, unit)
    if not marks.empty:
        layers.append(alt.Chart(marks).mark_point(size=140, filled=True).encode(
            x="iteration:Q", y="size:Q",
            color=alt.Color("event:N", title="event", scale=alt.Scale(scheme="set1")),
            shape=alt.Shape("event:N", legend=None), tooltip=["iteration:Q", "event:N", alt.Tooltip("size:Q", format=",")]))
    if unit == "chars":
        caps = pd.DataFrame([
            {"cap": "compress when over (middleware)", "size": config.max_scratchpad_chars},
            {"cap": "agent's hard trim", "size": config.agent_trim_chars},
        ])
        top = max([data["size"].max() if not data.empty else 0, 1]) * 1.6
        caps = caps[caps["size"] <= top]
        if not caps.empty:
            layers.append(alt.Chart(caps).mark_rule(strokeDash=[6, 4]).encode(
                y="size:Q", color=alt.Color("cap:N", title="cap", scale=alt.Scale(range=["#d62728", "#7f7f7f"])),
                tooltip=["cap:N", alt.Tooltip("size:Q", format=",")]))
    return alt.layer(*layers).resolve_scale(color="independent").properties(height=280)


def overlay_chart(series: Dict[str, Sequence[Event]], unit: str = "tokens"):
    """Several runs' sawtooths in one chart (compare)."""
    import altair as alt  # lazy: the first page does without it
    import pandas as pd  # lazy: the first page does without it
    frames = [size_frame(events, unit, name) for name, events in series.items()]
    data = pd.concat(frames, ignore_index=True) if frames else size_frame([], unit)
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("iteration:Q"), y=alt.Y("size:Q", title=f"scratchpad {unit}"), order="seq:Q",
        color=alt.Color("series:N", title="setting", legend=alt.Legend(labelLimit=360, orient="bottom", columns=2)),
        tooltip=["series:N", "iteration:Q", "point:N", alt.Tooltip("size:Q", format=",")],
    ).properties(height=300)
