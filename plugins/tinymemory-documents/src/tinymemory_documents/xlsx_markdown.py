"""XLSX: one section per sheet, a markdown table of its used range, with openpyxl.

The workbook is streamed (``read_only``) with the cached values of formulas
(``data_only``): a formula shows what the office suite last computed. Dates
are ISO dates (``2024-01-31``, with ``T10:30:00`` when there is a time),
whole numbers carry no ``.0``, empty cells stay empty. The used range is the
rows and columns between the first and last non-empty cell; its first row is
the table's header.

The cell limit is checked twice: against the range each sheet declares,
before a row is read, and against the cells actually streamed (a sheet can
declare less than it holds, and all it holds is read).
"""

from __future__ import annotations

import datetime
import io
import warnings
from collections.abc import Iterable
from typing import Any

from tinymemory import InvalidRequest
from tinymemory_documents.limits import Deadline, Limits
from tinymemory_documents.markdown_text import markdown_table, table_cell

#: Rows read between deadline checks.
_ROWS_PER_CHECK = 1_000


def xlsx_markdown(data: bytes, limits: Limits, deadline: Deadline) -> tuple[str, str | None]:
    """The markdown of every sheet and the workbook's own title."""
    import openpyxl

    with warnings.catch_warnings():
        # openpyxl warns about styles and extensions it ignores: nothing a reader needs.
        warnings.simplefilter("ignore")
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            sheets = [sheet for sheet in workbook.worksheets if hasattr(sheet, "iter_rows")]
            declared = sum(_declared_cells(sheet) for sheet in sheets)
            if declared > limits.max_cells:
                raise InvalidRequest(
                    f"{deadline.shown} declares {declared:,} cells, over the limit of "
                    f"{limits.max_cells:,}"
                )
            budget = [limits.max_cells]
            sections = []
            for sheet in sheets:
                # Read what the sheet holds, not what it declares: a read-only
                # sheet otherwise stops at its declared range, dropping the rest.
                sheet.reset_dimensions()
                rows = _used_range(_rows(sheet, budget, deadline))
                table = markdown_table(rows)
                sections.append(f"## {sheet.title}\n\n{table}" if table else f"## {sheet.title}")
            title = workbook.properties.title
        finally:
            workbook.close()
    return "\n\n".join(sections), title or None


def _declared_cells(sheet: Any) -> int:
    rows, columns = sheet.max_row, sheet.max_column
    if not isinstance(rows, int) or not isinstance(columns, int):
        return 0  # no dimension declared: only the cells read count
    return max(rows - (sheet.min_row or 1) + 1, 0) * max(columns - (sheet.min_column or 1) + 1, 0)


def _rows(sheet: Any, budget: list[int], deadline: Deadline) -> Iterable[list[str]]:
    for index, values in enumerate(sheet.iter_rows(values_only=True)):
        budget[0] -= len(values)
        if budget[0] < 0:
            raise InvalidRequest(f"{deadline.shown} holds more cells than the limit allows")
        if index % _ROWS_PER_CHECK == 0:
            deadline.check()
        yield [_cell_text(value) for value in values]


def _used_range(rows: Iterable[list[str]]) -> list[list[str]]:
    """The rows and columns from the first to the last non-empty cell."""
    kept = list(rows)
    filled = [index for index, row in enumerate(kept) if any(row)]
    if not filled:
        return []
    kept = kept[filled[0] : filled[-1] + 1]
    first = min(next(i for i, cell in enumerate(row) if cell) for row in kept if any(row))
    last = max(max(i for i, cell in enumerate(row) if cell) for row in kept if any(row))
    return [row[first : last + 1] for row in kept]


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, datetime.datetime):
        if value.time() == datetime.time(0):
            return value.date().isoformat()
        return value.isoformat()
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    return table_cell(str(value))
