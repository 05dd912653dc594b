"""What a plugin's command shares with the core's ``tinymemory`` commands.

A command a plugin adds (through the ``tinymemory_register_commands`` hook)
takes the same options and opens the engine the same way as the core's
commands, from these names rather than copies of them:

- the shared options: :func:`engine_option` (``--engine``), :func:`at_option`
  (``--at``) and :func:`reach_option` (``--reach``), read together into a
  :class:`~tinymemory.Reach` by :func:`reach_from`;
- the engine: :func:`open_reader` for a command that only reads (it creates no
  file), :func:`open_writer` for one that stores or forgets;
- ids as a person gives them: :func:`is_prefix`, :data:`MIN_PREFIX` and
  :func:`items_starting` (the items a prefix starts), and :func:`short_ids`;
- every item a filter admits, read a page at a time: :func:`listed_items`;
- how a hit is shown: :func:`hit_source`; the fetch mode used when none is
  named: :func:`default_mode`;
- the ``erase`` interlock: :func:`is_whole_tree`, :func:`erase_question` and
  :func:`count_items`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinymemory._exports import lazy_exports

if TYPE_CHECKING:
    from tinymemory._cli.data_commands import count_items as count_items
    from tinymemory._cli.data_commands import erase_question as erase_question
    from tinymemory._cli.data_commands import is_whole_tree as is_whole_tree
    from tinymemory._cli.data_commands import open_reader as open_reader
    from tinymemory._cli.data_commands import open_writer as open_writer
    from tinymemory._cli.item_ids import MIN_PREFIX as MIN_PREFIX
    from tinymemory._cli.item_ids import is_prefix as is_prefix
    from tinymemory._cli.item_ids import items_starting as items_starting
    from tinymemory._cli.options import at_option as at_option
    from tinymemory._cli.options import engine_option as engine_option
    from tinymemory._cli.options import reach_from as reach_from
    from tinymemory._cli.options import reach_option as reach_option
    from tinymemory._display import hit_source as hit_source
    from tinymemory._display import short_ids as short_ids
    from tinymemory._engine import listed_items as listed_items
    from tinymemory._tool_schemas import default_mode as default_mode

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "tinymemory._cli.data_commands": (
            "count_items",
            "erase_question",
            "is_whole_tree",
            "open_reader",
            "open_writer",
        ),
        "tinymemory._cli.item_ids": (
            "MIN_PREFIX",
            "is_prefix",
            "items_starting",
        ),
        "tinymemory._cli.options": (
            "at_option",
            "engine_option",
            "reach_from",
            "reach_option",
        ),
        "tinymemory._display": (
            "hit_source",
            "short_ids",
        ),
        "tinymemory._engine": ("listed_items",),
        "tinymemory._tool_schemas": ("default_mode",),
    },
)
