"""Running the packages: the real autourgos agent with its middleware, observed and recorded.

Its modules: runner (a run as a job), observe (what the agent and its middleware did, as events), recorder (a trace of a live agent), replay (a recorded trajectory fed back), standins (the scripted and replayed models), forking (What if...), review (a person's verdict on a summary), reply (the agent's reply format), tokens (the one token counter: o200k), lesson_runs (the lessons' runs and checks).

Streamlit-free. Nothing is imported here: each module is imported where it is used (the first page
does without the heavy ones), so this face names the wing's modules.
"""

__all__ = ['forking', 'lesson_runs', 'observe', 'recorder', 'replay', 'reply', 'review', 'runner', 'standins', 'tokens']
