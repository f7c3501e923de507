"""Faults a Ray test puts into its cluster's workers, through Ray's own `worker_process_setup_hook` (the lab's
code has no fault switch): a trim-only cell with one of these agent_trim_chars values fails in a known way.

- RAISES: the cell raises (a bug in a cell): it must come back as an error row with this reason.
- DIES_ONCE: the worker process running it exits at once, the first time only (a marker file in the folder
  SCRATCHPAD_LAB_TEST_FAULTS names says it has died once): Ray runs the cell again, and it then succeeds.
- DIES_ALWAYS: the worker exits every time: after Ray's one retry the cell is reported as lost.
- SLOW: the cell takes half a second more (a long run's cell), so a Stop finds cells still outstanding however
  fast the machine is (a trim-only cell on a short tau-bench run takes a few milliseconds).
"""
import os
import time

RAISES, DIES_ONCE, DIES_ALWAYS = 4321, 4322, 4323
SLOW = tuple(range(7001, 7009))   # 8 trim-only settings whose cells each take half a second more
FAULTS_ENV = "SCRATCHPAD_LAB_TEST_FAULTS"
REASON = "a fault the test put into this cell"


def install() -> None:
    from scratchpad_lab.engine.studies import recommender as recommend

    real = recommend.run_point

    def run_point(name, settings, price_model, context):
        trim = settings.get("agent_trim_chars") if name == "trim-only" else None
        if trim == RAISES:
            raise RuntimeError(REASON)
        if trim == DIES_ALWAYS:
            os._exit(1)
        if trim in SLOW:
            time.sleep(0.5)
        if trim == DIES_ONCE:
            marker = os.path.join(os.environ[FAULTS_ENV], "died-once")
            if not os.path.exists(marker):
                open(marker, "w").close()
                os._exit(1)
        return real(name, settings, price_model, context)

    recommend.run_point = run_point
