"""Results as a person reads them: where an item came from, short ids, and notebook views.

The command line and Jupyter show the same things the same way: an item's
source (its file, link or title), its id's first digits, and for notebooks
the markdown and HTML that the results' ``_repr_markdown_`` and
``_repr_html_`` return (an answer with its citations, a page of hits, or one
hit, as a table, an explore as a bar list, a sync's counts and skips, a
store's receipt, and a compiled context.md as the markdown it is). ``records``
and :func:`to_pandas` hand a page to pandas, when it is installed.
"""

from __future__ import annotations

import html
import importlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from tinymemory._errors import Unsupported

if TYPE_CHECKING:
    from tinymemory._context import ContextDoc
    from tinymemory._ingest import SyncReport
    from tinymemory._items import StoreReceipt
    from tinymemory._operations import ExplorePage, Hit, RecallAnswer

#: How many hex digits of an id a table shows.
SHORT = 8
#: How many hex digits a whole id has.
WHOLE = 40
#: The widest a bar of an explore's bar list is drawn, in blocks.
BAR_WIDTH = 30
#: How much of an item's text a notebook table cell shows.
CELL_WIDTH = 100


def short_ids(ids: Iterable[str]) -> dict[str, str]:
    """Each id by the shortest prefix, from :data:`SHORT` digits, that no other id here shares."""
    unique = list(dict.fromkeys(ids))
    width = SHORT
    while len({item_id[:width] for item_id in unique}) < len(unique) and width < WHOLE:
        width += 1
    return {item_id: item_id[:width] for item_id in unique}


def hit_source(hit: Hit) -> str | None:
    """Where a hit came from: its file, its link, else a document's title; None when unknown."""
    if hit.meta.file_path is not None:
        return hit.meta.file_path
    if hit.meta.url:
        return hit.meta.url
    heading = hit.text.split("\n", 1)[0]
    if hit.kind.value == "document" and heading.startswith("# "):
        return heading[2:].strip() or None
    return None


def first_text_line(text: str) -> str:
    """The first line of ``text`` that is no markdown heading (else its first line), trimmed."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    body = [line for line in lines if not line.startswith("#")]
    return (body or lines or [""])[0]


def _clip(text: str, width: int = CELL_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _cell(text: str) -> str:
    """Text for a markdown line or table cell: one line, pipes and HTML escaped."""
    return html.escape(" ".join(text.split()), quote=False).replace("|", "\\|")


# --- records and pandas ----------------------------------------------------------------


def records(hits: Sequence[Hit]) -> list[dict[str, Any]]:
    """One flat dict per hit: id, kind, score, confidence, source, namespace, text, meta fields."""
    rows = []
    for hit in hits:
        row: dict[str, Any] = {
            "id": hit.id,
            "kind": hit.kind.value,
            "score": hit.score,
            "confidence": hit.confidence,
            "source": hit_source(hit),
            "namespace": str(hit.meta.namespace),
            "workspace": hit.meta.workspace,
            "tags": list(hit.meta.tags),
            "file_path": hit.meta.file_path,
            "url": hit.meta.url,
            "observed_at": hit.meta.observed_at,
            "text": hit.text,
        }
        rows.append(row)
    return rows


def to_pandas(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> Any:
    """A ``pandas.DataFrame`` of ``rows``; ``Unsupported`` saying how to get pandas when absent."""
    try:
        pandas = importlib.import_module("pandas")
    except ImportError:
        raise Unsupported(
            "to_pandas() needs pandas, which is not installed: pip install pandas"
        ) from None
    return pandas.DataFrame(list(rows), columns=list(columns))


#: The columns of a page's data frame.
HIT_COLUMNS = ("id", "kind", "score", "confidence", "source", "namespace", "workspace", "tags",
               "file_path", "url", "observed_at", "text")  # fmt: skip


# --- markdown and HTML -------------------------------------------------------------------


def answer_markdown(answer: RecallAnswer) -> str:
    """The answer, then its citations as a numbered list: source, kind and the passage."""
    lines = [html.escape(answer.answer, quote=False) or "*(no answer)*"]
    if answer.citations:
        ids = short_ids(citation.id for citation in answer.citations)
        lines.append("")
        for number, citation in enumerate(answer.citations, start=1):
            source = citation.meta.file_path or citation.meta.url or f"`{ids[citation.id]}`"
            snippet = _cell(_clip(first_text_line(citation.snippet)))
            lines.append(f"{number}. **{_cell(source)}** ({citation.kind.value}): {snippet}")
    return "\n".join(lines)


def answer_html(answer: RecallAnswer) -> str:
    """The answer as a paragraph, then its citations as an ordered list."""
    text = html.escape(answer.answer).replace("\n", "<br>")
    parts = [f"<p>{text or '<em>(no answer)</em>'}</p>"]
    if answer.citations:
        ids = short_ids(citation.id for citation in answer.citations)
        items = []
        for citation in answer.citations:
            source = citation.meta.file_path or citation.meta.url or ids[citation.id]
            snippet = _clip(first_text_line(citation.snippet))
            items.append(
                f'<li title="{html.escape(citation.id)}"><strong>{html.escape(source)}</strong> '
                f"({citation.kind.value}): {html.escape(snippet)}</li>"
            )
        parts.append(f"<ol>{''.join(items)}</ol>")
    return "".join(parts)


def _hit_columns(hits: Sequence[Hit], scored: bool) -> tuple[list[str], list[list[str]]]:
    ids = short_ids(hit.id for hit in hits)
    headers = [*(["score"] if scored else []), "id", "kind", "source", "text"]
    rows = [
        [
            *([f"{hit.score:.3f}"] if scored else []),
            ids[hit.id],
            hit.kind.value,
            hit_source(hit) or "",
            _clip(first_text_line(hit.text)),
        ]
        for hit in hits
    ]
    return headers, rows


def hits_markdown(hits: Sequence[Hit], next_cursor: str | None, *, scored: bool) -> str:
    """A page of hits as a markdown table, and the next cursor when there is one."""
    if not hits:
        return "*no hits*" if scored else "*no items*"
    headers, rows = _hit_columns(hits, scored)
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + " --- |" * len(headers),
        *("| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows),
    ]
    if next_cursor is not None:
        lines += ["", f"next cursor: `{next_cursor}`"]
    return "\n".join(lines)


def hits_html(hits: Sequence[Hit], next_cursor: str | None, *, scored: bool) -> str:
    """A page of hits as an HTML table, each row's full id as its tooltip."""
    if not hits:
        return f"<p><em>{'no hits' if scored else 'no items'}</em></p>"
    headers, rows = _hit_columns(hits, scored)
    head = "".join(f"<th>{header}</th>" for header in headers)
    body = "".join(
        f'<tr title="{html.escape(hit.id)}">'
        + "".join(f"<td>{html.escape(cell)}</td>" for cell in row)
        + "</tr>"
        for hit, row in zip(hits, rows, strict=True)
    )
    more = f"<p>next cursor: <code>{html.escape(next_cursor)}</code></p>" if next_cursor else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


def _bars(page: ExplorePage) -> list[tuple[str, int, int]]:
    """(value, count, bar length) per bucket, the largest bucket :data:`BAR_WIDTH` long."""
    top = max((bucket.count for bucket in page.buckets), default=0)
    return [
        (bucket.value, bucket.count, round(BAR_WIDTH * bucket.count / top) if top else 0)
        for bucket in page.buckets
    ]


def _explore_notes(page: ExplorePage) -> list[str]:
    notes = [f"total {page.total}, missing {page.missing}"]
    if page.more_buckets:
        notes.append(f"{page.more_buckets} more values")
    if page.truncated:
        notes.append("the scan stopped early: counts are a lower bound")
    return notes


def explore_markdown(page: ExplorePage) -> str:
    """The buckets as a bar list (one line each: value, a bar of blocks, count), then totals."""
    lines = [f"**{page.facet.value}**", ""]
    width = max((len(value) for value, _, _ in _bars(page)), default=0)
    lines += [f"    {value:<{width}}  {'█' * bar} {count}" for value, count, bar in _bars(page)]
    return "\n".join([*lines, "", "; ".join(_explore_notes(page))])


def explore_html(page: ExplorePage) -> str:
    """The buckets as a bar list: each value beside a bar as long as its share of the largest."""
    rows = "".join(
        f"<tr><td>{html.escape(value)}</td>"
        f'<td><div style="background:#4c78a8;height:0.9em;width:{bar * 10}px"></div></td>'
        f"<td>{count}</td></tr>"
        for value, count, bar in _bars(page)
    )
    notes = html.escape("; ".join(_explore_notes(page)))
    return (
        f"<p><strong>{html.escape(page.facet.value)}</strong></p>"
        f"<table>{rows}</table><p>{notes}</p>"
    )


def sync_markdown(report: SyncReport) -> str:
    """The counts, then each skip and its reason."""
    lines = [
        f"**{report.stored} stored, {report.replayed} replayed, {len(report.skipped)} skipped** "
        f"({report.batches} batches)"
    ]
    lines += [f"- skipped {_cell(skip.reason)}" for skip in report.skipped]
    return "\n".join(lines)


def sync_html(report: SyncReport) -> str:
    """The counts, then each skip and its reason as a list."""
    head = (
        f"<p><strong>{report.stored} stored, {report.replayed} replayed, "
        f"{len(report.skipped)} skipped</strong> ({report.batches} batches)</p>"
    )
    skips = "".join(f"<li>{html.escape(skip.reason)}</li>" for skip in report.skipped)
    return head + (f"<ul>{skips}</ul>" if skips else "")


def receipt_markdown(receipt: StoreReceipt) -> str:
    """What became of a store: ``stored`` or ``replayed`` (already held), and the short id."""
    said = "replayed (already held)" if receipt.replayed else "stored"
    return f"**{said}** `{receipt.id[:SHORT]}`"


def receipt_html(receipt: StoreReceipt) -> str:
    """The same, the whole id as its tooltip."""
    said = "replayed (already held)" if receipt.replayed else "stored"
    full, short = html.escape(receipt.id), html.escape(receipt.id[:SHORT])
    return f'<p><strong>{said}</strong> <code title="{full}">{short}</code></p>'


def context_markdown(doc: ContextDoc) -> str:
    """The compiled markdown as it reads, then a line saying its size, engine and time."""
    body = doc.markdown or "*(nothing to say: the memory holds nothing for this context)*"
    when = doc.generated_at.strftime("%Y-%m-%d %H:%M UTC")
    cites = f", {len(doc.refs)} sources" if doc.refs else ""
    return f"{body}\n\n---\n*{doc.tokens} tokens from `{doc.engine}` at {when}{cites}*"
