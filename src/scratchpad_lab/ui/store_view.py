"""The store as the pages use it: this browser's visitor id, storing finished runs and uploads (the setting
that turns it off), prompt versions and results, and one place that shows what the store said.

The engine's store (SQLAlchemy) is imported where something is stored or listed, never on the first page.
A store that is full or cannot be reached is a message, never an exception: the run on screen stays in
this tab's memory and keeps its download button.

Visitors (hosted mode, SCRATCHPAD_LAB_HOSTED): each browser gets a random id, kept in a cookie, so its runs
are listed to it after a reload or a restart and to nobody else; the store keeps only the id's SHA-256.
A run of another visitor is reached only by its link (`?run=<id>`). Run names are the visitor's own text (an
upload's is its file's name): they are shown in dataframe cells, st.text and select options (which Streamlit draws
as plain text, never markdown); headings and messages are our words and numbers. Where the store or a dataset is on
the server (a database file, a dataset's folder) is never shown: a result names its dataset by its file's name.
"""
from __future__ import annotations

import os
import re
import secrets
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional

import streamlit as st

from scratchpad_lab.model.endpoint import hosted_mode
from scratchpad_lab.ui.state import (LIB_AUTOSAVE, LIB_JUST_STORED, LIB_MESSAGE, LIB_NOTICES, LIB_NOT_STORED, LIB_OPENED, LIB_STORED, LIB_VISITOR,
                                     PLAY_RUNS, RUNS_UPLOADS, page_secrets)

if TYPE_CHECKING:
    from scratchpad_lab.engine.tasks import Store

VISITOR_COOKIE = "scratchpad_lab_visitor"
AUTOSAVE_ENV = "SCRATCHPAD_LAB_AUTOSAVE"  # "0" / "off": the Playground's "Store finished runs" starts off
_VISITOR_ID = re.compile(r"^[A-Za-z0-9_-]{22,64}$")
NOT_STORED = "It stays on this page and can still be downloaded."


# ── the visitor ─────────────────────────────────────────────────────────────

def visitor_id() -> Optional[str]:
    """Hosted mode: this browser's id (its cookie's, else a new one); None for a local lab (one user)."""
    if not hosted_mode():
        return None
    known = st.session_state.get(LIB_VISITOR)
    if known:
        return known
    try:
        cookie = st.context.cookies.get(VISITOR_COOKIE)
    except Exception:  # no browser (a test harness): a new visitor
        cookie = None
    known = cookie if isinstance(cookie, str) and _VISITOR_ID.match(cookie) else secrets.token_urlsafe(24)
    st.session_state[LIB_VISITOR] = known
    return known


def keep_visitor_cookie() -> None:
    """Hosted mode: write this browser's id into its cookie until the browser sends it back (our own value:
    a token_urlsafe, checked against _VISITOR_ID; nothing of the visitor's goes into the script)."""
    ident = visitor_id()
    if ident is None or not _VISITOR_ID.match(ident):
        return
    try:
        if st.context.cookies.get(VISITOR_COOKIE) == ident:
            return
    except Exception:
        pass
    st.sidebar.html(f"<script>document.cookie = '{VISITOR_COOKIE}={ident}; path=/; max-age=31536000; SameSite=Lax'"
            " + (location.protocol === 'https:' ? '; Secure' : '');</script>", unsafe_allow_javascript=True)


def owner() -> str:
    from scratchpad_lab.engine.tasks import owner_of
    return owner_of(visitor_id())


# ── the store and its messages ──────────────────────────────────────────────

def get_store() -> "Store":
    """The store in force (SCRATCHPAD_LAB_DB, st.secrets, or the SQLite file); StoreError if it is set wrong."""
    from scratchpad_lab.engine.tasks import Store, store_url
    return Store(store_url(page_secrets()))


def say(level: str, text: str) -> None:
    """Keep a message of the store for the next full page run (callbacks and fragments cannot draw it)."""
    st.session_state[LIB_MESSAGE] = (level, text)


def show_message() -> None:
    found = st.session_state.get(LIB_MESSAGE)
    if not found:
        return
    st.session_state[LIB_MESSAGE] = None
    level, text = found
    icon = ":material/database:"
    # the text may quote a run's name or the database's own words: shown as plain text under our heading
    if level == "error":
        st.error("The run store had a problem:", icon=icon)
    elif level == "warning":
        st.warning("The run store removed runs to make room:", icon=icon)
    else:
        st.info("Run store:", icon=icon)
    st.text(text)


def autosave_on() -> bool:
    if LIB_AUTOSAVE not in st.session_state:
        st.session_state[LIB_AUTOSAVE] = os.environ.get(AUTOSAVE_ENV, "1").strip().lower() not in (
            "0", "off", "false", "no")
    return bool(st.session_state[LIB_AUTOSAVE])


def autosave_switch() -> None:
    """The setting: store every finished run (on by default; SCRATCHPAD_LAB_AUTOSAVE=0 turns it off)."""
    on = autosave_on()
    st.toggle("Store finished runs", value=on, key="play_autosave",
              on_change=lambda: st.session_state.__setitem__(LIB_AUTOSAVE, bool(st.session_state["play_autosave"])),
              help="Each finished run is kept in the lab's store and listed on the Runs page, with a link that "
                   "opens it in any browser. Off: runs live in this tab only (download them to keep them).")


# ── which of this tab's things are stored ──────────────────────────────────

def remember(thing: Any, run_id: str) -> None:
    st.session_state[LIB_STORED][id(thing)] = (thing, run_id)


def stored_id(thing: Any) -> Optional[str]:
    found = st.session_state.get(LIB_STORED, {}).get(id(thing))
    return found[1] if found and found[0] is thing else None


def run_id_for_entry(key: Optional[str]) -> Optional[str]:
    """The stored id behind a Runs-page entry key ("stored:<id>", "tab:<i>", "upload:<i>"), if any."""
    if not key:
        return None
    kind, _, rest = key.partition(":")
    if kind == "stored":
        return rest
    if kind in ("tab", "upload") and rest.isdigit():
        items = st.session_state.get(PLAY_RUNS if kind == "tab" else RUNS_UPLOADS, [])
        index = int(rest)
        if index < len(items):
            item = items[index]
            return stored_id(item if kind == "tab" else item.loaded)
    return None


# ── storing ─────────────────────────────────────────────────────────────────

def store_run(loaded: Any, *, name: str = "", configs: Iterable = (), keys: Optional[Dict[str, str]] = None,
              what: str = "This run", once: bool = False) -> Optional[str]:
    """Store a run record or a trace now; returns its id, or None with the reason kept for the page.
    `once`: content this visitor stored already is not stored again (Store.save_run); its id comes back."""
    from scratchpad_lab.engine.tasks import StoreError, secret_values
    if stored_id(loaded):
        return stored_id(loaded)
    try:
        saved = get_store().save_run(loaded, owner(), name=name, keys=secret_values(configs, keys, page_secrets()),
                                     once=once)
    except StoreError as exc:
        st.session_state[LIB_NOT_STORED][id(loaded)] = (loaded, f"{what} was not stored. {exc} {NOT_STORED}")
        return None
    st.session_state[LIB_NOT_STORED].pop(id(loaded), None)
    remember(loaded, saved.id)
    notice = saved.notice()
    if notice:
        say("warning", notice)
    return saved.id


def not_stored_note(record: Any, key: str) -> None:
    """While the run on show could not be stored: why, and a button to try again (the run stays either way)."""
    found = st.session_state.get(LIB_NOT_STORED, {}).get(id(record))
    if not found or found[0] is not record:
        return
    st.error("The run store had a problem:", icon=":material/database:")
    st.text(found[1])  # may quote the database's own words
    st.button("Try storing it again", key=key, on_click=_store_again, args=(record,))


def _store_again(record: Any) -> None:
    from scratchpad_lab.ui.sidebar_settings import config_from_state  # the keys typed now, to keep them out of the store
    store_run(record, configs=[record.config], keys=config_from_state()[1])


def store_finished(record: Any, keys: Optional[Dict[str, str]] = None) -> None:
    """A finished Playground run, stored when the setting is on."""
    if autosave_on():
        store_run(record, configs=[record.config], keys=keys)


def store_upload(entry: Any) -> None:
    """An uploaded run record, or a trace as imported (not its replay), stored when the setting is on, named
    after its file; the same content stored before is not stored again. The stored-runs picker then selects
    it (LIB_JUST_STORED), so its Open opens this upload."""
    if autosave_on():
        run_id = store_run(entry.loaded, name=entry.file_name or ("uploaded " + ("trace" if entry.is_trace else "run")),
                           configs=[entry.record.config], what="The uploaded file", once=True)
        if run_id:
            st.session_state[LIB_JUST_STORED] = run_id


def store_result(kind: str, rows: List[Dict], labels: List[str], source: str, name: str = "",
                 measured_with: str = "") -> None:
    """A Compare, sweep, recommendation or benchmark result (its figures), stored when the setting is on, with which
    summarizer measured it (SummarizerChoice.measured_with) where a study says so."""
    if not autosave_on():
        return
    from scratchpad_lab.engine.tasks import StoreError
    from scratchpad_lab.model.results import Result
    try:
        get_store().save_result(Result(kind=kind, rows=rows, labels=labels,
                                       name=name or f"{kind} of {len(rows)} settings", source=source,
                                       measured_with=measured_with), owner())
    except StoreError as exc:
        say("error", f"The {kind} result was not stored. {exc} It stays on this page.")


def save_prompt_version(name: str, text: str) -> Optional[int]:
    """Keep a prompt version in the store (in this visitor's history); its version number, or None (said why)."""
    from scratchpad_lab.engine.tasks import StoreError
    try:
        return get_store().save_prompt(name, text, owner()).version
    except StoreError as exc:
        say("error", f"The prompt version is kept in this tab only: {exc}")
        return None


def stored_prompts() -> Dict[str, Any]:
    """{name: its newest PromptVersion} of this visitor (empty, said why, when the store cannot be read)."""
    from scratchpad_lab.engine.tasks import StoreError
    try:
        return get_store().latest_prompts(owner())
    except StoreError as exc:
        say("error", f"Stored prompt versions cannot be read: {exc}")
        return {}


def prompt_history(name: str) -> List[Any]:
    from scratchpad_lab.engine.tasks import StoreError
    try:
        return get_store().prompt_history(name, owner())
    except StoreError:
        return []


def opened_entries() -> List[Any]:
    return list(st.session_state.get(LIB_OPENED, {}).values())


# ── the Runs page's library ─────────────────────────────────────────────────

def _where_caption() -> str:
    """Whose runs the list holds, in our words: never where the database is (its file is a path on the server)."""
    if hosted_mode():
        return ("Runs stored from this browser, newest first. Other visitors do not see them listed; a run's link "
                "(in the sidebar when it is open) opens it for anyone who has the link.")
    return ("Runs kept in the lab's store, newest first (SCRATCHPAD_LAB_DB says which database; `scratchpad-lab runs` "
            "lists them on the command line). Finished Playground runs and uploads are stored automatically unless "
            "the Playground's “Store finished runs” switch is off.")


def run_option(number: int, run: Any) -> str:
    """A stored run as the picker names it: its name (an upload's is its file's name; the visitor's text, plain in a
    select), what it is (a trace and its steps, or a run's scenario and iterations), and when it was stored."""
    what = (f"trace of {run.iterations} steps" if run.kind == "trace" else
            f"{run.scenario + ', ' if run.scenario else ''}{run.iterations} iterations")
    return f"#{number} · {run.name or 'unnamed'} · {what} · stored {run.stored_at}"


def shown_source(source: str) -> str:
    """What a result was computed from, as a visitor may see it: a page's title of a run as it is; a dataset's file
    or folder by its name (the lab's sample runs by that name), never the server's path to it."""
    from pathlib import PurePosixPath, PureWindowsPath

    from scratchpad_lab.ui.library import samples_dir

    text = (source or "").strip()
    if "/" not in text and "\\" not in text:
        return "the lab's sample runs" if text == samples_dir().name else text
    name = (PureWindowsPath if "\\" in text else PurePosixPath)(text.rstrip("/\\")).name
    return "the lab's sample runs" if name == samples_dir().name else (name or "a dataset")


def result_option(number: int, result: Any) -> str:
    """A stored result as the picker names it: what it is and its size ("benchmark of 148 runs"), what it was
    computed from (a dataset by its file's name), and when it was stored."""
    source = shown_source(result.source)
    return f"#{number} · {result.name or result.kind}{f' · {source}' if source else ''} · stored {result.stored_at}"


def library_section(open_run, key: str = "runs_lib") -> None:
    """Stored runs: search, a table, and open / rename / delete the one picked. `open_run(run_id)` opens a
    stored run in the page's viewer (it may raise StoreError)."""
    import pandas as pd  # lazy: the first page does without it

    from scratchpad_lab.engine.tasks import StoreError
    st.subheader("Stored runs")
    try:
        store = get_store()
        if not st.session_state.get(LIB_NOTICES):  # runs of this visitor removed since their last visit: told once
            st.session_state[LIB_NOTICES] = True
            for notice in store.take_notices(owner()):
                st.warning(notice, icon=":material/database:")
        st.caption(_where_caption())
        search = st.text_input("Search stored runs by name, scenario, strategy or prompt", key=f"{key}_search",
                               max_chars=200)
        rows = store.list_runs(owner(), search)
    except StoreError as exc:
        st.error("The run store cannot be read: the runs of this tab below are unaffected.",
                 icon=":material/database:")
        st.text(str(exc))
        return
    if not rows:
        st.text("No stored run matches that search." if search.strip() else
                "No stored runs yet: finished Playground runs and uploads are stored here.")
        return
    st.dataframe(pd.DataFrame([{
        "stored": r.stored_at, "name": r.name, "kind": r.kind, "scenario": r.scenario, "strategy": r.strategy,
        "prompt": r.prompt, "outcome": r.outcome, "iterations": r.iterations, "compressions": r.compressions,
        "summarizer calls": r.summarizer_calls, "failed calls": r.failed_calls,
        "KB": round(r.size_bytes / 1024, 1)} for r in rows]), hide_index=True, key=f"{key}_table")
    by_id = {r.id: r for r in rows}
    ids = list(by_id)
    if st.session_state.get(LIB_JUST_STORED) in by_id:  # an upload just stored: Open opens it
        st.session_state[f"{key}_pick"] = st.session_state.pop(LIB_JUST_STORED)
    if st.session_state.get(f"{key}_pick") not in by_id:
        st.session_state[f"{key}_pick"] = ids[0]
    # each run by its name (the visitor's text: a select draws it as plain text), with our words and numbers
    chosen = st.selectbox("Stored run", ids, key=f"{key}_pick", format_func=lambda i: run_option(ids.index(i) + 1,
                                                                                                  by_id[i]))

    def _open() -> None:
        try:
            open_run(chosen)
        except StoreError as exc:
            say("error", str(exc))

    def _rename() -> None:
        try:
            store.rename(chosen, st.session_state.get(f"{key}_name", ""), owner())
        except StoreError as exc:
            say("error", str(exc))

    def _delete() -> None:
        try:
            store.delete([chosen], owner())
        except StoreError as exc:
            say("error", str(exc))
        else:
            say("info", "The stored run was deleted. If it is open below, it stays open in this tab until you "
                        "leave; download it to keep it.")

    c1, c2, c3, c4 = st.columns([1, 2, 1, 1], vertical_alignment="bottom")
    c1.button("Open", key=f"{key}_open", on_click=_open, type="primary", width="stretch")
    c2.text_input("New name", key=f"{key}_name", max_chars=200, placeholder="a name for the picked run")
    c3.button("Rename", key=f"{key}_rename", on_click=_rename, width="stretch")
    c4.button("Delete", key=f"{key}_delete", on_click=_delete, width="stretch")
    if len(rows) >= 500:
        st.text("Showing the newest 500; search to find older ones.")


def results_section(key: str = "runs_results") -> None:
    """Stored Compare, sweep, recommendation and benchmark results: their figures, newest first, and delete."""
    import pandas as pd  # lazy: the first page does without it

    from scratchpad_lab.engine.tasks import StoreError
    try:
        store = get_store()
        listed = store.list_results(owner())
    except StoreError:
        return  # the runs section above already says the store cannot be read
    with st.expander(f"Stored Compare, sweep, recommendation and benchmark results ({len(listed)})"):
        if not listed:
            st.text("None yet: each comparison and sweep made on the Compare page, each recommendation made on "
                    "the Strategies page, and each benchmark made on the Benchmark page (or by `scratchpad-lab "
                    "bench --save`), is stored here.")
            return
        by_id = {r.id: r for r in listed}
        ids = list(by_id)
        chosen = st.selectbox("Result", ids, key=f"{key}_pick",
                              format_func=lambda i: result_option(ids.index(i) + 1, by_id[i]))
        try:
            result = store.load_result(chosen)
        except StoreError as exc:
            st.text(str(exc))
            return
        st.text(f"Computed from: {shown_source(result.source)}")  # a run's title (our words), or a dataset's name
        from scratchpad_lab.model.results import old_import_note  # lazy: the first page does without schemas
        note = old_import_note(result)
        if note:
            st.warning(note, icon=":material/history:")  # our own words
        st.dataframe(pd.DataFrame(result.rows), hide_index=True, key=f"{key}_table", placeholder="–")  # never "None"

        def _delete() -> None:
            try:
                store.delete_result(chosen, owner())
            except StoreError as exc:
                say("error", str(exc))

        st.button("Delete this result", key=f"{key}_delete", on_click=_delete)
