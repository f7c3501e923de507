"""Where a study's cells run: one executor seam, local worker processes or Ray.

Its modules: executor (the choice, a cell, a run's share, the work: the one cell API), dispatch (the one executor
every study runs its cells through),
local_pool (worker processes of this machine beside the calling thread), ray_cluster (Ray tasks, the shared run in
the object store, an actor for an endpoint summarizer).

Streamlit-free. Nothing is imported here: each module is imported where it is used (the first page
does without the heavy ones), so this face names the wing's modules.
"""

__all__ = ['dispatch', 'executor', 'local_pool', 'ray_cluster']
