"""The memory tools' names, descriptions and JSON Schemas, as a model is shown them.

:func:`tool_specs` builds the :class:`ToolSpec` list for an engine's fetch
modes; ``tests/fixtures/tool_contracts.json`` freezes it for the reference
engine, so a schema changes only on purpose. Every object schema sets
``additionalProperties: false`` and lists ``required`` only when something
is. No schema offers ``namespace`` or ``reach``: the host fixes those.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from tinymemory._f32 import display_f32, to_f32
from tinymemory._items import LearningKind, Role
from tinymemory._meta import ItemKind, SourceKind
from tinymemory._operations import MAX_GET_IDS, Facet, FetchMode
from tinymemory._validators import required_str

MEMORY_RECALL = "memory_recall"
MEMORY_FETCH = "memory_fetch"
MEMORY_LIST = "memory_list"
MEMORY_GET = "memory_get"
MEMORY_EXPLORE = "memory_explore"
MEMORY_STORE = "memory_store"
MEMORY_FORGET = "memory_forget"

#: The tools that only read, in the order they are offered.
READ_TOOLS = (MEMORY_RECALL, MEMORY_FETCH, MEMORY_LIST, MEMORY_GET, MEMORY_EXPLORE)
#: The tools that change memory, offered only when writes are on.
WRITE_TOOLS = (MEMORY_STORE, MEMORY_FORGET)
#: Every tool name, reads first.
TOOL_NAMES = READ_TOOLS + WRITE_TOOLS

#: A tool's ``limit`` when the model sends none, and the most it may ask for.
DEFAULT_TOOL_LIMIT = 10
MAX_TOOL_LIMIT = 50
#: A learning's kind and confidence when the model leaves them out.
DEFAULT_LEARNING_KIND = LearningKind.FACT
#: The original's name for a learning's kind in ``memory_store``, still read.
LEARNING_KIND_ALIAS = "learning_kind"
DEFAULT_CONFIDENCE = to_f32(0.8)

#: The facets ``memory_explore`` offers: all but ``namespace``, which is the host's.
EXPLORE_FACETS = tuple(facet for facet in Facet if facet is not Facet.NAMESPACE)
#: The fields of the filter a model may set, in the order the schema lists them.
FILTER_FIELDS = (
    "kinds",
    "sources",
    "tags_any",
    "workspace",
    "folder",
    "file_path",
    "repo",
    "url",
    "thread_id",
    "agent_id",
    "observed_after",
    "observed_before",
)


@attrs.frozen(kw_only=True)
class ToolSpec:
    """One tool as a model is shown it: a name, a description and a JSON Schema.

    ``parameters`` is a fresh dict for every spec built, so changing one
    changes nothing else (and, holding a dict, a spec is not hashable).
    """

    name: str = attrs.field(validator=required_str)
    description: str = attrs.field(validator=required_str)
    parameters: dict[str, Any]

    def as_data(self) -> dict[str, Any]:
        """``{name, description, parameters}``, the tool's plain JSON form."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def as_openai(self) -> dict[str, Any]:
        """The OpenAI-style function tool: ``{"type": "function", "function": {...}}``."""
        return {"type": "function", "function": self.as_data()}

    def as_anthropic(self) -> dict[str, Any]:
        """The Anthropic-style tool: ``{name, description, input_schema}``."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.parameters,
        }


def openai_tools(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """``specs`` as an OpenAI-style ``tools`` list (chat completions and compatible APIs)."""
    return [spec.as_openai() for spec in specs]


def anthropic_tools(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """``specs`` as an Anthropic-style ``tools`` list (the Messages API)."""
    return [spec.as_anthropic() for spec in specs]


def default_mode(modes: Iterable[FetchMode]) -> FetchMode | None:
    """``memory_fetch``'s default mode: hybrid when served, else the first; none without modes."""
    served = tuple(modes)
    if FetchMode.HYBRID in served:
        return FetchMode.HYBRID
    return served[0] if served else None


def tool_specs(fetch_modes: Iterable[FetchMode], *, writes: bool) -> tuple[ToolSpec, ...]:
    """The tools offered over an engine serving ``fetch_modes``, reads first.

    ``memory_fetch`` is left out when no mode is served; its ``mode`` enum
    lists exactly the modes given, in their order. The write tools come only
    with ``writes``.
    """
    modes = tuple(fetch_modes)
    specs = [_recall()]
    default = default_mode(modes)
    if default is not None:
        specs.append(_fetch(modes, default))
    specs += [_list(), _get(), _explore()]
    if writes:
        specs += [_store(), _forget()]
    return tuple(specs)


# --- schema pieces -------------------------------------------------------------


def _object(properties: dict[str, Any], *required: str, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", **extra, "properties": properties}
    if required:
        schema["required"] = list(required)
    schema["additionalProperties"] = False
    return schema


def _string(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _strings(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "array", "description": description, "items": {"type": "string"}, **extra}


def _choices(values: Iterable[str]) -> dict[str, Any]:
    return {"type": "string", "enum": list(values)}


def _filter(description: str) -> dict[str, Any]:
    # SourceKind: the members this SDK defines (the spec's eight, without the
    # older `composio`). The frozen Rust fixtures list nine; no fixture made
    # from the spec's enum was seen, so the eight here are a deliberate choice.
    properties = {
        "kinds": {
            "type": "array",
            "description": "Only memories of these kinds; empty or absent means every kind.",
            "items": _choices(kind.value for kind in ItemKind),
        },
        "sources": {
            "type": "array",
            "description": "Only memories from these kinds of source; empty or absent means all.",
            "items": _choices(kind.value for kind in SourceKind),
        },
        "tags_any": _strings("Only memories carrying at least one of these tags."),
        "workspace": _string("Only memories of this workspace (exact)."),
        "folder": _string("Only memories from this folder or below it."),
        "file_path": _string("Only memories from this file path, or below it as a prefix."),
        "repo": _string("Only memories of this repository (exact, `owner/name` or a URL)."),
        "url": _string("Only memories read from this URL (exact)."),
        "thread_id": _string("Only memories of this conversation thread (exact id)."),
        "agent_id": _string("Only memories produced by this agent (exact id)."),
        "observed_after": _string(
            "Only memories observed at or after this RFC 3339 time.", format="date-time"
        ),
        "observed_before": _string(
            "Only memories observed before this RFC 3339 time.", format="date-time"
        ),
    }
    return _object(properties, description=description)


_READ_FILTER = "Narrows which memories count; every field you set must match."


def _limit(description: str) -> dict[str, Any]:
    return {
        "type": "integer",
        "description": description,
        "minimum": 1,
        "maximum": MAX_TOOL_LIMIT,
        "default": DEFAULT_TOOL_LIMIT,
    }


def _cursor() -> dict[str, Any]:
    return _string("The `next_cursor` of an earlier result, to read the page after it.")


def _ids(description: str) -> dict[str, Any]:
    return _strings(description, minItems=1, maxItems=MAX_GET_IDS)


# --- the seven tools -------------------------------------------------------------


def _recall() -> ToolSpec:
    return ToolSpec(
        name=MEMORY_RECALL,
        description=(
            "Answer a question from long-term memory: returns an answer and the memories it "
            "cites. Reach for this first whenever you need to know what is remembered."
        ),
        parameters=_object(
            {
                "question": _string("The question, in plain language."),
                "filter": _filter(_READ_FILTER),
                "limit": _limit("The most memories the answer may cite."),
                "instructions": _string("Optional guidance on the answer's length, form or focus."),
            },
            "question",
        ),
    )


def _fetch(modes: tuple[FetchMode, ...], default: FetchMode) -> ToolSpec:
    return ToolSpec(
        name=MEMORY_FETCH,
        description=(
            "Search long-term memory and return the matching memories themselves, best first, "
            "when you need the stored text rather than an answer. Pass `cursor` from a result "
            "to read the next page."
        ),
        parameters=_object(
            {
                "query": _string("What to search for."),
                "mode": {
                    **_choices(mode.value for mode in modes),
                    "description": (
                        "How to rank: `keyword` (matching words), `vector` (similar meaning) or "
                        "`hybrid` (both); only the modes listed are available."
                    ),
                    "default": default.value,
                },
                "filter": _filter(_READ_FILTER),
                "limit": _limit("The most memories to return."),
                "cursor": _cursor(),
            },
            "query",
        ),
    )


def _list() -> ToolSpec:
    return ToolSpec(
        name=MEMORY_LIST,
        description=(
            "Page through stored memories without a query, optionally narrowed by a filter. "
            "Pass `cursor` from a result to read the next page."
        ),
        parameters=_object(
            {
                "filter": _filter(_READ_FILTER),
                "limit": _limit("The most memories to return."),
                "cursor": _cursor(),
            }
        ),
    )


def _get() -> ToolSpec:
    return ToolSpec(
        name=MEMORY_GET,
        description=(
            "Read memories whole by id (ids come from recall citations and from fetch and list "
            "results). Ids naming nothing you can see come back under `missing`."
        ),
        parameters=_object({"ids": _ids("The ids of the memories to read.")}, "ids"),
    )


def _explore() -> ToolSpec:
    return ToolSpec(
        name=MEMORY_EXPLORE,
        description=(
            "Count stored memories per value of one facet (kind, source, folder, thread, tag "
            "and so on), largest first, to see what memory holds before narrowing a filter."
        ),
        parameters=_object(
            {
                "facet": {
                    **_choices(facet.value for facet in EXPLORE_FACETS),
                    "description": "The dimension to group memories by.",
                },
                "filter": _filter(_READ_FILTER),
                "limit": _limit("Most values to return."),
            },
            "facet",
        ),
    )


def _store() -> ToolSpec:
    learning = _object(
        {
            "text": _string("The statement itself, specific and understandable on its own."),
            # `kind`, as Python's Learning.kind and the CLI's --kind name it (the original's
            # `learning_kind` is still read: LEARNING_KIND_ALIAS).
            "kind": {
                **_choices(kind.value for kind in LearningKind),
                "description": "What kind of statement it is.",
                "default": DEFAULT_LEARNING_KIND.value,
            },
            "confidence": {
                "type": "number",
                "description": "How sure you are of it, from 0 to 1.",
                "minimum": 0.0,
                "maximum": 1.0,
                # As written (0.8), not the f32 widened to a double (0.800000011920929):
                # a reader sees the number a person would type.
                "default": float(display_f32(DEFAULT_CONFIDENCE)),
            },
            "evidence": _string("What the statement rests on."),
        },
        "text",
        description="A distilled statement worth keeping.",
    )
    document = _object(
        {
            "text": _string("The body of the document, usually markdown."),
            "title": _string("The document's title."),
        },
        "text",
        description="A text to keep whole.",
    )
    turn = _object(
        {
            "role": {**_choices(role.value for role in Role), "description": "Who spoke."},
            "text": _string("What they said."),
        },
        "role",
        "text",
    )
    conversation = _object(
        {
            "turns": {
                "type": "array",
                "description": "The turns, in the order they happened.",
                "items": turn,
                "minItems": 1,
            }
        },
        "turns",
        description="An exchange worth keeping.",
    )
    return ToolSpec(
        name=MEMORY_STORE,
        description=(
            "Store one memory: exactly one of `learning` (a distilled statement such as a "
            "preference, fact, procedure or correction), `document` (a text, optionally titled) "
            "or `conversation` (turns in order). Storing the same memory again does no harm."
        ),
        parameters=_object(
            {
                "learning": learning,
                "document": document,
                "conversation": conversation,
                "tags": _strings("Free-form tags to file the memory under."),
            }
        ),
    )


def _forget() -> ToolSpec:
    return ToolSpec(
        name=MEMORY_FORGET,
        description=(
            "Remove memories, by `ids` or by a `filter` that sets at least one field (never "
            "both). Ids naming nothing you can see are skipped and reported."
        ),
        parameters=_object(
            {
                "ids": _ids("The ids of the memories to remove."),
                "filter": _filter(
                    "Remove every memory this filter matches; set at least one field."
                ),
            }
        ),
    )
