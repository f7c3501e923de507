"""Where a study's cells run: one executor seam, local worker processes or Ray.

Its modules: executor (the seam and the local pool), ray_cluster (Ray tasks, the shared run in the object store, an actor for an endpoint summarizer).

Streamlit-free. Nothing is imported here: each module is imported where it is used (the first page
does without the heavy ones), so this face names the wing's modules.
"""

__all__ = ['executor', 'ray_cluster']
