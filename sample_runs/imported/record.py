"""Records the sample in this folder: a real autourgos-agent run whose own `history=` writer made the file.

    PYTHONPATH=src python3 sample_runs/imported/record.py

The agent is the real `autourgos_agent.Agent` with the support-ticket scenario's tools; its LLM is the
lab's scripted policy (offline: no model could be called where this was made), so the run's decisions
are scripted, while the loop, the tool calls, the agent's own cuts and the history file are the
package's. The history writer's defaults apply: the query is written as [REDACTED: length=N] and every
string over 512 characters is cut, which is what the Runs page's import report then says.
"""
import json
import shutil
import sys
import tempfile
from pathlib import Path

from autourgos_agent import Agent

from scratchpad_lab.engine.run.standins import ScriptedPolicyLLM
from scratchpad_lab.model.scenarios import get_scenario

OUT = Path(__file__).resolve().parent / "autourgos-history-support-ticket.json"


def main() -> None:
    scenario = get_scenario("support-ticket")
    folder = Path(tempfile.mkdtemp())
    try:
        agent = Agent(llm=ScriptedPolicyLLM(scenario), tools=list(scenario.tools), history=str(folder),
                      max_iterations=len(scenario.plan) + 2)
        answer = agent.invoke(scenario.task)
        agent._history.flush()  # the writer works on a background thread
        [written] = sorted(folder.glob("Task_*.json"))
        data = json.loads(written.read_text(encoding="utf-8"))
        OUT.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {OUT.name} ({written.name}): {len(data['iterations'])} iterations; answer: {answer[:60]!r}",
              file=sys.stderr)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
