"""What a page's form or link asks for, read from its fields into the contract's requests.

Every field is optional text; a bad one (an unknown kind, a date that is no
ISO date, a malformed node) is an :class:`~tinymemory.InvalidRequest` naming
the field, raised before the engine is asked anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta

import attrs

import tinymemory as tm
from tinymemory.commands import reach_from

#: The search form's fields that narrow what is read (``tag`` and ``kind`` comma-separated).
FILTER_FIELDS = ("kind", "workspace", "folder", "tag", "since", "until", "at", "reach")
#: The ``reach`` values, as ``--reach`` names them.
REACH_KINDS = ("exact", "of", "subtree")


@attrs.frozen
class SearchForm:
    """The search page's fields as given (blank fields as empty strings)."""

    q: str = ""
    mode: str = ""
    fields: Mapping[str, str] = attrs.field(factory=dict)

    @classmethod
    def read(cls, values: Mapping[str, str]) -> SearchForm:
        """The fields of a query string or form (``values.get``), trimmed."""
        fields = {name: (values.get(name) or "").strip() for name in FILTER_FIELDS}
        return cls(
            q=(values.get("q") or "").strip(),
            mode=(values.get("mode") or "").strip(),
            fields=fields,
        )

    def filtered(self) -> bool:
        """Whether any filter field is set."""
        return any(self.fields.values())

    def params(self) -> dict[str, str]:
        """The non-blank fields, for a link that keeps them (the next page, a preview)."""
        given = {"q": self.q, "mode": self.mode, **self.fields}
        return {name: value for name, value in given.items() if value}

    def filter(self, default_reach: tm.Reach | None = None) -> tm.MetaFilter:
        """The filter the fields name; ``default_reach`` when they name no node."""
        fields = self.fields
        return tm.MetaFilter(
            reach=self._reach() or default_reach,
            kinds=_kinds(fields["kind"]),
            workspace=fields["workspace"] or None,
            folder=fields["folder"] or None,
            tags_any=_list(fields["tag"]),
            observed_after=_moment("since", fields["since"], end_of_day=False),
            observed_before=_moment("until", fields["until"], end_of_day=True),
        )

    def _reach(self) -> tm.Reach | None:
        at, reach = self.fields["at"], self.fields["reach"]
        if reach and reach not in REACH_KINDS:
            raise tm.InvalidRequest(
                f"reach must be one of {', '.join(REACH_KINDS)}, not `{shown(reach)}`"
            )
        return reach_from(tm.Namespace.parse(at) if at else None, reach or None)


def shown(text: str) -> str:
    """A refused field as an error page shows it: at most 80 characters of it."""
    return text if len(text) <= 80 else f"{text[:80]}…"


def _list(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _kinds(text: str) -> tuple[tm.ItemKind, ...]:
    known = [kind.value for kind in tm.ItemKind]
    wrong = next((kind for kind in _list(text) if kind not in known), None)
    if wrong is not None:
        raise tm.InvalidRequest(f"kind must be among {', '.join(known)}, not `{shown(wrong)}`")
    return tuple(tm.ItemKind(kind) for kind in _list(text))


def _moment(field: str, text: str, *, end_of_day: bool) -> datetime | None:
    """An ISO date or datetime (UTC when it names no zone); a bare date as ``until`` takes in
    that whole day."""
    if not text:
        return None
    try:
        if len(text) == len("2026-12-04"):
            day = date.fromisoformat(text)
            start = datetime(day.year, day.month, day.day, tzinfo=UTC)
            return start + timedelta(days=1) if end_of_day else start
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise tm.InvalidRequest(
            f"{field} must be an ISO date or datetime (2026-12-04, 2026-12-04T09:30), "
            f"not `{shown(text)}`"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
