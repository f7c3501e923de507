"""The sidebar's presets, read from `data/presets.toml`: a name, a description, and the settings each fills in.

Streamlit-free. The file is content, not code: a preset is one `[[presets]]` table, checked by the schema
below with an error naming the file and the field. A setting a preset leaves out keeps RunConfig's
default (the package's own), and the label shown in the sidebar is made from the name and the two
triggers, so it cannot disagree with what the preset sets.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Dict, List, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from scratchpad_lab.model.config import RunConfig, field_bounds, setting_value
from scratchpad_lab.model.datafile import DataFileError, check, read_toml, run_setting

PRESETS_FILE = Path(__file__).resolve().parent.parent / "data" / "presets.toml"
PRESET_SETTINGS = ("summarize_every", "max_scratchpad_chars", "extractive_budget_chars")
MAX_LABEL_CHARS = 24  # read whole in the sidebar's select box

Line = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=400)]
Setting = Union[int, str]


class _PresetEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_LABEL_CHARS)]
    description: Line
    summarize_every: Optional[Setting] = None
    max_scratchpad_chars: Optional[Setting] = None
    extractive_budget_chars: Optional[Setting] = None
    pins: Optional[List[str]] = None  # text that must survive compression (model/pins.py's limits)


class _PresetsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    presets: List[_PresetEntry] = Field(min_length=1)


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    settings: Dict[str, Any]  # every field of PRESET_SETTINGS, as RunConfig holds it (None: periodic trigger off)
    pins: tuple = ()          # its pins: put in the pins box when it is chosen (a preset without leaves them)

    @property
    def label(self) -> str:
        """"Tight (2 / 2,000)": every N / cap chars, or "(no compression)" when both triggers are off."""
        every, cap = self.settings["summarize_every"], self.settings["max_scratchpad_chars"]
        if every is None and cap >= field_bounds("max_scratchpad_chars")[1]:
            return f"{self.name} (no compression)"
        return f"{self.name} ({'off' if every is None else every} / {cap:,})"


def load_presets(path: Union[str, Path] = PRESETS_FILE) -> Dict[str, Preset]:
    """The presets by label, in the file's order; DataFileError names the file and the field of a bad one."""
    raw = check(_PresetsFile, read_toml(path), path)
    defaults = RunConfig()
    out: Dict[str, Preset] = {}
    for number, entry in enumerate(raw.presets, 1):
        where = f"presets[{number}]"
        settings = {name: setting_value(defaults, name) for name in PRESET_SETTINGS}
        for name in PRESET_SETTINGS:
            value = getattr(entry, name)
            if value is not None:
                settings[name] = run_setting(path, f"{where}.{name}", name, value)
        pins = tuple(run_setting(path, f"{where}.pins", "pins", entry.pins)) if entry.pins is not None else ()
        preset = Preset(entry.name, entry.description, settings, pins)
        if len(preset.label) > MAX_LABEL_CHARS:
            raise DataFileError(path, f"{where}.name", f"the label {preset.label!r} is longer than "
                                f"{MAX_LABEL_CHARS} characters, too long for the sidebar; shorten the name.")
        if preset.label in out:
            raise DataFileError(path, f"{where}.name", f"another preset has the label {preset.label!r}; "
                                "give this one another name.")
        out[preset.label] = preset
    return out


@lru_cache(maxsize=1)
def presets() -> Dict[str, Preset]:
    """The shipped presets (read once: they are part of the package)."""
    return load_presets()
