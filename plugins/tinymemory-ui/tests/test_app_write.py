"""With ``--write``: forget after a preview (of an item, or of a filter's matches), removing
exactly what the preview listed, and erase behind the CLI's interlock."""

from __future__ import annotations

import re

import pytest
from app_support import MakeClient, ids_in, store_learnings

import tinymemory as tm


def every_id(engine: tm.MemoryEngine) -> set[str]:
    return {hit.id for hit in engine.list(tm.ListRequest(limit=500)).items}


def confirm_ids(page: str) -> list[str]:
    """The ids the preview's confirm form would forget."""
    form = page.split('<form id="forget-confirm-form" method="post" action="/forget">')[1]
    return re.findall(r'name="ids" value="([0-9a-f]{40})"', form.split("</form>")[0])


def test_the_write_controls_show_only_with_write(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    (item_id,) = store_learnings(app_engine, ["prefers tabs"])
    for writes in (False, True):
        client = ui_client(app_engine, writes=writes)
        item = client.get(f"/items/{item_id}").text
        listing = client.get("/search?kind=learning").text
        fetched = client.get("/search?q=tabs&mode=keyword&kind=learning").text
        unfiltered = client.get("/search?q=tabs&mode=keyword").text
        recalled = client.get("/search?q=tabs&kind=learning").text
        assert ('id="nav-erase"' in item) is writes
        assert (
            '<form id="forget-item-form" method="post" action="/forget/preview">' in item
        ) is writes
        assert ('id="forget-item-button"' in item) is writes
        assert ('id="forget-matches-form"' in listing) is writes
        assert ('id="forget-matches-form"' in fetched) is writes
        assert 'id="forget-matches-form"' not in recalled
        assert 'id="forget-matches-form"' not in unfiltered  # it would forget everything


def test_an_item_is_forgotten_only_after_its_preview_is_confirmed(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    kept, gone = store_learnings(app_engine, ["keep me", "forget me"])
    client = ui_client(app_engine, writes=True)
    preview = client.post("/forget/preview", {"ids": gone}).text
    assert ids_in(preview, "preview") == [gone]
    assert '<span id="preview-count">1</span>' in preview
    assert every_id(app_engine) == {kept, gone}  # the preview removed nothing
    done = client.post("/forget", {"ids": confirm_ids(preview)}).text
    assert "Forgot 1 item." in done
    assert 'id="forget-result"' in done
    assert every_id(app_engine) == {kept}


def test_a_filters_matches_are_forgotten_exactly_as_previewed(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    tagged = store_learnings(app_engine, [f"tagged {n}" for n in range(25)], tags=("old",))
    other = store_learnings(app_engine, ["other a", "other b"], tags=("new",))
    placed = store_learnings(app_engine, ["tagged elsewhere"], tags=("old",), namespace="team:x")
    client = ui_client(app_engine, writes=True)
    listing = client.get("/search?tag=old&at=root&reach=exact").text
    form = listing.split('<form id="forget-matches-form"')[1].split("</form>")[0]
    carried = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))
    assert carried["tag"] == "old"
    assert carried["at"] == "root"
    assert carried["reach"] == "exact"
    preview = client.post("/forget/preview", carried).text
    assert sorted(ids_in(preview, "preview")) == sorted(tagged)
    assert '<span id="preview-count">25</span>' in preview
    assert sorted(confirm_ids(preview)) == sorted(tagged)
    assert every_id(app_engine) == {*tagged, *other, *placed}
    # an item added after the preview, which the filter admits, stays: the preview is the list
    late = store_learnings(app_engine, ["tagged late"], tags=("old",))
    done = client.post("/forget", {"ids": confirm_ids(preview)}).text
    assert "Forgot 25 items." in done
    assert every_id(app_engine) == {*other, *placed, *late}


@pytest.mark.parametrize("form", [{}, {"q": "anything"}, {"kind": "poem"}])
def test_a_preview_of_no_filter_or_a_bad_one_is_a_400(
    app_engine: tm.MemoryEngine, ui_client: MakeClient, form: dict
) -> None:
    store_learnings(app_engine, ["x"])
    answer = ui_client(app_engine, writes=True).post("/forget/preview", form)
    assert answer.status_code == 400
    assert 'id="error"' in answer.text
    assert len(every_id(app_engine)) == 1


def test_a_preview_of_more_ids_than_a_get_takes_is_a_400(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    ids = [f"{n:040x}" for n in range(tm.MAX_GET_IDS + 1)]
    answer = ui_client(app_engine, writes=True).post("/forget/preview", {"ids": ids})
    assert answer.status_code == 400
    assert f"holds at most {tm.MAX_GET_IDS} entries (cap-get-ids)" in answer.text


def test_erase_needs_the_node_typed_again(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    root = store_learnings(app_engine, ["at the root"])
    acme = store_learnings(app_engine, ["at acme", "also at acme"], namespace="team:acme")
    below = store_learnings(app_engine, ["below acme"], namespace="team:acme/agent:w")
    client = ui_client(app_engine, writes=True)
    page = client.get("/erase").text
    for field in (
        'name="at"',
        'name="subtree"',
        'name="kind"',
        'name="whole_tree"',
        'name="confirm"',
    ):
        assert field in page
    for typed in ("", "yes", "team:acme/agent:w", "root"):
        answer = client.post("/erase", {"at": "team:acme", "kind": "learning", "confirm": typed})
        # The question comes on the form, filled as it was sent, not on an error page.
        assert answer.status_code == 200
        assert 'id="error"' not in answer.text
        assert 'id="erase-form"' in answer.text
        assert "Erase learning items at team:acme, for good?" in answer.text
        assert "Type <code>team:acme</code> into the confirm box" in answer.text
        assert 'name="at" value="team:acme"' in answer.text
        assert 'value="learning" checked' in answer.text
    assert every_id(app_engine) == {*root, *acme, *below}
    done = client.post("/erase", {"at": "team:acme", "confirm": "team:acme"}).text
    assert "Erased 2 items at team:acme." in done
    assert 'id="erase-result"' in done
    assert every_id(app_engine) == {*root, *below}


def test_the_node_box_starts_empty_so_a_typed_node_is_the_node(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    client = ui_client(app_engine, writes=True)
    page = client.get("/erase").text
    assert 'name="at" value=""' in page  # nothing to type after: `root` + `team:demo` was a node
    store_learnings(app_engine, ["at demo"], namespace="team:demo")
    done = client.post("/erase", {"at": "team:demo", "confirm": "team:demo"}).text
    assert "Erased 1 item at team:demo." in done
    kept = store_learnings(app_engine, ["at the root"])
    blank = client.post("/erase", {"at": "", "confirm": "root"}).text  # empty is the root
    assert "Erased 1 item at root." in blank
    assert not set(kept) & every_id(app_engine)


def test_erase_by_kind_and_subtree(app_engine: tm.MemoryEngine, ui_client: MakeClient) -> None:
    store_learnings(app_engine, ["a learning"], namespace="team:acme/agent:w")
    document = app_engine.store(
        tm.Document(body="a document", meta=tm.MemoryMeta(namespace="team:acme/agent:w"))
    ).id
    client = ui_client(app_engine, writes=True)
    form = {"at": "team:acme", "subtree": "on", "kind": "learning", "confirm": "team:acme"}
    done = client.post("/erase", form).text
    assert "Erased 1 item at team:acme and below it." in done
    assert every_id(app_engine) == {document}


def test_the_whole_tree_needs_its_own_box(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    store_learnings(app_engine, ["a", "b"])
    store_learnings(app_engine, ["c"], namespace="team:acme")
    client = ui_client(app_engine, writes=True)
    refused = client.post("/erase", {"at": "root", "subtree": "on", "confirm": "root"})
    assert refused.status_code == 400
    assert 'id="erase-refused"' in refused.text
    assert "needs the “the whole tree” box ticked" in refused.text  # the box, not an API name
    assert "whole_tree: true" not in refused.text
    assert 'id="erase-form"' in refused.text
    assert len(every_id(app_engine)) == 3
    form = {"at": "root", "subtree": "on", "whole_tree": "on", "confirm": "root"}
    unconfirmed = client.post("/erase", {**form, "confirm": ""})
    assert "Erase the whole memory tree, every item at every node, for good?" in unconfirmed.text
    done = client.post("/erase", form).text
    assert "Erased the whole memory tree." in done
    assert every_id(app_engine) == set()
