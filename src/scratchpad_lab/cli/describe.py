"""What `run`, `replay` and `runs show` print about a run record: one home for those lines."""
from __future__ import annotations

from scratchpad_lab.model.records import RunRecord


def describe_record(record: RunRecord) -> str:
    """What `run` and `replay` print (and `runs show`): the figures, each compression and trim, the answer."""
    from scratchpad_lab.analysis.figures import figures, percent  # reads facts: imported when asked (start-up)
    s = figures(record.events, record.scenario)
    lines = [f"outcome: {record.outcome}  iterations: {s.iterations}  compressions: {s.compressions}  "
             f"summarizer calls: {s.summarizer_calls}  failed calls: {s.failed_calls}  trims: {s.trims}  "
             f"peak: {s.peak_chars:,} chars / {s.peak_tokens:,} tokens  facts kept: {s.facts_kept_text}"]
    if s.answer_score is not None:
        lines.append(f"answer score: {percent(s.answer_score)}")
    if s.pins:  # the pins are the person's own text: a terminal shows it as it is
        lines.append(f"pins: {s.pins_kept_text}" + (f"; lost: {'; '.join(s.pins_lost)}" if s.pins_lost else ""))
    for e in record.events:
        if e.kind == "compression":
            d = e.payload
            lines.append(f"  iteration {e.iteration:>3}: {d.reason:<8} {d.status:<5} "
                         f"{d.before_chars:>7,} -> {d.after_chars:>7,} chars")
        elif e.kind == "trim":
            lines.append(f"  iteration {e.iteration:>3}: agent trim {e.payload.before_chars:,} -> "
                         f"{e.payload.after_chars:,} chars")
    if record.error:
        lines.append(f"error: {record.error}")
    if record.final_answer:
        lines.append("final answer:\n" + record.final_answer)
    return "\n".join(lines)
