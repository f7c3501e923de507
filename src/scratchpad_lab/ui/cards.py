"""Compression cards: what one compression kept, dropped and wrote, readable by a class.

The default view is one merged text at word level (kept words plain, dropped words struck through on
red, words the summarizer wrote itself on blue); a toggle shows before and after side by side, with
unchanged lines on the same row, in one scroll. Lost facts are chips above the text.

All scratchpad, prompt, reply and fact text is untrusted (tool results, model output, uploaded files).
It reaches the page only through `scratchpad_lab.ui.markup` (the merged text and the chips as inert HTML:
every character escaped, our styles around escaped pieces), and otherwise st.code / st.text. Badges carry our own fixed words.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

import streamlit as st

from scratchpad_lab.analysis.diffing import aligned_lines, aligned_text, merged_words, word_counts
from scratchpad_lab.analysis.facts import contains, fact_pattern
from scratchpad_lab.analysis.figures import facts_kept_text, percent, your_decision
from scratchpad_lab.model.compression import FORCED_BY_PROMPT_LAB
from scratchpad_lab.analysis.fact_kinds import KINDS, NAMES
from scratchpad_lab.analysis.health import CHIPS as HEALTH_CHIPS
from scratchpad_lab.ui.markup import chips_html, grouped_chips_html, inert_html
from scratchpad_lab.ui.pins_box import pin_picker
from scratchpad_lab.analysis.narrate import review_outcome

# Badge words are ours, chosen by key; nothing from the event (which may come from a file) is shown as a badge.
FLAG_BADGES = {
    "empty": ("empty reply: scratchpad kept", "orange"),
    "error_text": ("error instead of a summary", "red"),
    "longer_than_input": ("summary longer than its input", "violet"),
    "unchanged": ("unchanged: repeats the input", "orange"),
    "not_a_summary": ("not a summary", "red"),
    "wasted_call": ("wasted call: still over the cap", "gray"),
}
REVIEW_BADGES = {"accepted": ("accepted by you", "green"), "edited": ("edited by you", "violet"),
                 "rejected": ("rejected by you", "orange"), "abandoned": ("stopped during your review", "gray")}
# flags that blame the summarizer, left off a card whose empty or failed reply was the person's decision
SUMMARIZER_FAULTS = ("empty", "error_text", "wasted_call")
REASON_BADGES = {"periodic": ("periodic trigger", "blue"), "size": ("size trigger", "gray")}
TRIGGER_BADGES = {FORCED_BY_PROMPT_LAB: ("fired on purpose by the prompt lab", "gray")}  # by key, our words
CHIPS_SHOWN = 12  # lost facts as chips; every lost fact is also marked in the text itself
CHIPS_COMPACT = 6  # in the live view: two lines at most


def badges(c: Dict) -> List[tuple]:
    out = [TRIGGER_BADGES.get(c.get("trigger")) or REASON_BADGES.get(c.get("reason"), ("unknown trigger", "gray"))]
    yours = your_decision(c)  # figures.py: the one rule of whose doing a reply that replaced nothing was
    out += [FLAG_BADGES[f] for f in c.get("flags", []) if f in FLAG_BADGES and not (yours and f in SUMMARIZER_FAULTS)]
    if c.get("status") == "error" and "error_text" not in c.get("flags", []) and not yours:
        out.append(FLAG_BADGES["error_text"])
    if c.get("review") in REVIEW_BADGES:
        out.append(REVIEW_BADGES[c["review"]])
    health = [h for h in c.get("health", []) if h in HEALTH_CHIPS]  # health.py's checks, by key: our words
    if "grew" in health and FLAG_BADGES["longer_than_input"] in out:  # the same rule, said once
        out.remove(FLAG_BADGES["longer_than_input"])
    out += [(HEALTH_CHIPS[h], "red") for h in health]
    lost, held = c.get("pins_lost") or [], c.get("pins_held") or []  # analysis/pin_checks.py, via quality.annotate
    if lost:
        out.append((f"lost {len(lost)} of {len(held)} pin{'s' if len(held) != 1 else ''}", "red"))
    elif held:
        out.append((f"kept {'every' if len(held) > 1 else 'the'} pin{'s' if len(held) > 1 else ''} it held "
                    f"({len(held)})", "green"))
    return out


def mark_facts(text: str, facts: List[str]) -> str:
    """The text with each lost fact wrapped in « », for plain-text views (st.code) of a scratchpad."""
    for fact in sorted(set(facts), key=len, reverse=True):
        if contains(text, fact):
            text = fact_pattern(fact).sub(lambda m: "«" + m.group(0) + "»", text)
    return text


def replaced_nothing(c: Dict) -> bool:
    """The package kept the scratchpad: the summarizer raised or replied nothing, or you rejected its proposal
    (whether that counts as a failed call is figures.failed_call's to say)."""
    return c.get("status") not in (None, "ok")


def _fact_spans(text: str, facts: List[str]) -> List[Tuple[int, int]]:
    spans = sorted((m.start(), m.end()) for f in set(facts) if f in text for m in fact_pattern(f).finditer(text))
    out: List[Tuple[int, int]] = []
    for start, end in spans:
        if not out or start >= out[-1][1]:
            out.append((start, end))
    return out


_SUMMARY_HEADER = re.compile(r"\[Summarized up to step \d+\]")  # the package's first line of every summary


def merged(before: str, after: str) -> List[Tuple[str, str]]:
    """diffing.merged_words, with the summary's header first: the package writes "[Summarized up to step N]" at the
    top of the text it sends, so the merged text starts with it, not with the scratchpad's first words struck
    through above it (a first card opened on a struck "Step 1:")."""
    head, newline, rest = after.partition("\n")
    if _SUMMARY_HEADER.fullmatch(head.strip()) and not _SUMMARY_HEADER.match(before):  # (else: the two headers' diff)
        return [(head + newline, "new")] + merged_words(before, rest)
    return merged_words(before, after)


def merged_pieces(before: str, after: str, lost: List[str]) -> List[Tuple[str, str]]:
    """(text, style) for markup.inert_html: kept plain, dropped struck through, new tinted; a lost fact
    inside dropped text in bold, so a reader finds it at a glance."""
    out: List[Tuple[str, str]] = []
    for text, status in merged(before, after):
        if status != "dropped":
            out.append((text, "plain" if status == "kept" else "new"))
            continue
        pos = 0
        for start, end in _fact_spans(text, lost):
            out += [(text[pos:start], "dropped"), (text[start:end], "fact")]
            pos = end
        out.append((text[pos:], "dropped"))
    out = [(t, s) for t, s in out if t]
    while out and not out[0][0].strip():  # the scratchpad often starts with a line break
        out.pop(0)
    if out:
        out[0] = (out[0][0].lstrip("\n"), out[0][1])
    return out


def _header(c: Dict, compact: bool) -> None:
    words = " ".join(f":{color}-badge[{label}]" for label, color in badges(c))
    st.markdown(f"**Compression at iteration {int(c['iteration'])}** {words}")
    before_chars, after_chars = int(c.get("before_chars") or 0), int(c.get("after_chars") or 0)
    ratio = " (unchanged)" if replaced_nothing(c) else (f" ({percent(after_chars / before_chars)})" if before_chars else "")
    tokens = f"{int(c.get('after_tokens') or 0):,} tokens" if compact else \
        f"{int(c.get('before_tokens') or 0):,} → {int(c.get('after_tokens') or 0):,} tokens"
    latency = "" if compact else f" · summarizer {float(c.get('latency_s') or 0):.2f} s"
    st.markdown(f"{before_chars:,} → {after_chars:,} chars{ratio} · {tokens} · "
                f"facts kept: **{facts_kept_text(c.get('facts_retained'), not replaced_nothing(c))}**{latency}")


def _chips(c: Dict, shown: int) -> None:
    lost = list(c.get("facts_lost", []))
    by_kind = c.get("lost_by_kind") or {}  # quality.annotate: the lost facts by kind, the user's own lines too
    if replaced_nothing(c) or not (lost or by_kind):
        if not replaced_nothing(c) and c.get("facts_before"):
            st.markdown(f":green-badge[every fact kept ({len(c['facts_before'])})]")
        return
    more = f" +{len(lost) - shown} more" if len(lost) > shown else ""
    lead = f"Lost {len(lost)} of {len(c.get('facts_before', []))} facts"
    if not by_kind:
        st.html(chips_html(lost[:shown], lead + ":", f"{more} (all bold in the text)"))  # inert: a copied fact is the fact
        return
    words = str(c.get("loss_words") or "").removeprefix("lost ")  # fact_kinds.loss_words: our words
    st.html(grouped_chips_html(kind_groups(by_kind, shown), f"{lead}: {words}." if words else f"{lead}:",
                               f"{more} (all bold in the text)"))


def kind_groups(by_kind: Dict[str, List[str]], shown: int) -> List[tuple]:
    """(label, facts) per kind in fact_kinds.KINDS order, at most `shown` chips in all; our words as labels."""
    out, left = [], shown
    for kind in KINDS:
        facts = by_kind.get(kind) or []
        if facts and left > 0:
            out.append((f"{len(facts)} {NAMES[kind][0] if len(facts) == 1 else NAMES[kind][1]}"
                        + (" own words" if kind == "instruction" else "") + ":", facts[:left]))
            left -= len(facts[:left])
    return out


def diff_view(c: Dict, key: str, height: int) -> None:
    """The merged word-level text, or (toggle) before and after side by side, in one fixed-height scroll."""
    before, after = str(c.get("before", "")), str(c.get("after", ""))
    with st.container(horizontal=True, vertical_alignment="center", gap="medium"):
        side = st.toggle("Side by side", key=f"{key}_side", width="content",
                         help="Before and after in two panes; unchanged lines sit on the same row. "
                              "- dropped, ~ partly kept, + written by the summarizer.")
        if not side:
            counts = word_counts(merged(before, after))
            st.caption(f"words: {counts['kept']:,} kept · :red-background[~~{counts['dropped']:,} dropped~~] · "
                       f":blue-background[{counts['new']:,} new]", width="content",
                       help="Kept words plain; dropped words struck through on red; words the summarizer "
                            "wrote itself on blue; lost facts in bold.")
    if replaced_nothing(c):
        yours = review_outcome(c.get("review")) if your_decision(c) else None
        st.text(yours[0].upper() + yours[1:] + "." if yours else
                "The summarizer " + ("replied nothing" if c.get("status") == "empty" else "failed")
                + ": the package kept the scratchpad unchanged.")
    if side:
        left, right = aligned_text(aligned_lines(before, after))
        with st.container(height=height, key=f"{key}_sbs"):
            a, b = st.columns(2, gap="small")
            a.caption("Before (scratchpad as the iteration started)")
            a.code(left, language="diff")
            b.caption("After (what the agent is sent)")
            b.code(right, language="diff")
        return
    pieces = merged_pieces(before, after, list(c.get("facts_lost", [])))
    with st.container(height=height, key=f"{key}_merged"):
        st.html(inert_html(pieces))  # inert HTML, not markdown: what is copied is exactly the text


def compression_card(c: Dict, key: str, cost: Optional[float] = None, height: int = 420,
                     compact: bool = False, pinnable: bool = False) -> None:
    """One compression: a compression event's data plus its iteration, annotated by quality.annotate
    (facts_before, facts_lost, facts_retained, flags, pins_held, pins_lost). `compact` (the live view) leaves
    out the prompt, the raw reply and the cost line; `pinnable` (the Playground) lets a lost fact be pinned."""
    with st.container(border=not compact, key=key, gap="xsmall"):  # compact: in the live view's own box
        _header(c, compact)
        if c.get("why"):  # the narration (it may quote a summarizer's error): plain text
            st.text(c["why"])
        _chips(c, CHIPS_COMPACT if compact else CHIPS_SHOWN)
        if c.get("pins_lost"):  # the person's own text: inert chips
            st.html(chips_html(c["pins_lost"], "Pins lost:", ""))
        if pinnable and not replaced_nothing(c) and c.get("facts_lost"):
            pin_picker(c["facts_lost"], key=f"{key}_pin_fact", label="Pin a fact it lost")
        diff_view(c, key, height)
        if c.get("error") and not your_decision(c):
            st.text("Summarizer error: " + str(c["error"]))
        if compact:
            return
        with st.expander("Prompt sent to the summarizer"):
            st.code(str(c.get("prompt", "")), language=None, wrap_lines=True, height=300)
        with st.expander("Raw reply"):
            st.code(str(c.get("response", "")), language=None, wrap_lines=True, height=300)
        if c.get("review") in ("edited", "rejected"):
            with st.expander("The summarizer's original proposal (before your review)"):
                st.code(str(c.get("proposal", "")), language=None, wrap_lines=True, height=300)
        price = "no price known" if cost is None else f"${cost:.5f}"
        st.text(f"Summarizer: {c.get('model', '')} · tokens in {int(c.get('tokens_in') or 0):,}, "
                f"out {int(c.get('tokens_out') or 0):,} · cost {price}")
