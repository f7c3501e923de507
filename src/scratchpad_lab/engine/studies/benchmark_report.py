"""A finished benchmark as one self-contained HTML file: the front chart of dataset means with their interval
whiskers (inline SVG), the table with the chosen points marked, the chosen points' sentences, and how the
figures were measured.

Streamlit-free. The file requests nothing from any host: no script, no stylesheet, font or image link, only
inline SVG and one inline <style>; every text from the dataset or a setting is escaped (html.escape), so a
run's name cannot become markup.
"""
from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any, List, Union

from scratchpad_lab.engine.studies.benchmark import KINDS_COLUMN, PROBLEMS_COLUMN
from scratchpad_lab.engine.strategies.registry import strategy

W, H, PAD = 720, 420, 56

HOW = ("Each cell is one run replayed under one strategy and setting through the real package, exactly as "
       "<code>scratchpad-lab strategies</code> runs it. Argument recall: for each recorded tool call, the argument "
       "values (strings of 3 or more characters, and numbers) the run had learned earlier from a user turn or a "
       "tool result (never from the system prompt or the task), and the share of them still present verbatim in "
       "what that model call was sent; doing nothing reads 1.0 by construction. Gold-argument recall: the same "
       "for the dataset's gold actions, at the recorded call of the same tool (else the last call). Peak share: "
       "the run's peak context against its own form's no-compression peak. Means are over runs with a value; "
       "the intervals are 95 % percentile bootstraps with a fixed seed, so a rerun prints the same figures. "
       "Facts kept by kind: each kind's share of the facts kept over a run's compressions (ids, amounts, dates, "
       "paths and URLs, names, commands and code, the user's own lines), a plain mean over the runs where the "
       "setting compressed and the kind had facts (their count in brackets). Runs with a problem: for each health "
       "check (grew the context, fires again at once, dropped the user's newest message, wrote facts not in its "
       "input, cost more than it saved), the runs on which at least one compression failed it.")


def _pct(value: Any) -> str:
    return "-" if value is None else f"{value:.1%}"


def _colour(name: str) -> str:
    try:
        return strategy(name).colour
    except Exception:  # the no-compression row has no registry entry
        return "#555555"


def front_chart(result: Any) -> str:
    """Argument recall (with its interval) against the peak share, one dot per setting; the front ringed."""
    points = [s for s in result.settings if s.mean("argument_recall") is not None and s.mean("peak_share") is not None]
    low_y = min([0.5] + [s.means["argument_recall"]["low"] for s in points])

    def x(v: float) -> float:
        return PAD + v * (W - 2 * PAD)

    def y(v: float) -> float:
        return H - PAD - (v - low_y) / (1 - low_y or 1) * (H - 2 * PAD)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" role="img" '
             f'aria-label="argument recall against peak share">',
             f'<rect x="0" y="0" width="{W}" height="{H}" fill="#ffffff"/>',
             f'<line x1="{PAD}" y1="{H - PAD}" x2="{W - PAD}" y2="{H - PAD}" stroke="#333"/>',
             f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{H - PAD}" stroke="#333"/>',
             f'<text x="{W / 2}" y="{H - 14}" text-anchor="middle" font-size="12">peak context, share of no '
             'compression</text>',
             f'<text x="14" y="{H / 2}" transform="rotate(-90 14 {H / 2})" text-anchor="middle" font-size="12">'
             'argument recall (95 % interval)</text>']
    for tick in (0, 0.25, 0.5, 0.75, 1):
        parts.append(f'<text x="{x(tick):.1f}" y="{H - PAD + 16}" text-anchor="middle" font-size="10">{tick:.0%}</text>')
    for tick in [low_y + (1 - low_y) * k / 4 for k in range(5)]:
        parts.append(f'<text x="{PAD - 6}" y="{y(tick) + 3:.1f}" text-anchor="end" font-size="10">{tick:.0%}</text>')
    for s in points:
        m = s.means["argument_recall"]
        cx, colour = x(min(s.mean("peak_share"), 1.0)), _colour(s.strategy)
        parts.append(f'<line x1="{cx:.1f}" y1="{y(m["low"]):.1f}" x2="{cx:.1f}" y2="{y(m["high"]):.1f}" '
                     f'stroke="{colour}" stroke-width="1.5"/>')
        ring = ' stroke="#000" stroke-width="2"' if s.on_front else ""
        parts.append(f'<circle cx="{cx:.1f}" cy="{y(m["mean"]):.1f}" r="5" fill="{colour}"{ring}>'
                     f'<title>{escape(s.label)}: {_pct(m["mean"])} at {_pct(s.mean("peak_share"))}</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


def render(result: Any) -> str:
    chosen = {c.setting for c in result.chosen if c.setting}
    rows: List[str] = []
    for s in result.settings:
        arg, gold = s.means["argument_recall"], s.means["gold_argument_recall"]
        passed = (s.by_outcome.get("passed") or {}).get("argument_recall")
        failed = (s.by_outcome.get("failed") or {}).get("argument_recall")
        marks = ("★ " if s.label in chosen else "") + ("front" if s.on_front else "")
        tokens = s.mean("summarizer_tokens")
        rows.append("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in (
            s.label, s.runs, f"{_pct(arg['mean'])} [{_pct(arg['low'])}-{_pct(arg['high'])}]",
            f"{_pct(gold['mean'])} [{_pct(gold['low'])}-{_pct(gold['high'])}]", _pct(s.mean("peak_share")),
            _pct(s.mean("mean_share")), "-" if tokens is None else f"{tokens:,.0f}", _pct(s.never_compressed),
            f"{_pct(passed)} / {_pct(failed)}", s.kinds_text, s.problems_text, marks)) + "</tr>")
    head = "".join(f"<th>{escape(h)}</th>" for h in ("setting", "runs", "argument recall [95 %]", "gold recall [95 %]",
                                                     "peak", "mean", "summarizer tokens", "never compressed",
                                                     "passed / failed recall", KINDS_COLUMN, PROBLEMS_COLUMN, ""))
    broken = "".join(f"<li>{escape(n)}: {escape(w)}</li>" for n, w in result.broken)
    stopped = f"<p><b>Stopped</b> ({escape(result.stopped)}): the figures cover the runs that finished.</p>" \
        if result.stopped else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Scratchpad Lab benchmark</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1200px}}table{{border-collapse:collapse;font-size:13px}}
td,th{{border:1px solid #ccc;padding:3px 6px;text-align:left}}code{{background:#f4f4f4}}</style></head><body>
<h1>Benchmark of {escape(Path(result.source).name)}</h1>
<p>{len(result.runs)} runs ({len(result.broken)} could not be imported), {result.points_done:,} points in
{result.elapsed_s:,.1f} s on {result.workers} core(s); bootstrap seed {result.seed}.</p>{stopped}
<h2>Chosen points</h2><ul>{"".join(f"<li>{escape(c.sentence)}</li>" for c in result.chosen)}</ul>
<h2>The front over the dataset means</h2>{front_chart(result)}
<h2>Every setting</h2><table><tr>{head}</tr>{"".join(rows)}</table>
<h2>How the figures were measured</h2><p>{HOW}</p>
{"<h2>Runs that could not be imported</h2><ul>" + broken + "</ul>" if broken else ""}
</body></html>
"""


def write_report(result: Any, path: Union[str, Path]) -> None:
    Path(path).write_text(render(result), encoding="utf-8")
