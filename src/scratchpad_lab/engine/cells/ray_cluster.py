"""The Ray executor: a study's cells as Ray tasks on a cluster, with no scheduling of the lab's own.

Streamlit-free. Ray is imported here only, when a study asks for `--executor ray` (engine/cells/executor.py); without
it installed, that is one line saying what to install (exit 2 at the CLI).

- joining: `connected(choice)` joins the cluster at the choice's address, or, with none, starts one of this
  machine's cores (address "local", dashboard off, logs not sent to this process, a small object store, every
  port on 127.0.0.1 only: `_on_loopback`) and ends it when the last study using it ends. An address is first
  reached with a plain TCP connection (3 s): one that cannot be reached is one line, and Ray is never started. A
  cluster of another Ray (or Python) version is refused by Ray itself as it joins; that is one line too. A process already joined to a cluster
  (a notebook, a test's own `ray.init`) is used as it is and left joined.
- the per-run share: each run's `RunShare` (executor.py) goes into the object store once (`ray.put`); each cell
  is a task given that reference, the strategy, its settings and the price model. A worker process keeps the
  contexts of the last few runs it took (the run's baselines are worked out at its first cell there), so cells
  of one run that land on one worker share them.
- faults: a cell that raises gives an error row with the reason (its last line), and the rest go on; a worker
  lost mid-cell (its process killed, its node gone) has that cell run again once by Ray (`max_retries=1`),
  then the cell is an error row saying the worker was lost. Nothing waits without a bound: results are taken
  with `ray.wait(..., timeout=)`, and a study that passes a job's wall clock cancels what is left.
- Stop and Ctrl-C: every outstanding cell is cancelled (`ray.cancel(force=True)`, which ends a worker in the
  middle of a cell) and waited for; a cluster the study started is shut down (`ray.shutdown()`), so no Ray
  process of it is left on this machine. The lab never runs `ray stop` (it would end every Ray process here).
- an endpoint summarizer: one `SummarizerHost` actor holds the job's one endpoint client (providers.EndpointLLM:
  its pinned address, limits, breaker, key scrubbing), built once; every worker's summarizer calls go to it.
  The key reaches the actor by one direct method call from this process (`take_key`), in memory: it is in no
  task's arguments (a task's are kept for retries and its large ones go to the object store, which may spill
  to disk), in no actor's constructor (kept by the cluster's control store to restart it), in no runtime
  environment and in no log.
"""
from __future__ import annotations

import os
import socket
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, Optional, Sequence, Tuple

from scratchpad_lab.engine.cells.executor import (RAY_REQUIREMENTS, ExecutorChoice, ExecutorError, Outcome, Placement,
                                                 RunShare, StudyCell, Work, plain)

REACH_S = 3.0                 # how long an address may take to answer a TCP connection
JOIN_S = 30                   # how long joining a reachable cluster may take
POLL_S = 0.25                 # how often the study looks at Stop while cells run
LOCAL_OBJECT_STORE = 256 * 1024 * 1024  # a cluster of this machine: the shares are small (a trace each)
KEPT_RUNS = 4                 # run contexts a worker process keeps
CANCEL_WAIT_S = 10.0

_LOCK = threading.Lock()
_HELD = {"studies": 0, "ours": False}   # studies using this process's Ray connection; whether we started it


def ray_module() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorError(f"--executor ray needs Ray, which is not installed here: pip install -r {RAY_REQUIREMENTS}"
                            " (or run with --executor local).") from None
    return ray


def host_port(address: str) -> Optional[Tuple[str, int]]:
    """(host, port) of `host:port` or `ray://host:port`; None for "auto" (Ray finds a cluster of this machine)."""
    text = address.strip()
    if text in ("auto", "local"):
        return None
    if "://" in text:
        text = text.split("://", 1)[1]
    host, sep, port = text.rstrip("/").rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ExecutorError(f"--ray-address {address!r}: give the cluster head's host:port (e.g. 10.0.0.5:6379), "
                            "or ray://host:10001 for Ray Client.")
    return host.strip("[]"), int(port)


def check_reachable(address: str, timeout_s: float = REACH_S) -> None:
    """One TCP connection to the address, within `timeout_s`; a refusal or silence is one line."""
    target = host_port(address)
    if target is None:
        return
    try:
        with socket.create_connection(target, timeout=timeout_s):
            pass
    except OSError as exc:
        reason = "no answer within %.0f s" % timeout_s if isinstance(exc, socket.timeout) else (exc.strerror or str(exc))
        raise ExecutorError(f"the Ray cluster at {address} cannot be reached ({reason}); check the address and that "
                            "the cluster is up. Nothing was started.") from None


def _package_root() -> str:
    import scratchpad_lab
    return os.path.dirname(os.path.abspath(scratchpad_lab.__file__))


USAGE_STATS_ENV = "RAY_USAGE_STATS_ENABLED"  # "0": Ray's usage reporting off in the clusters the lab starts


@contextmanager
def _without_api_server() -> Iterator[None]:
    """Ray starts its cluster without its API server process. With the dashboard off, that process serves only
    Ray's usage module, which as it starts asks the cloud metadata addresses (169.254.169.254,
    metadata.google.internal) which cloud it is on, even with usage reporting off (Ray 2.60's
    `UsageStatsHead.run`): hosts nobody named. Nothing the lab does needs the process."""
    try:
        from ray._private.node import Node
    except ImportError:  # another Ray: start as Ray does (tests/test_nothing_sent_home.py would see a probe)
        yield
        return
    start = Node.start_api_server
    Node.start_api_server = lambda self, **kwargs: None
    try:
        yield
    finally:
        Node.start_api_server = start


@contextmanager
def _on_loopback() -> Iterator[None]:
    """Ray starts its cluster with this machine's loopback address as the node's, as it does on macOS and Windows
    (`ray_constants.ENABLE_RAY_CLUSTER` off): its processes (the control store, the raylet, each worker, the runtime
    environment agent) then listen on 127.0.0.1 only. On Linux Ray replaces a `_node_ip_address` of 127.0.0.1 with
    the machine's own address, and with that every process listened on every interface (`::`), reachable from the
    network (bench/probes.py, 7 of 9 ports). A cluster of this one machine needs nothing more."""
    try:
        from ray._private import ray_constants
    except ImportError:  # another Ray: start as it does (bench/probes.py would see the ports)
        yield
        return
    clusters = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = clusters


def _join(ray: Any, choice: ExecutorChoice) -> None:
    """Join (or start) the cluster, the workers running this very copy of the lab: on this machine from its
    folder (PYTHONPATH), on a cluster shipped with the job (Ray's `py_modules`: its workers need the lab's
    dependencies installed, not the lab)."""
    if choice.address:
        check_reachable(choice.address)
        try:
            ray.init(address=choice.address, log_to_driver=False, logging_level="ERROR",
                     runtime_env={"py_modules": [_package_root()], "excludes": ["__pycache__"]})
        except Exception as exc:  # Ray's own refusal: another version, a missing token, not a Ray port
            if ray.is_initialized():
                ray.shutdown()
            first = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
            raise ExecutorError(f"could not join the Ray cluster at {choice.address}: {first[:300]}"
                                + (f" This lab has Ray {ray.__version__}; a worker needs the same."
                                   if "version" in first.lower() else "")) from None
        return
    # Ray's processes inherit this process's environment; Ray 2.60 sets the same itself for a release, not a nightly
    os.environ[USAGE_STATS_ENV] = "0"
    with _without_api_server(), _on_loopback():
        ray.init(address="local", num_cpus=os.cpu_count() or 1, include_dashboard=False, log_to_driver=False,
                 logging_level="ERROR", object_store_memory=LOCAL_OBJECT_STORE, _node_ip_address="127.0.0.1",
                 runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(
                     [os.path.dirname(_package_root())] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}})


HOSTED_NO_LOCAL_CLUSTER = (
    "In hosted mode the lab does not start a Ray cluster itself: Ray's processes (its control store, the raylet, "
    "each worker) take work from any process that reaches their ports, and on a server that is every program on "
    "it, beside every visitor's job. Set SCRATCHPAD_LAB_RAY_ADDRESS (or ray_address in the app's secrets) to a cluster behind "
    "your firewall, or use the local executor.")


@contextmanager
def connected(choice: ExecutorChoice) -> Iterator[Dict[str, Any]]:
    """This process joined to the choice's cluster for the length of a study: {"cpus", "started"}. A hosted server
    never starts a cluster of its own (HOSTED_NO_LOCAL_CLUSTER): only an operator's, at an address, is joined."""
    from scratchpad_lab.model.endpoint import hosted_mode

    if hosted_mode() and not choice.address:
        raise ExecutorError(HOSTED_NO_LOCAL_CLUSTER)
    ray = ray_module()
    with _LOCK:
        if not ray.is_initialized():
            _join(ray, choice)
            _HELD["ours"] = True
        _HELD["studies"] += 1
        started = _HELD["ours"]
    try:
        yield {"cpus": int(ray.cluster_resources().get("CPU", 1)), "started": started and not choice.address}
    finally:
        with _LOCK:
            _HELD["studies"] -= 1
            if _HELD["studies"] == 0 and _HELD["ours"]:
                ray.shutdown()
                _HELD["ours"] = False


# ── in a worker ────────────────────────────────────────────────────────────────────────────────────

_CONTEXTS: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()
_COUNTERS: Dict[Optional[str], Any] = {}


class HostedClient:
    """The job's endpoint client as a worker sees it: each call goes to the SummarizerHost actor, which holds
    the one real client (providers.EndpointLLM). The same face as EndpointLLM to the strategies."""

    abandonable = True  # it waits on the network (the host's call): a run may walk away from it

    def __init__(self, host: Any, endpoint: Any) -> None:
        self.host = host
        self.model_name = endpoint.limited().label()
        self.last_usage: Optional[Dict[str, Any]] = None
        self.stop_event = self.time_left = self.max_calls = None  # the host's client enforces the job's

    def invoke(self, prompt: Any, *, max_tokens: Optional[int] = None, **_kwargs: Any) -> str:
        import ray
        from scratchpad_lab.model.endpoint import EndpointError

        try:
            text, self.last_usage = ray.get(self.host.invoke.remote(prompt, max_tokens))
        except ray.exceptions.RayTaskError as exc:
            cause = exc.cause
            raise (cause if isinstance(cause, EndpointError) else EndpointError(f"the summarizer host failed: {cause}"))
        return text


def _context_for(share: RunShare, summarizer: Dict[str, Any], host: Any, work: Work) -> Any:
    from scratchpad_lab.engine.summarize.summarizers import build_summarizer
    from scratchpad_lab.model.summarizer import SummarizerChoice
    from scratchpad_lab.engine.run.tokens import TokenCounter

    found = _CONTEXTS.get(share.key)
    if found is not None:
        _CONTEXTS.move_to_end(share.key)
        return found
    model = summarizer.get("model_id")
    if model not in _COUNTERS:
        _COUNTERS[model] = TokenCounter(model)
    if summarizer["kind"] == "endpoint":  # no key here: the host's client holds it
        spec = build_summarizer(SummarizerChoice("endpoint", share.budget_chars, summarizer["endpoint"]))
        spec.hosted = HostedClient(host, summarizer["endpoint"])
    else:
        spec = build_summarizer(SummarizerChoice("extractive", share.budget_chars))
    context = work.make_context(share, spec, _COUNTERS[model])
    _CONTEXTS[share.key] = context
    while len(_CONTEXTS) > KEPT_RUNS:
        _CONTEXTS.popitem(last=False)
    return context


def run_cell(share: RunShare, strategy: str, settings: Dict[str, Any], price_model: Optional[str],
             summarizer: Dict[str, Any], host: Any, work: Work) -> Tuple[Dict[str, Any], Optional[str], int, str, int]:
    """One cell in a worker: (figures, the run's error, summaries reused, node id, process id). `work` is the
    study's (engine/cells/executor.Work), the very functions a local worker process runs, so a row reads the same
    whichever executor ran it."""
    import ray
    from scratchpad_lab.engine.strategies.registry import StrategyError

    context = _context_for(share, summarizer, host, work)
    try:
        figures, error, hits = work.run(strategy, settings, price_model, context)
    except StrategyError as exc:
        figures, error, hits = {"strategy": strategy, "settings": settings}, str(exc), 0
    return plain(figures), error, hits, ray.get_runtime_context().get_node_id(), os.getpid()


class SummarizerHost:
    """Holds the job's one endpoint client (built once, on the first call after the key came); cells' calls
    queue here, a few at a time."""

    def __init__(self, endpoint: Any) -> None:
        self.endpoint, self.client = endpoint, None

    def take_key(self, key: str) -> bool:
        from scratchpad_lab.engine.summarize.summarizers import build_summarizer
        from scratchpad_lab.model.summarizer import SummarizerChoice

        self.client = build_summarizer(SummarizerChoice("endpoint", endpoint=self.endpoint, key=key)).client()
        return True

    def invoke(self, prompt: Any, max_tokens: Optional[int]) -> Tuple[str, Optional[Dict[str, Any]]]:
        text = self.client.invoke(prompt, max_tokens=max_tokens)
        return text, self.client.last_usage


# ── in the study's process ─────────────────────────────────────────────────────────────────────────

_LOST: Tuple[type, ...] = ()  # Ray's errors for a worker or node gone (set when Ray is first imported)

def _reason(exc: BaseException) -> str:
    import ray

    if isinstance(exc, _LOST):
        return "the Ray worker running this cell was lost, and lost again when Ray ran it once more"
    if isinstance(exc, ray.exceptions.RayTaskError):
        cause = exc.cause
        text = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc).strip().splitlines()[-1]
        return f"the cell failed on the cluster: {text}"[:500]
    return f"the cell failed on the cluster: {type(exc).__name__}: {exc}"[:500]


def run_cells(shares: Sequence[RunShare], cells: Sequence[StudyCell], summarizer: Any, price_model: Optional[str],
              collect: Callable[[StudyCell, Outcome], None], stop: Any,
              deadline_s: float, placement: Placement, work: Work) -> None:
    """Run every cell as a Ray task on the joined cluster, calling `collect(cell, (figures, error, hits))` in
    this thread as each finishes (in the order they finish). Stop (`stop.is_set()`), Ctrl-C or the deadline
    cancel what is left, and the exception (the stop flag's, KeyboardInterrupt, or Stopped) goes on up."""
    import ray
    from scratchpad_lab.engine.jobs import Stopped

    global _LOST
    _LOST = (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError, ray.exceptions.ActorDiedError)
    task = ray.remote(max_retries=1, retry_exceptions=False)(run_cell)
    host = None
    described: Dict[str, Any] = {"kind": summarizer.kind, "model_id": None, "endpoint": None}
    if summarizer.kind == "endpoint":
        from scratchpad_lab.engine.net.providers import resolve_key

        described.update(model_id=summarizer.model_id, endpoint=summarizer.endpoint)
    pending: Dict[Any, StudyCell] = {}
    ends = time.monotonic() + deadline_s

    def look_at_stop() -> None:
        if stop is not None and stop.is_set():
            if hasattr(stop, "check"):
                stop.check()
            raise Stopped("stopped")
        if time.monotonic() > ends:
            raise Stopped(f"over the job's {deadline_s:,.0f} s on the cluster")

    try:
        if summarizer.kind == "endpoint":
            host = ray.remote(num_cpus=0, max_restarts=0, max_concurrency=4)(SummarizerHost).remote(
                summarizer.endpoint)
            # the key: one direct call, in memory (see the module's docstring), never a task's argument. Starting
            # the actor is a new worker process, which on a busy machine takes longer than joining: it waits as
            # the cells do, under Stop and the job's own clock, not a fixed bound.
            given = host.take_key.remote(summarizer.key or resolve_key(summarizer.endpoint))
            while not ray.wait([given], timeout=POLL_S)[0]:
                look_at_stop()
            ray.get(given)
        refs = {i: ray.put(share) for i, share in enumerate(shares)}
        for cell in cells:
            pending[task.remote(refs[cell.run], cell.strategy, cell.settings, price_model, described, host, work)] = cell
        while pending:
            look_at_stop()
            done, _ = ray.wait(list(pending), num_returns=len(pending), timeout=POLL_S, fetch_local=True)
            for ref in done:
                cell = pending.pop(ref)
                try:
                    figures, error, hits, node, pid = ray.get(ref, timeout=JOIN_S)
                except (ray.exceptions.RayError, OSError) as exc:
                    if isinstance(exc, _LOST):
                        placement.lost += 1
                    collect(cell, ({"strategy": cell.strategy, "settings": cell.settings}, _reason(exc), 0))
                    continue
                placement.add(node, pid)
                collect(cell, (figures, error, hits))
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if pending:
            ray.wait(list(pending), num_returns=len(pending), timeout=CANCEL_WAIT_S)
        if host is not None:
            ray.kill(host)
