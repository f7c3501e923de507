"""The public face of the recorder: `from scratchpad_lab.record import TraceRecorder` (engine/run/recorder.py)."""
from scratchpad_lab.engine.run.recorder import TraceRecorder

__all__ = ["TraceRecorder"]
