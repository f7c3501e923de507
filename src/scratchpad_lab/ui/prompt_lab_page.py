"""The Prompt lab page: one scratchpad, 1-4 prompts x 1-3 summarizers, side by side.

The engine is the promptlab package; this module draws widgets and the matrix. The matrix is a job: the
one live fragment (ui/live.py) shows its progress and a Stop button and redraws the cells as they come. Everything a summarizer or a
file wrote (summaries, scratchpads, lost facts, uploaded names) is shown with st.text / st.code only;
badges carry our own words and numbers. Widget values are also kept in PL_KEPT, because Streamlit
drops a widget's state when its page is left, and a person who tried the prompt in the playground
comes back to find their editors as they left them.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import pandas as pd
import streamlit as st

from scratchpad_lab.model.config import PACKAGE_PROMPT, ConfigError
from scratchpad_lab.model.summarizer import BUILTIN_SPEED, SummarizerChoice
from scratchpad_lab.engine.tasks import (prompt_from_upload, LIBRARY, MAX_PROMPTS, MAX_SUMMARIZERS, PLACEHOLDER_HELP, PROMPT_LIBRARY, Cell, Matrix,
                         MatrixRequest, PromptVariant, Snapshot, check_prompt, prompt_matrix, compressions_of,
                         differing, iterations_of, prompt_file_name, snapshot_at_compression, snapshot_at_iteration)
from scratchpad_lab.analysis.figures import percent
from scratchpad_lab.analysis.probes import ProbeError, ProbeQuestion, parse_probe, scenario_probes
from scratchpad_lab.engine.tasks import BUILTIN_LABEL, TokenCounter, builtin_missing
from scratchpad_lab.ui.builtin_notice import builtin_ready
from scratchpad_lab.ui import live
from scratchpad_lab.ui.cards import FLAG_BADGES, compression_card
from scratchpad_lab.ui.endpoints import endpoint_from_state, endpoint_values, endpoint_widgets, keep_endpoint
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.problems import user_errors
from scratchpad_lab.ui.runs_page import all_entries, pick_entry, show_sample_problems, upload_widget
from scratchpad_lab.ui.sidebar_settings import K_PROMPT, K_SUMMARIZER, PLAY_SUMMARIZER_EP
from scratchpad_lab.ui.store_view import prompt_history, save_prompt_version, show_message, stored_prompts
from scratchpad_lab.ui.state import (PL_JOB, PL_KEPT, PL_OPEN, PL_SOURCE, PL_UPLOAD_SEEN, PL_USED, PL_VERSIONS,
                    PLAY_PRICES_BY_MODEL, PLAY_PROMPT_NAME, init_session)

LOST_SHOWN = 12  # lost facts listed in a cell; the card lists them all
STARTERS = list(PROMPT_LIBRARY)
STARTER_HELP = "\n".join(f"- **{p.name}**: {p.description}" for p in LIBRARY) + (
    "\n\nThe library is one text file per prompt in the package's data/prompts/; the package default is read "
    "from autourgos_summarizer.")
EXTRACTIVE_ONLY = (
    "The extractive summarizer ignores the prompt: it copies the scratchpad's most informative lines "
    "whatever the prompt says, so every prompt gives the same summary in its column. It is here as a "
    "reference. To tune a prompt you need a model as a summarizer: the built-in SmolLM2-135M runs on this "
    "CPU with no key (weak, but it follows the prompt), or add one with a key for a hosted API "
    "(OpenAI, Groq, Mistral, ...), or run a local server with no key and pick its preset: Ollama "
    "(`ollama serve`, http://localhost:11434/v1), llama.cpp (`llama-server -m model.gguf`, "
    "http://localhost:8080/v1) or vLLM (`vllm serve MODEL`, http://localhost:8000/v1).")
BUILTIN_NOTE = (
    "The built-in model has 135M parameters: two prompts give two different summaries, which shows how a "
    "prompt steers a real model, not the quality a large model would reach. The same prompt on the same "
    f"scratchpad gives the same summary again. It runs one cell at a time, {BUILTIN_SPEED} (a cell gives up "
    "at 300 s), and reads at most 4,096 tokens, prompt and reply: about 7,000 characters of logs or 16,000 of "
    "prose.")
# a reply that replaced the scratchpad but that a quality flag says is no summary: the status badge says only
# that it replied, and the flag's own badge says what is wrong with it
REPLIED_BADGE = ("replied", "gray")
STATUS_BADGES = {"ok": ("summary", "green"), "empty": ("empty reply: scratchpad kept", "orange"),
                 "error": ("failed: no summary", "red"), "running": ("running…", "blue"),
                 "pending": ("waiting", "gray"), "cancelled": ("stopped", "gray")}
# a call that failed or replied nothing left the scratchpad as it was: its facts are all there, but none was kept
# by a summary, so the cell never reads as "facts kept"
NOT_SCORED_BADGE = ("facts: not scored, no summary was written", "gray")


# ── widget state that survives a page switch ─────────────────────────────────────────────────────

def _seed(key: str, default) -> None:
    if key not in st.session_state:
        st.session_state[key] = st.session_state[PL_KEPT].get(key, default)


def _keep(*keys: str) -> None:
    for key in keys:
        if key in st.session_state:
            st.session_state[PL_KEPT][key] = st.session_state[key]


# ── 1. the snapshot ─────────────────────────────────────────────────────────────────────────────

def _snapshot_section() -> Optional[Snapshot]:
    st.subheader("1 · The scratchpad to compress")
    _seed("pl_source_kind", "A run")
    kind = st.radio("Take it from", ["A run", "Pasted text"], key="pl_source_kind", horizontal=True,
                    help="A run of this tab, a shipped sample run, or an uploaded run or trace; or any text.")
    _keep("pl_source_kind")
    if kind == "Pasted text":
        for key, default in (("pl_paste", ""), ("pl_paste_task", ""), ("pl_paste_iteration", 5)):
            _seed(key, default)
        st.text_area("Scratchpad text", key="pl_paste", height=220,
                     placeholder="Paste an agent's notes here (Step 1: ... Observation: ...)")
        c1, c2 = st.columns([3, 1])
        c1.text_input("Task the agent had ({query})", key="pl_paste_task")
        c2.number_input("Steps done ({iteration})", min_value=1, max_value=1000, key="pl_paste_iteration")
        _keep("pl_paste", "pl_paste_task", "pl_paste_iteration")
        text = st.session_state["pl_paste"]
        if not text.strip():
            st.info("Paste some text to compress.")
            return None
        return Snapshot(text, st.session_state["pl_paste_task"], int(st.session_state["pl_paste_iteration"]),
                        "pasted text")
    entries, problems = all_entries()
    show_sample_problems(problems)
    added = upload_widget("pl_upload")
    entry = pick_entry(entries + ([added] if added and added not in entries else []), "Run", "pl_entry", PL_SOURCE,
                       open_key=added.key if added else None)
    record = entry.record
    comps = compressions_of(record)
    choices = ["Before a compression", "As an iteration started"] if comps else ["As an iteration started"]
    _seed("pl_at", choices[0])
    if st.session_state["pl_at"] not in choices:
        st.session_state["pl_at"] = choices[0]
    c1, c2 = st.columns(2)
    at = c1.radio("Which scratchpad", choices, key="pl_at", horizontal=True,
                  help="Before a compression: exactly what the summarizer was given. As an iteration started: "
                       "what the middleware saw at that step, whether or not it compressed.")
    _keep("pl_at")
    with user_errors("That scratchpad cannot be used."):
        if at == "Before a compression":
            k = c2.selectbox("Compression", list(range(1, len(comps) + 1)), key=f"pl_k_{entry.key}",
                             format_func=lambda i: f"#{i} at iteration {comps[i - 1].iteration} "
                                                   f"({comps[i - 1].payload.before_chars:,} chars)")
            return snapshot_at_compression(record, int(k), "the run")
        its = iterations_of(record)
        n = c2.selectbox("Iteration", its, index=len(its) - 1, key=f"pl_n_{entry.key}")
        return snapshot_at_iteration(record, int(n), "the run")
    return None


def _show_snapshot(snapshot: Snapshot) -> None:
    facts = snapshot.facts()
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("chars", f"{len(snapshot.scratchpad):,}")
    m2.metric("tokens", f"{TokenCounter(None)(snapshot.scratchpad):,}")
    m3.metric("facts", len(facts), help="Numbers, identifiers, dates, URLs, paths, e-mails, quoted strings and "
                                       "names: what a compression can lose.")
    m4.metric("at iteration", snapshot.iteration)
    with st.expander("The scratchpad and its facts"):
        st.code(snapshot.scratchpad, language=None, wrap_lines=True, height=300)
        st.text("Facts: " + " · ".join(f.text for f in facts))


# ── 2. prompts ──────────────────────────────────────────────────────────────────────────────────

def _starters() -> List[str]:
    return STARTERS + [f"version: {name}" for name in st.session_state[PL_VERSIONS]]


def _starter_text(choice: str) -> str:
    if choice.startswith("version: "):
        return st.session_state[PL_VERSIONS].get(choice[len("version: "):], "")
    return PROMPT_LIBRARY.get(choice, PACKAGE_PROMPT)


def _load_starter(i: int) -> None:
    choice = st.session_state[f"pl_start_{i}"]
    st.session_state[f"pl_text_{i}"] = _starter_text(choice)
    st.session_state[f"pl_name_{i}"] = choice.replace("version: ", "")
    _keep(f"pl_text_{i}", f"pl_name_{i}")


def _apply_fix(i: int, fix: str) -> None:
    st.session_state[f"pl_text_{i}"] = fix
    _keep(f"pl_text_{i}")


def _save_version(i: int) -> None:
    name = (st.session_state.get(f"pl_name_{i}") or f"Prompt {i + 1}").strip()[:60]
    st.session_state[PL_VERSIONS][name] = st.session_state.get(f"pl_text_{i}", "")
    save_prompt_version(name, st.session_state[PL_VERSIONS][name])  # its history, in the store


def _open_version(name: str, version: int, text: str) -> None:
    """Any stored version of a prompt becomes the playground's summarizer prompt, named with its version."""
    check = check_prompt(text)
    if not check.ok:
        st.session_state[PL_USED] = None
        return
    label = f"{name} v{version}"[:80]
    st.session_state[K_PROMPT] = check.template
    st.session_state[PLAY_PROMPT_NAME] = (label, check.template)
    st.session_state[PL_USED] = (label, None)  # a stored version: its model is the playground's own


def _model_column() -> Optional[int]:
    """The first summarizer column that is a model (an endpoint or the built-in model), if any."""
    for j in range(int(st.session_state.get("pl_n_summarizers", 1))):
        if _column_kind(j) in ("endpoint", "builtin"):
            return j
    return None


def _column_kind(j: int) -> Optional[str]:
    return st.session_state.get(f"pl_sum_kind_{j}", st.session_state[PL_KEPT].get(f"pl_sum_kind_{j}"))


def _use_in_playground(i: int) -> None:
    """The playground's summarizer prompt becomes this one, with its name, and (when the lab has a model
    column) its summarizer becomes that model, endpoint and key included: a prompt is tried by a model."""
    check = check_prompt(st.session_state.get(f"pl_text_{i}", ""))
    if not check.ok:
        return
    name = (st.session_state.get(f"pl_name_{i}") or f"Prompt {i + 1}").strip()[:80]
    st.session_state[K_PROMPT] = check.template
    st.session_state[PLAY_PROMPT_NAME] = (name, check.template)
    j = _model_column()
    model = None
    if j is not None and _column_kind(j) == "builtin":
        st.session_state[K_SUMMARIZER] = "builtin"
        model = BUILTIN_LABEL
    elif j is not None:
        endpoint, _, problem = endpoint_from_state(f"pl_sum{j}_ep", f"Summarizer {j + 1}")
        if endpoint is not None and problem is None:
            source = endpoint_values(f"pl_sum{j}_ep")
            keep_endpoint(PLAY_SUMMARIZER_EP, {PLAY_SUMMARIZER_EP + k[len(f"pl_sum{j}_ep"):]: v
                                               for k, v in source.items()})
            st.session_state[K_SUMMARIZER] = "endpoint"
            model = endpoint.label()
    st.session_state[PL_USED] = (name, model)


def _prompt_editor(i: int, col) -> Tuple[Optional[PromptVariant], bool]:
    """One editor; returns (the variant, whether it can run)."""
    default = STARTERS[i % len(STARTERS)]
    _seed(f"pl_name_{i}", default)
    _seed(f"pl_text_{i}", PROMPT_LIBRARY[default])
    _seed(f"pl_start_{i}", default)
    if st.session_state[f"pl_start_{i}"] not in _starters():
        st.session_state[f"pl_start_{i}"] = default
    with col:
        st.text_input("Name", key=f"pl_name_{i}", max_chars=80)
        s1, s2 = st.columns([3, 1], vertical_alignment="bottom")
        s1.selectbox("Start from", _starters(), key=f"pl_start_{i}", help=STARTER_HELP)
        s2.button("Load", key=f"pl_load_{i}", on_click=_load_starter, args=(i,),
                  help="Replace this editor's text with the chosen starting point.")
        st.text_area("Prompt", key=f"pl_text_{i}", height=380)
        _keep(f"pl_name_{i}", f"pl_text_{i}", f"pl_start_{i}")
        text = st.session_state[f"pl_text_{i}"]
        check = check_prompt(text)
        for problem in check.problems:  # both quote the prompt's own {...} text: inert markdown
            st.error(escape(problem))
        for note in check.notes:
            st.warning(escape(note))
        if check.fix is not None:
            st.button("Fix: " + check.fix_label, key=f"pl_fix_{i}", on_click=_apply_fix, args=(i, check.fix))
        b1, b2 = st.columns(2)
        b1.button("Save as a version", key=f"pl_save_{i}", on_click=_save_version, args=(i,),
                  help="Keep this text under its name in this tab's prompt versions.")
        b2.button("Use this prompt in the playground", key=f"pl_use_{i}", on_click=_use_in_playground, args=(i,),
                  disabled=not check.ok, help="The playground's summarizer prompt becomes this one, with its name.")
    name = (st.session_state[f"pl_name_{i}"] or f"Prompt {i + 1}").strip()
    return PromptVariant(name, text), check.ok


def _history(versions) -> None:
    """Every stored version of one prompt, newest first; any of them opens in the playground."""
    names = list(versions)
    if not names:
        return
    name = st.selectbox("History of", names, key="pl_history_of")
    history = prompt_history(name)
    if not history:
        st.text("This version is kept in this tab only (the store could not take it).")
        return
    for version in history:
        c1, c2 = st.columns([3, 1], vertical_alignment="center")
        c1.text(f"version {version.version} · saved {version.stored_at} · {len(version.text):,} chars")
        c2.button("Open in the Playground", key=f"pl_history_use_{version.version}", on_click=_open_version,
                  args=(name, version.version, version.text), disabled=not check_prompt(version.text).ok)
    shown = st.selectbox("Show the text of version", [v.version for v in history], key="pl_history_show")
    st.code(next(v.text for v in history if v.version == shown), language=None, wrap_lines=True, height=200)


def _versions_panel() -> None:
    versions = st.session_state[PL_VERSIONS]
    with st.expander(f"Prompt versions ({len(versions)})"):
        st.caption("Saved with “Save as a version” and kept in the lab's store with their history; each can be "
                   "loaded into an editor (Start from), downloaded as a text file, or opened in the playground, "
                   "and a text file can be uploaded as a version.")
        for k, (name, text) in enumerate(versions.items()):
            c1, c2 = st.columns([3, 1])
            c1.text(f"{name} · {len(text):,} chars")
            c2.download_button("Download", data=text, file_name=prompt_file_name(name), mime="text/plain",
                               key=f"pl_dl_{k}")
        upload = st.file_uploader("Upload a prompt (.txt)", type=["txt"], key="pl_prompt_upload")
        if upload is not None and st.session_state.get(PL_UPLOAD_SEEN) != upload.file_id:
            st.session_state[PL_UPLOAD_SEEN] = upload.file_id
            try:
                name, text = prompt_from_upload(upload.name, upload.getvalue())  # the one prompt limit
            except ConfigError as exc:
                st.error(escape(str(exc)))
            else:
                versions[name] = text
                save_prompt_version(name, text)
                st.rerun()
        _history(versions)


# ── 3. summarizers ──────────────────────────────────────────────────────────────────────────────

def _summarizers_section() -> Tuple[List[SummarizerChoice], List[str]]:
    st.subheader("3 · Summarizers")
    _seed("pl_n_summarizers", 1)
    n = st.number_input("How many summarizers", min_value=1, max_value=MAX_SUMMARIZERS, key="pl_n_summarizers")
    _keep("pl_n_summarizers")
    specs, problems = [], []
    cols = st.columns(int(n))
    any_builtin = False
    for j, col in enumerate(cols):
        _seed(f"pl_sum_kind_{j}", "extractive" if j == 0 else "endpoint")
        with col:
            kind = st.selectbox(f"Summarizer {j + 1}", ["extractive", "builtin", "endpoint"], key=f"pl_sum_kind_{j}",
                                format_func={"extractive": "Extractive (offline reference, ignores the prompt)",
                                             "builtin": BUILTIN_LABEL[0].upper() + BUILTIN_LABEL[1:],
                                             "endpoint": "A model (OpenAI-compatible endpoint)"}.get)
            _keep(f"pl_sum_kind_{j}")
            if kind == "extractive":
                specs.append(SummarizerChoice())
                continue
            if kind == "builtin":
                ready, any_builtin = builtin_ready(fetch=not any_builtin), True  # the Fetch button once
                if ready:
                    specs.append(SummarizerChoice("builtin"))
                else:
                    problems.append(builtin_missing())
                continue
            endpoint, key, problem = endpoint_widgets(st, f"pl_sum{j}_ep", f"Summarizer {j + 1}")
            if problem:
                problems.append(problem)
            else:
                specs.append(SummarizerChoice("endpoint", endpoint=endpoint, key=key))
    if all(s.kind == "extractive" for s in specs):
        st.info(EXTRACTIVE_ONLY)
    elif any(s.kind == "builtin" for s in specs):
        st.caption(BUILTIN_NOTE)
    return specs, problems


def _user_probes() -> List[ProbeQuestion]:
    _seed("pl_probes", "")
    st.text_area("Your own probe questions (one per line: question = expected answer)", key="pl_probes",
                 height=90, placeholder="Which order is damaged? = A-1001")
    _keep("pl_probes")
    out, bad = [], []
    for line in st.session_state["pl_probes"].splitlines():
        try:  # the CLI's --probe rule too
            probe = parse_probe(line)
        except ProbeError as exc:
            bad.append(str(exc))
            continue
        if probe is not None:
            out.append(probe)
    if bad:  # the person's text, quoted in the message: shown as text
        st.text(f"Left out until it reads question = answer: {bad[0]}"
                + (f" ({len(bad) - 1} more like it)" if len(bad) > 1 else ""))
    return out


# ── 4. the matrix ───────────────────────────────────────────────────────────────────────────────

def _share_color(kept: int, total: int) -> str:
    if not total:
        return "gray"
    share = kept / total
    return "green" if share >= 0.9 else ("orange" if share >= 0.6 else "red")


def _badge(label: str, color: str) -> str:
    """Markdown badge syntax, for our own words and numbers only (never a model's or a file's text)."""
    return f":{color}-badge[{label}]"


def _cell(cell: Cell, matrix: Matrix, hidden: bool) -> None:
    with st.container(border=True, key=f"pl_cell_{cell.row}_{cell.col}"):
        label, color = STATUS_BADGES.get(cell.status, ("?", "gray"))
        if not cell.done or cell.status == "cancelled" or hidden:
            st.markdown(_badge(label, color))
            if cell.waited_s() is not None:  # the summarizer's name is the person's: plain text
                st.text(cell.waiting_text())
            if hidden:
                st.text("Same summary as another cell.")
            return
        c = cell.compression
        before, lost = c.get("facts_before", []), c.get("facts_lost", [])
        kept = len(before) - len(lost)
        if cell.status == "ok" and not cell.is_summary:
            label, color = REPLIED_BADGE  # never a green "summary" beside a red "not a summary"
        facts = (_badge(f"facts kept {kept} of {len(before)}", _share_color(kept, len(before))) if cell.status == "ok"
                 else _badge(*NOT_SCORED_BADGE))
        badges = [_badge(label, color), facts]
        badges += [_badge(*FLAG_BADGES[f]) for f in c.get("flags", []) if f in FLAG_BADGES]
        st.markdown(" ".join(badges))
        ratio = c.get("after_chars", 0) / c["before_chars"] if c.get("before_chars") else 0
        lines = [f"{c.get('before_chars', 0):,} → {c.get('after_chars', 0):,} chars ({percent(ratio)}) · "
                 f"{c.get('before_tokens', 0):,} → {c.get('after_tokens', 0):,} tokens"]
        if cell.probes:
            b = sum(p.answerable_before for p in cell.probes)
            a = sum(p.answerable_after for p in cell.probes)
            lines.append(f"probes answerable: {b} of {len(cell.probes)} before, {a} after")
        cost = "no price known" if cell.cost is None else f"${cell.cost:.5f}"
        lines.append(f"{float(c.get('latency_s') or 0):.2f} s · {int(c.get('tokens_in') or 0):,} in / "
                     f"{int(c.get('tokens_out') or 0):,} out · {cost}")
        st.text("\n".join(lines))
        if c.get("error"):
            st.text("Error: " + str(c["error"]))
        st.code(cell.summary or "(no reply)", language=None, wrap_lines=True, height=180)
        if lost:
            st.text(f"Lost ({len(lost)}): " + " · ".join(lost[:LOST_SHOWN]) +
                    (f" … and {len(lost) - LOST_SHOWN} more" if len(lost) > LOST_SHOWN else ""))
        st.button("Open as a compression card", key=f"pl_open_{cell.row}_{cell.col}",
                  on_click=lambda: st.session_state.__setitem__(PL_OPEN, (cell.row, cell.col)))


def _matrix_view(matrix: Matrix) -> None:
    only_differ = st.toggle("Show only cells that differ", key="pl_differ",
                            help="Hide cells whose summary is the same as another cell's (the extractive "
                                 "column always is).")
    shown = set(id(c) for c in differing(matrix.cells)) if only_differ else None
    st.caption("Rows are prompts, columns are summarizers. Facts kept: green 90 % or more, orange 60 % or "
               "more, red below.")
    head = st.container(key="pl_matrix_head").columns([1] + [3] * len(matrix.summarizers))
    for j, spec in enumerate(matrix.summarizers):
        head[j + 1].text(spec.heading)  # an endpoint's model name is the person's: plain text
    for i, prompt in enumerate(matrix.prompts):
        row = st.columns([1] + [3] * len(matrix.summarizers))
        row[0].text(prompt.name)
        for j in range(len(matrix.summarizers)):
            cell = matrix.cell(i, j)
            with row[j + 1]:
                _cell(cell, matrix, hidden=shown is not None and id(cell) not in shown)
    opened = st.session_state.get(PL_OPEN)
    if opened and opened[0] < len(matrix.prompts) and opened[1] < len(matrix.summarizers):
        cell = matrix.cell(*opened)
        if cell.done and cell.compression:
            st.subheader("Cell as a compression card")
            st.text(f"Prompt: {cell.prompt} · summarizer: {cell.summarizer}")
            compression_card(cell.compression, key=f"pl_card_{opened[0]}_{opened[1]}", cost=cell.cost)
            if cell.probes:
                st.dataframe(pd.DataFrame([{"question": p.question, "expected": p.expected,
                                            "answerable before": p.answerable_before,
                                            "answerable after": p.answerable_after} for p in cell.probes]),
                             hide_index=True)


def _matrix_body(matrix: Optional[Matrix]) -> None:
    """The live fragment's drawing of the matrix (its progress and Stop are the fragment's own)."""
    if matrix is None:
        return
    if matrix.finished:
        stopped = sum(1 for c in matrix.cells if c.status == "cancelled")
        st.text(f"{len(matrix.cells)} cells in {matrix.elapsed_s():.2f} s" + (f" ({stopped} stopped)" if stopped else ""))
    _matrix_view(matrix)
    if matrix.finished:
        for sentence in matrix.winners():  # prompt names are the person's text: st.text
            st.text(sentence)


def page() -> None:
    init_session()
    st.title("Scratchpad Lab · Prompt lab")
    show_message()
    for name, version in stored_prompts().items():  # what this browser saved before, from the store
        st.session_state[PL_VERSIONS].setdefault(name, version.text)
    st.caption("Take one scratchpad, try several summarizer prompts on several models, see which keeps what "
               "matters, and take the winner back to the playground. Each cell is one call made exactly as "
               "the autourgos-summarizer middleware makes it.")
    snapshot = _snapshot_section()
    if snapshot is not None:
        _show_snapshot(snapshot)

    st.subheader("2 · Prompts")
    st.caption("Fill-in words the package replaces before sending: "
               + "; ".join(f"{{{k}}} = {v}" for k, v in PLACEHOLDER_HELP.items())
               + ". Anything else is sent as you wrote it.")
    _seed("pl_n_prompts", 2)
    n = st.number_input("How many prompts", min_value=1, max_value=MAX_PROMPTS, key="pl_n_prompts")
    _keep("pl_n_prompts")
    variants, runnable = [], True
    for i, col in enumerate(st.columns(int(n))):
        variant, ok = _prompt_editor(i, col)
        variants.append(variant)
        runnable = runnable and ok
    if st.session_state.get(PL_USED):  # the name and the model's label are the person's: escaped
        name, model = st.session_state.pop(PL_USED)
        if model:
            st.success(f"The playground now uses the prompt “{escape(name)}” with the summarizer {escape(model)}.")
        else:
            st.warning(f"The playground now uses the prompt “{escape(name)}”, but its summarizer stays the "
                       "extractive one, which does not follow prompts: add a model column here first (section 3), "
                       "or choose a model as the Summarizer in the playground.")
        st.page_link("pages/playground.py", label="Go to the playground")
    _versions_panel()

    specs, problems = _summarizers_section()
    probes = _user_probes()

    st.subheader("4 · Run the matrix")
    running = live.busy(PL_JOB)
    why = []
    if snapshot is None:
        why.append("pick or paste a scratchpad")
    if not runnable:
        why.append("fix the prompts marked in red")
    why += problems
    if why:
        st.text("To run: " + "; ".join(why) + ".")
    if snapshot is not None and runnable:  # said before the call; the model's own count refuses it at the call
        for sentence in snapshot.too_long(variants, specs):  # a prompt's name is the person's: escaped
            st.warning(escape(sentence), icon=":material/content_cut:")
    if st.button("Run the matrix", type="primary", key="pl_run", disabled=bool(why) or running):
        new = prompt_matrix(MatrixRequest(snapshot, tuple(variants), tuple(specs),
                                          tuple(scenario_probes(snapshot.scenario) + probes),
                                          prices=st.session_state.get(PLAY_PRICES_BY_MODEL)))
        if live.start(PL_JOB, new):
            st.session_state[PL_OPEN] = None
            st.rerun()  # drawn again with Run the matrix disabled and the live view refreshing
    live.show(PL_JOB, _matrix_body)
