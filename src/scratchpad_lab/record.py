"""The public face of the recorder: `from scratchpad_lab.record import TraceRecorder` (engine/recorder.py)."""
from scratchpad_lab.engine.recorder import TraceRecorder

__all__ = ["TraceRecorder"]
