"""``tinymemory.commands``: what a plugin's command shares with the core's commands."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import tinymemory as tm
import tinymemory.commands as commands
from tinymemory._cli.data_commands import erase


@click.command()
@commands.engine_option()
@commands.at_option("a node")
@commands.reach_option()
def shown(engine_id: str | None, at: tm.Namespace | None, reach_kind: str | None) -> None:
    click.echo(f"{engine_id} {commands.reach_from(at, reach_kind)}")


@pytest.mark.parametrize(
    ("args", "printed"),
    [
        ([], "None None"),
        (["--engine", "reference"], "reference None"),
        (["--at", "team:acme"], f"None {tm.Reach.of(tm.Namespace.parse('team:acme'))}"),
        (["--reach", "subtree"], f"None {tm.Reach.subtree(tm.Namespace.ROOT)}"),
    ],
)
def test_the_shared_options_read_as_the_core_commands_read_them(
    args: list[str], printed: str
) -> None:
    done = CliRunner().invoke(shown, args)
    assert done.exit_code == 0, done.output
    assert done.output == printed + "\n"


def test_a_malformed_node_is_a_usage_error() -> None:
    done = CliRunner().invoke(shown, ["--at", "nobody"])
    assert done.exit_code == 2


def test_engine_id_opens_another_engine_than_the_configured_one(
    reference_config: Path, tmp_path: Path
) -> None:
    reference_config.write_text(
        f'engine = "nope"\n[engines.sqlite]\npath = "{tmp_path / "m.db"}"\n', encoding="utf-8"
    )
    with pytest.raises(tm.ConfigError, match="nope"):
        commands.open_reader()
    with commands.open_reader(engine_id="reference") as engine:
        assert engine.descriptor.id == "reference"
    with commands.open_writer("reference") as engine:
        assert engine.descriptor.id == "reference"


def test_items_starting_finds_each_prefix_and_its_items() -> None:
    engine = tm.build_engine("reference")
    ids = [engine.store(tm.Learning(text=f"note {n}")).id for n in range(40)]
    prefixes = {item_id[:4] for item_id in ids} | {"ffff0"}
    found = commands.items_starting(engine, prefixes)
    for prefix in prefixes:
        assert sorted(hit.id for hit in found[prefix]) == sorted(
            item_id for item_id in ids if item_id.startswith(prefix)
        )
    assert commands.is_prefix(ids[0][:4])
    assert not commands.is_prefix(ids[0])
    assert commands.MIN_PREFIX == 4


@pytest.mark.parametrize(
    ("at", "subtree", "kinds", "question"),
    [
        ("team:acme", False, (), "Erase every item at team:acme, for good?"),
        ("team:acme", True, ("learning",), "Erase learning items at team:acme and everything "
         "below it, for good?"),
        ("root", True, (), "Erase the whole memory tree, every item at every node, for good?"),
    ],
)  # fmt: skip
def test_erase_asks_what_the_shared_question_says(
    reference_config: Path, at: str, subtree: bool, kinds: tuple[str, ...], question: str
) -> None:
    node = tm.Namespace.parse(at)
    reach = tm.Reach.subtree(node) if subtree else tm.Reach.exact(node)
    request = tm.EraseRequest(reach=reach, kinds=kinds, whole_tree=True)
    assert commands.erase_question(request) == question
    assert commands.is_whole_tree(request) is question.startswith("Erase the whole")
    args = ["--at", at, *(["--subtree"] if subtree else []), "--whole-tree"]
    args += [arg for kind in kinds for arg in ("--kind", kind)]
    done = CliRunner().invoke(erase, args, input="n\n")
    assert question in done.output
    assert done.exit_code == 1  # declined


def test_count_items_counts_what_a_reach_sees() -> None:
    engine = tm.build_engine("reference")
    for text, node in [("a", "root"), ("b", "team:acme"), ("c", "team:acme/agent:w")]:
        engine.store(tm.Learning(text=text, meta=tm.MemoryMeta(namespace=node)))
    acme = tm.Namespace.parse("team:acme")
    assert commands.count_items(engine, tm.Reach.subtree(acme), ()) == 2
    assert commands.count_items(engine, tm.Reach.exact(acme), ("learning",)) == 1
    assert commands.count_items(engine, tm.Reach.exact(acme), ("document",)) == 0


class CountingEngine(tm.ReferenceEngine):
    """The reference engine, counting the ``list`` pages it is asked for."""

    pages = 0

    def handle_list(self, request: tm.ListRequest) -> tm.ListPage:
        self.pages += 1
        return super().handle_list(request)


@pytest.mark.parametrize("stored", [0, 1, 199, 200, 201, 401])
def test_listed_items_reads_every_admitted_item_once_across_page_boundaries(stored: int) -> None:
    engine = CountingEngine()
    here, there = tm.Namespace.parse("team:here"), tm.Namespace.parse("team:there")
    mine = [
        tm.Learning(text=f"note {n}", meta=tm.MemoryMeta(namespace=here)) for n in range(stored)
    ]
    receipts = [
        receipt
        for at in range(0, stored, 100)
        for receipt in engine.store_many(mine[at : at + 100])
    ]
    engine.store(tm.Learning(text="a decoy elsewhere", meta=tm.MemoryMeta(namespace=there)))
    listed = [
        hit.id for hit in commands.listed_items(engine, tm.MetaFilter(reach=tm.Reach.exact(here)))
    ]
    assert sorted(listed) == sorted(receipt.id for receipt in receipts)
    assert len(list(commands.listed_items(engine))) == stored + 1  # no filter: every item


def test_listed_items_reads_a_page_only_when_the_caller_goes_on() -> None:
    engine = CountingEngine()
    for at in range(0, 450, 100):
        engine.store_many([tm.Learning(text=f"note {n}") for n in range(at, min(at + 100, 450))])
    engine.pages = 0
    first = next(commands.listed_items(engine))
    assert first.text.startswith("note")
    assert engine.pages == 1
