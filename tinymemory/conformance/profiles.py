"""How hard the suite pushes: the Hypothesis budgets of each named profile.

The fixed checks of the suite run the same calls under every profile; a
profile sets only how many random examples the property checks and the
state machine try, and how long each state machine run is.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import attrs

from tinymemory._errors import ConfigError

#: The environment variable naming the profile when no option does.
PROFILE_VARIABLE = "TINYMEMORY_CONFORMANCE_PROFILE"
#: Where Hypothesis keeps its files (Hypothesis' own variable).
HYPOTHESIS_STORAGE_VARIABLE = "HYPOTHESIS_STORAGE_DIRECTORY"
#: The most seconds Hypothesis may spend shrinking one failing example.
SHRINK_SECONDS = 20


@attrs.frozen
class Profile:
    """A named budget of random examples."""

    name: str
    #: Examples of each property check (round trip, filtering).
    property_examples: int
    #: State machine runs, each a random sequence of writes against the reference.
    machine_runs: int
    #: The most steps (writes and reads) in one state machine run.
    machine_steps: int


PROFILES = {
    profile.name: profile
    for profile in (
        Profile("default", property_examples=100, machine_runs=60, machine_steps=30),
        Profile("ci", property_examples=25, machine_runs=20, machine_steps=20),
        Profile("thorough", property_examples=500, machine_runs=500, machine_steps=50),
        # For mutation testing, which runs the suite once per mutant: the fixed checks
        # (the same under every profile) and a few random examples.
        Profile("mutation", property_examples=3, machine_runs=3, machine_steps=12),
    )
}


def profile_named(name: str | None = None) -> Profile:
    """The profile ``name``, else the one ``TINYMEMORY_CONFORMANCE_PROFILE`` names, else default."""
    chosen = name or os.environ.get(PROFILE_VARIABLE) or "default"
    profile = PROFILES.get(chosen)
    if profile is None:
        raise ConfigError(
            f"unknown conformance profile `{chosen}`; expected one of {', '.join(PROFILES)}"
        )
    return profile


def keep_hypothesis_files_out_of_the_working_folder() -> None:
    """Point Hypothesis' files (its caches) at the temporary folder, unless the user chose a place.

    Hypothesis otherwise writes ``.hypothesis/`` into the folder the suite
    runs from. Hypothesis reads the variable when it first writes a file.
    """
    where = Path(tempfile.gettempdir()) / "tinymemory-conformance-hypothesis"
    os.environ.setdefault(HYPOTHESIS_STORAGE_VARIABLE, str(where))
