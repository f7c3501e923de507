"""The lab's store: runs, traces, prompt versions and results in SQLite (the default) or PostgreSQL.

    from scratchpad_lab.engine.store import Store
    store = Store()                        # SCRATCHPAD_LAB_DB, else ~/.local/share/scratchpad-lab/lab.db
    saved = store.save_run(record)         # saved.id: the run's unguessable id (its link: ?run=<id>)
    store.list_runs(search="support")      # newest first

Streamlit-free. SQLAlchemy is imported with this package, so the pages import it where a run is stored or
the library is drawn, never on the first page.
"""
from scratchpad_lab.engine.store.store_error import StoreError
from scratchpad_lab.engine.store.location import DB_ENV, Limits, default_path, limits_from_env, store_url
from scratchpad_lab.engine.store.store import (PromptVersion, ResultSummary, RunSummary, Saved, Store, forget, new_id,
                                               owner_of, secret_values, shown_url, strategy_of)
from scratchpad_lab.engine.store.tables import SCHEMA_VERSION

__all__ = ["DB_ENV", "Limits", "PromptVersion", "ResultSummary", "RunSummary", "SCHEMA_VERSION", "Saved", "Store",
           "StoreError", "default_path", "forget", "limits_from_env", "new_id", "owner_of",
           "secret_values", "shown_url", "store_url", "strategy_of"]
