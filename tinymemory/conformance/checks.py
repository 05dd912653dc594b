"""Every check of the suite, in the order it runs.

The fixed checks each build one exact situation for the rules they cover
(docs/conformance.md has the table of rules and checks) and run first; the
property checks and the state machine then try random items, filters and
sequences of writes (see :mod:`.properties` and :mod:`.state_machine`) as a
second net. They run only when every fixed check has passed, so an engine
that breaks a rule fails fast, on the check that builds it.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from tinymemory._errors import ConfigError

from . import (
    boundary_checks,
    cap_checks,
    contract_checks,
    field_checks,
    grid_checks,
    item_checks,
    paging_checks,
    properties,
    reach_checks,
    state_machine,
)
from .harness import Subject


@attrs.frozen
class Check:
    """One named check: what it asserts, the function that runs it, and whether it is fixed.

    A fixed check makes the same calls on every run; the others draw random
    examples with Hypothesis.
    """

    name: str
    run: Callable[[Subject], None]
    fixed: bool = True

    @property
    def summary(self) -> str:
        """The first line of the check's docstring."""
        return (self.run.__doc__ or "").strip().splitlines()[0]


CHECKS: tuple[Check, ...] = (
    Check("health", item_checks.check_health),
    Check("round_trip", item_checks.check_round_trip),
    Check("text_preserved", boundary_checks.check_text_preserved),
    Check("export", item_checks.check_export),
    Check("replay", item_checks.check_replay),
    Check("explore", item_checks.check_explore),
    Check("get", item_checks.check_get),
    Check("store_many", item_checks.check_store_many),
    Check("store_many_limits", boundary_checks.check_store_many_limits),
    Check("refusals", boundary_checks.check_refusals),
    Check("caps", cap_checks.check_caps),
    Check("paging", paging_checks.check_paging),
    Check("cursors", paging_checks.check_cursors),
    Check("fetch_filters", item_checks.check_fetch_filters),
    Check("filter_bounds", boundary_checks.check_filter_bounds),
    Check("unsupported_modes", item_checks.check_unsupported_modes),
    Check("namespaces", reach_checks.check_namespaces),
    Check("empty_forget", item_checks.check_empty_forget),
    Check("forget_by_id", item_checks.check_forget_by_id),
    Check("forget_by_filter", item_checks.check_forget_by_filter),
    Check("erase", reach_checks.check_erase),
    Check("recall", item_checks.check_recall),
    Check("isolation", reach_checks.check_isolation),
    Check("close", boundary_checks.check_close),
    Check("deep_reach", grid_checks.check_deep_reach),
    Check("erase_levels", grid_checks.check_erase_levels),
    Check("page_sizes", grid_checks.check_page_sizes),
    Check("explore_cuts", grid_checks.check_explore_cuts),
    Check("batch_positions", grid_checks.check_batch_positions),
    Check("long_text", grid_checks.check_long_text),
    Check("single_field", grid_checks.check_single_field),
    Check("hostile_paths", grid_checks.check_hostile_paths),
    Check("time_bounds", grid_checks.check_time_bounds),
    Check("threads", grid_checks.check_threads),
    Check("cursor_reads", contract_checks.check_cursor_reads),
    Check("page_ends", contract_checks.check_page_ends),
    Check("get_once", contract_checks.check_get_once),
    Check("erase_count", contract_checks.check_erase_count),
    Check("replay_keeps_first", contract_checks.check_replay_keeps_first),
    Check("keyword_matches", contract_checks.check_keyword_matches),
    Check("paging_under_writes", contract_checks.check_paging_under_writes),
    Check("piece_hits", contract_checks.check_piece_hits),
    *(
        Check(name, field_checks.field_check(field))
        for name, field in zip(field_checks.field_check_names(), field_checks.FIELDS, strict=True)
    ),
    Check("stored_items_read_back", properties.check_stored_items_read_back, fixed=False),
    Check("filters_admit_exactly", properties.check_filters_admit_exactly, fixed=False),
    Check("matches_reference", state_machine.check_matches_reference, fixed=False),
)

#: The names of every check, in order.
CHECK_NAMES = tuple(check.name for check in CHECKS)
#: The names of the fixed checks, in order.
FIXED_CHECK_NAMES = tuple(check.name for check in CHECKS if check.fixed)


def random_checks_wait(check: Check, failed_fixed: str | None) -> str | None:
    """Why ``check`` does not run: it is random and the fixed check ``failed_fixed`` failed."""
    if check.fixed or failed_fixed is None:
        return None
    return (
        f"the fixed check `{failed_fixed}` failed; the random checks run once every fixed "
        "check passes"
    )


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
