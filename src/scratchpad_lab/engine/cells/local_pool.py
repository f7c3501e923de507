"""The local executor: a study's cells on this machine, in worker processes beside the calling thread.

Streamlit-free. Every study (the sweep, the recommender, the benchmark) runs its cells here when the executor is
local (engine/cells/executor.py); the Ray executor (engine/cells/ray_cluster.py) runs the same `Work` on a cluster.

- worker processes: `workers` - 1 fresh Python processes (`CellWorker`, running `worker_main`) beside the calling
  thread. The strategies and the agent are pure Python and hold the GIL, so threads would take turns. A plain
  child process, not multiprocessing's: spawn runs the caller's main module again in the child (a page script
  under Streamlit or AppTest, whose `st.Page` breaks outside a page run), and fork copies a threaded server's
  locks; neither is safe for a library to assume. A worker is sent a run's share once (JSON lines over its
  stdin), then one cell at a time, each answered with its figures on its stdout.
- who takes what: the cells come in their runs' order; the calling thread takes them from the front, one at a
  time, while the workers start (their imports take a second or two); each worker takes a batch of one run's
  cells from the end, so a worker works out a run's baselines once for many cells. The calling thread is the
  only one that calls `collect`.
- a summarizer that calls a model (an endpoint's, the built-in model): its cells run in this process, on
  `workers` threads for an endpoint (they wait on the network and share one store of replies), else one at a
  time. A worker process never calls a network and never holds a key: its summarizer is the offline one.
- faults: a cell's LabError of the study (a StrategyError) is that cell's error row, and the rest go on; a bug
  in a worker (its traceback) or a worker that ended before answering raises WorkerError here.
- Stop and Ctrl-C: `stop` is looked at between cells; however it ends (done, stopped, raised), every worker is
  ended and waited for and every feeding thread has returned. A worker also ends by itself when the process
  that started it is gone.
"""
from __future__ import annotations

import atexit
import importlib
import json
import math
import os
import queue
import subprocess
import sys
import threading
import time
import weakref
from collections import OrderedDict, deque
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Callable, Deque, Dict, List, Optional, Sequence, Tuple

from scratchpad_lab.engine.cells.executor import Outcome, Placement, RunShare, StudyCell, Work, plain
from scratchpad_lab.model.errors import LabError

HERE = "this machine"
KEPT_RUNS = 4            # run contexts the calling thread keeps (a worker keeps the run it was last sent)
BATCHES_PER_WORKER = 4   # a worker's batch: at most total cells / (workers * this), within one run

# The worker's command line: Ctrl-C in a terminal reaches the whole process group, and the study (the
# parent) is the one that answers it, ending its workers; the cwd is never on the worker's path.
WORKER_CODE = ("import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); "
               "from scratchpad_lab.engine.cells.local_pool import worker_main; worker_main()")
PARENT_ENV = "SCRATCHPAD_LAB_SEARCH_PARENT"


class WorkerError(RuntimeError):
    """A worker process failed at a cell (a bug: its traceback is the message) or ended before answering."""


_LIVE: "weakref.WeakSet[CellWorker]" = weakref.WeakSet()  # every worker started and not yet reaped


def work_name(work: Work) -> List[str]:
    """The work's two functions by name, as a worker process imports them."""
    return [f"{fn.__module__}:{fn.__qualname__}" for fn in (work.make_context, work.run)]


def _work_from(names: Any) -> Work:
    """The work a worker was told to do: two functions of the lab, by name (never anything else)."""
    if not isinstance(names, list) or len(names) != 2 or not all(isinstance(n, str) for n in names):
        raise ValueError("expected the study's work: two function names.")
    found = []
    for name in names:
        module, _, qualname = name.partition(":")
        if not module.startswith("scratchpad_lab.") or not qualname.isidentifier():
            raise ValueError(f"a worker runs only the lab's own functions, not {name[:80]!r}.")
        found.append(getattr(importlib.import_module(module), qualname))
    return Work(found[0], found[1])


def share_message(share: RunShare, work: Work) -> Dict[str, Any]:
    """A run's share as the first JSON line a worker reads for that run (the trace and record as their files)."""
    return {"share": {"key": share.key, "trace": share.trace.to_dict() if share.trace is not None else None,
                      "record": share.record.to_dict() if share.record is not None else None,
                      "scenario": share.scenario, "gold": share.gold, "arguments": share.arguments,
                      "budget": share.budget_chars, "pins": list(share.pins),
                      "pins_to_summarizer": share.pins_to_summarizer},
            "work": work_name(work)}


def _share_from(raw: Any) -> RunShare:
    """The share a worker was sent, checked as a trace file is (Trace.from_dict, RunRecord.from_dict)."""
    from scratchpad_lab.model.records import RunRecord
    from scratchpad_lab.model.trace import Trace

    if not isinstance(raw, dict) or type(raw.get("budget")) is not int:
        raise ValueError("expected a run's share: its trajectory and the summarizer's budget.")
    trace = Trace.from_dict(raw["trace"], "the study's trajectory") if raw.get("trace") is not None else None
    record = RunRecord.from_dict(raw["record"], "the study's run") if raw.get("record") is not None else None
    pins, gold, scenario = raw.get("pins") or [], raw.get("gold"), raw.get("scenario")
    if not isinstance(pins, list) or not all(isinstance(p, str) for p in pins):
        raise ValueError("the study's pins must be a list of text.")
    return RunShare(str(raw.get("key", "")), trace, scenario if isinstance(scenario, str) else None,
                    gold if isinstance(gold, list) else None, raw.get("arguments") is True, raw["budget"],
                    tuple(pins), raw.get("pins_to_summarizer") is True, record)


class CellWorker:
    """One worker process: sent a run's share, then one cell at a time, each answered with its outcome, as JSON
    lines over its own stdin and stdout. Started at once (its imports take a second); `start` and `run` are
    called from one feeding thread."""

    def __init__(self) -> None:
        import scratchpad_lab

        root = str(Path(scratchpad_lab.__file__).resolve().parents[1])  # this very copy of the package
        paths = [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != root]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYTHONSAFEPATH": "1"}
        env[PARENT_ENV] = str(os.getpid())  # the worker ends when this process is gone
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER_CODE], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env, text=True, encoding="ascii")
        _LIVE.add(self)
        self.ready = False   # it read a share
        self.busy = False    # a cell was sent and not yet answered

    def _send(self, data: Dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(data) + "\n")  # ASCII: any string, lone surrogates too, goes through
        self.proc.stdin.flush()

    def _reply(self) -> Dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise WorkerError(f"a worker process ended (exit status {self.proc.wait()}) before it answered.")
        return json.loads(line)

    def start(self, share: RunShare, work: Work) -> bool:
        """Send a run's share (again for each run: the worker and its imports are kept); False when the worker
        refused it (the calling thread then runs those cells)."""
        self._send(share_message(share, work))
        self.ready = "ready" in self._reply()
        return self.ready

    def run(self, cell: StudyCell, price_model: Optional[str]) -> Outcome:
        from scratchpad_lab.engine.strategies.registry import StrategyError

        self.busy = True
        self._send({"strategy": cell.strategy, "settings": plain(cell.settings), "price_model": price_model})
        reply = self._reply()
        self.busy = False
        if "raised" in reply:  # the study's own refusal, as this thread would have raised it
            raise (StrategyError if reply.get("strategy_error") else LabError)(reply["raised"])
        if "failed" in reply:
            raise WorkerError(f"a worker process failed at {cell.strategy} {short(cell.settings)}:\n{reply['failed']}")
        return reply["figures"], reply["error"], reply["hits"]

    def end(self, finished: bool) -> None:
        """Ask it to end: an idle worker of a finished study reads the end of its input and exits; any other
        (stopped or failed study, a cell or a share in flight) is killed, its work of no use."""
        if finished and self.ready and not self.busy:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            except OSError:
                pass
        else:
            self.proc.kill()

    def reap(self) -> None:
        """Wait for it (no zombie left), killing it if it has not exited within a second; close the pipes.
        Called after its feeding thread has returned."""
        try:
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        _LIVE.discard(self)


def _reap_at_exit() -> None:
    """A server stopping (SIGTERM runs Streamlit's shutdown, then this) kills the workers of a study still going,
    quietly, instead of leaving them to finish a cell for a parent that is gone."""
    for worker in list(_LIVE):
        try:
            worker.proc.kill()
            worker.proc.wait(timeout=1)
        except (OSError, subprocess.TimeoutExpired):
            pass


atexit.register(_reap_at_exit)


def _end_with_parent(parent: int, poll_s: float = 0.2) -> None:
    """In a worker: exit at once, silently, when the study's process is gone (killed, or a server stopped without
    its exit handlers running): the worker is then re-parented, and its work is of no use."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os._exit(0)
    threading.Thread(target=watch, name="scratchpad-lab-parent-watch", daemon=True).start()


def worker_main() -> None:
    """The worker's side of CellWorker. It reads only its stdin (from the study that started it): a run's share
    and the work's two functions, then cells, and again for each run; it writes one JSON line per message to
    stdout and nothing else (whatever a package prints goes to stderr). Its summarizer is always the offline
    one: a worker never calls a network or holds a key. It reads no file: deepagents' files are in a temporary
    directory of its own. It ends at the end of its input."""
    import traceback

    from scratchpad_lab.engine.run.tokens import TokenCounter
    from scratchpad_lab.engine.summarize.summarizers import build_summarizer
    from scratchpad_lab.model.summarizer import SummarizerChoice

    out = sys.stdout
    sys.stdout = sys.stderr
    parent = os.environ.get(PARENT_ENV, "")
    if parent.isdigit():
        _end_with_parent(int(parent))

    def answer(data: Dict[str, Any]) -> None:
        try:
            out.write(json.dumps(data) + "\n")
            out.flush()
        except (BrokenPipeError, OSError):  # the study is gone (stopped, or its server): nobody to answer
            os._exit(0)

    counter = TokenCounter(None)
    context: Any = None
    work: Optional[Work] = None
    for line in sys.stdin:
        try:
            asked = json.loads(line)
            if isinstance(asked, dict) and "share" in asked:  # a run's share: same process, new context
                try:
                    work = _work_from(asked.get("work"))
                    share = _share_from(asked["share"])
                    summarizer = build_summarizer(SummarizerChoice("extractive", share.budget_chars))
                    context = work.make_context(share, summarizer, counter)
                except (LabError, ValueError) as exc:
                    work = context = None
                    answer({"refused": str(exc)})
                    continue
                answer({"ready": True})
                continue
            if work is None:
                answer({"refused": "expected a run's share before its cells."})
                continue
            figures, error, hits = work.run(asked["strategy"], asked["settings"], asked["price_model"], context)
            answer({"figures": plain(figures), "error": error, "hits": hits})
        except LabError as exc:
            from scratchpad_lab.engine.strategies.registry import StrategyError

            answer({"raised": str(exc), "strategy_error": isinstance(exc, StrategyError)})
        except Exception:  # a bug: the study raises it with this traceback
            answer({"failed": traceback.format_exc()})
    # The end of its input: every reply is written and flushed and it holds nothing else (deepagents' temporary
    # directories are gone with their cells), so it exits at once: the interpreter's own teardown of the
    # packages' modules takes a third of a second, which the study would wait for.
    sys.stderr.flush()
    os._exit(0)


def short(settings: Dict[str, Any]) -> str:
    return ", ".join(f"{k}={'none' if v is None else v}" for k, v in settings.items())


def check_stop(stop: Any) -> None:
    """Raise when the study was asked to stop: the stop flag's own exception (StopFlag.check), else Stopped."""
    from scratchpad_lab.engine.jobs import Stopped

    if stop is not None and stop.is_set():
        if hasattr(stop, "check"):
            stop.check()
        raise Stopped("stopped")


def _cell_outcome(work: Work, cell: StudyCell, price_model: Optional[str], context: Any) -> Outcome:
    from scratchpad_lab.engine.strategies.registry import StrategyError

    try:
        return work.run(cell.strategy, cell.settings, price_model, context)
    except StrategyError as exc:
        return {"strategy": cell.strategy, "settings": cell.settings}, str(exc), 0


class _Contexts:
    """The calling process's contexts, by run (`here(share)` makes one): the last few kept."""

    def __init__(self, shares: Sequence[RunShare], here: Callable[[RunShare], Any]) -> None:
        self.shares, self.here = shares, here
        self.kept: "OrderedDict[int, Any]" = OrderedDict()
        self.lock = threading.Lock()

    def __call__(self, run: int) -> Any:
        with self.lock:
            if run not in self.kept:
                self.kept[run] = self.here(self.shares[run])
                while len(self.kept) > KEPT_RUNS:
                    self.kept.popitem(last=False)
            self.kept.move_to_end(run)
            return self.kept[run]


def run_cells(shares: Sequence[RunShare], cells: Sequence[StudyCell], work: Work, price_model: Optional[str],
              collect: Callable[[StudyCell, Outcome], None], stop: Any, placement: Placement, workers: int,
              here: Callable[[RunShare], Any], threads: bool = False) -> None:
    """Run every cell (see the module's docstring), calling `collect(cell, outcome)` in this thread as each ends.
    `here(share)`: the context this process runs a run's cells in (the study's own summarizer, its stop flag).
    `threads`: the summarizer waits on the network, so `workers` threads of this process share the cells."""
    contexts = _Contexts(shares, here)
    if threads and workers > 1:
        _on_threads(cells, work, price_model, collect, stop, placement, workers, contexts)
    elif workers <= 1 or threads:
        for cell in cells:
            check_stop(stop)
            outcome = _cell_outcome(work, cell, price_model, contexts(cell.run))
            placement.add(HERE, os.getpid())
            collect(cell, outcome)
    else:
        _in_processes(shares, cells, work, price_model, collect, stop, placement, workers - 1, contexts)


def _on_threads(cells: Sequence[StudyCell], work: Work, price_model: Optional[str],
                collect: Callable[[StudyCell, Outcome], None], stop: Any, placement: Placement, workers: int,
                contexts: _Contexts) -> None:
    with ThreadPoolExecutor(workers, thread_name_prefix="scratchpad-lab-cells") as pool:
        futures = {pool.submit(lambda c: _cell_outcome(work, c, price_model, contexts(c.run)), cell): cell
                   for cell in cells}
        left = set(futures)
        try:
            while left:
                check_stop(stop)
                finished, left = wait(left, timeout=0.25, return_when=FIRST_COMPLETED)
                for future in finished:
                    placement.add(HERE, os.getpid())
                    collect(futures[future], future.result())
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _in_processes(shares: Sequence[RunShare], cells: Sequence[StudyCell], work: Work, price_model: Optional[str],
                  collect: Callable[[StudyCell, Outcome], None], stop: Any, placement: Placement, count: int,
                  contexts: _Contexts) -> None:
    """`count` worker processes and this thread at once (see the module's docstring). However it ends, every
    worker is ended and waited for, and every feeding thread has returned."""
    from scratchpad_lab.engine.strategies.registry import StrategyError

    pending: Deque[StudyCell] = deque(cells)
    batch_size = max(1, math.ceil(len(cells) / (max(1, count + 1) * BATCHES_PER_WORKER)))
    procs: List[CellWorker] = []
    for _ in range(count):
        try:
            procs.append(CellWorker())
        except OSError:
            break  # no process can be started now: the ones started (maybe none) and this thread run the cells
    lock, halted = threading.Lock(), threading.Event()
    answers: "queue.Queue[Tuple[StudyCell, Any, Optional[BaseException], int]]" = queue.Queue()

    def batch() -> List[StudyCell]:
        """From the end: up to batch_size cells of the last run (under the lock)."""
        taken: List[StudyCell] = []
        while pending and len(taken) < batch_size and (not taken or pending[-1].run == taken[0].run):
            taken.append(pending.pop())
        return taken

    def feed(proc: CellWorker) -> None:
        loaded: Optional[int] = None
        cell: Optional[StudyCell] = None
        try:
            while not halted.is_set():
                with lock:
                    taken = batch()
                if not taken:
                    return
                if taken[0].run != loaded:
                    if not proc.start(shares[taken[0].run], work):
                        with lock:
                            pending.extendleft(taken)  # this thread runs them
                        return
                    loaded = taken[0].run
                for cell in taken:
                    if halted.is_set():
                        return
                    try:
                        outcome = proc.run(cell, price_model)
                    except StrategyError as exc:
                        outcome = ({"strategy": cell.strategy, "settings": cell.settings}, str(exc), 0)
                    answers.put((cell, outcome, None, proc.proc.pid))
        except BaseException as exc:  # noqa: BLE001 - handed to the collecting thread, which raises it
            if not halted.is_set():
                answers.put((cell or StudyCell(-1, "", ""), None, exc, 0))

    def drain(block: bool) -> None:
        while True:
            try:
                cell, outcome, exc, pid = answers.get(timeout=0.25) if block else answers.get_nowait()
            except queue.Empty:
                return
            if exc is not None:
                raise exc
            placement.add(HERE, pid)
            collect(cell, outcome)
            block = False

    feeders = [threading.Thread(target=feed, args=(p,), name="scratchpad-lab-cells", daemon=True) for p in procs]
    finished = False
    try:
        for thread in feeders:
            thread.start()
        while True:
            drain(False)
            check_stop(stop)
            with lock:
                cell = pending.popleft() if pending else None
            if cell is not None:
                outcome = _cell_outcome(work, cell, price_model, contexts(cell.run))
                placement.add(HERE, os.getpid())
                collect(cell, outcome)
                continue
            if not any(t.is_alive() for t in feeders) and answers.empty():
                break
            drain(True)
        finished = True
    finally:
        halted.set()
        for proc in procs:
            proc.end(finished)
        for thread in feeders:
            if thread.ident is not None:
                thread.join(5)  # a killed worker's pipe ends at once, so its thread returns
        for proc in procs:
            proc.reap()
