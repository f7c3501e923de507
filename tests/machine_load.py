"""How busy this machine is, for tests that wait for what a person waits for (issue 46).

No browser needed: the browser tests (browser_support) and the tests of a job's ending both read it."""
from __future__ import annotations

import os

MAX_PATIENCE = 4.0


def patience() -> float:
    """How much longer than on a quiet machine a wait may take now: the load average per core (at least 1, at most
    MAX_PATIENCE). A person waits longer for a busy machine too; a test that waits for what a person waits for
    scales its bound the same way instead of failing at a fixed short deadline."""
    try:
        load = os.getloadavg()[0] / max(1, os.cpu_count() or 1)
    except OSError:
        return 1.0
    return max(1.0, min(MAX_PATIENCE, load))
