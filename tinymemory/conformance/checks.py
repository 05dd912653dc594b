"""Every check of the suite, in the order it runs.

The fixed checks follow the contract's conformance list one by one; the
property checks and the state machine then try random items, filters and
sequences of writes (see :mod:`.properties` and :mod:`.state_machine`).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from tinymemory._errors import ConfigError

from . import item_checks, properties, reach_checks, state_machine
from .harness import Subject


@attrs.frozen
class Check:
    """One named check: what it asserts, and the function that runs it."""

    name: str
    run: Callable[[Subject], None]

    @property
    def summary(self) -> str:
        """The first line of the check's docstring."""
        return (self.run.__doc__ or "").strip().splitlines()[0]


CHECKS: tuple[Check, ...] = (
    Check("health", item_checks.check_health),
    Check("round_trip", item_checks.check_round_trip),
    Check("export", item_checks.check_export),
    Check("replay", item_checks.check_replay),
    Check("explore", item_checks.check_explore),
    Check("get", item_checks.check_get),
    Check("store_many", item_checks.check_store_many),
    Check("fetch_filters", item_checks.check_fetch_filters),
    Check("unsupported_modes", item_checks.check_unsupported_modes),
    Check("namespaces", reach_checks.check_namespaces),
    Check("empty_forget", item_checks.check_empty_forget),
    Check("forget_by_id", item_checks.check_forget_by_id),
    Check("forget_by_filter", item_checks.check_forget_by_filter),
    Check("erase", reach_checks.check_erase),
    Check("recall", item_checks.check_recall),
    Check("isolation", reach_checks.check_isolation),
    Check("stored_items_read_back", properties.check_stored_items_read_back),
    Check("filters_admit_exactly", properties.check_filters_admit_exactly),
    Check("matches_reference", state_machine.check_matches_reference),
)

#: The names of every check, in order.
CHECK_NAMES = tuple(check.name for check in CHECKS)


def checks_named(names: list[str] | tuple[str, ...] | None = None) -> tuple[Check, ...]:
    """The checks named (all when ``None``), in suite order; an unknown name is a ConfigError."""
    if names is None:
        return CHECKS
    unknown = sorted(set(names) - set(CHECK_NAMES))
    if unknown:
        expected = ", ".join(CHECK_NAMES)
        raise ConfigError(
            f"unknown conformance check {', '.join(unknown)}; expected one of {expected}"
        )
    return tuple(check for check in CHECKS if check.name in names)
