"""Print what the web view (`tinymemory ui`) costs per page beside its floor, in one run.

The memory is the README's example notes (docs/examples/notes, read by the
`folder` reader as `tinymemory ingest` reads them) and N learnings, in the
sqlite engine in a temp folder. Each page is requested through the Flask app
(the guard, the view, the Jinja2 rendering: everything but the socket and
waitress), and its floor is the engine operations the page makes, called
directly with the same requests:

- search (recall): `recall` of the README's question;
- search (keyword): `fetch` of a page of 20;
- listing: `list` of a page of 20 under a tag filter;
- item: `get` of one id;
- tree: `explore` by namespace and by folder;
- facets: `explore` by kind, tag and workspace, and the 13 counts of the
  time facet.

CPU time per call (`time.process_time`, the mean of R calls after a few
untimed ones) is printed for both, and their ratio; the wall time is noisy on
a shared machine and is not printed.

    python benchmarks/ui_bench.py [--learnings 2000] [--rounds 50]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import tinymemory as tm
from tinymemory_ui import Guard, create_app
from tinymemory_ui.overview import month_starts

NOTES = Path(__file__).resolve().parents[1] / "docs" / "examples" / "notes"
QUESTION = "What is the travel budget?"
PORT = 38517


def cpu_per_call(call: Callable[[], object], rounds: int) -> float:
    """Mean CPU seconds of ``call`` over ``rounds`` calls, after three untimed ones."""
    for _ in range(3):
        call()
    start = time.process_time()
    for _ in range(rounds):
        call()
    return (time.process_time() - start) / rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learnings", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = tm.EngineSettings(options={"path": str(Path(folder) / "memory.db")})
        with tm.build_engine("sqlite", settings) as engine:
            tm.sync(engine, tm.read("folder", options={"path": str(NOTES)}))
            learnings = [
                tm.Learning(
                    text=f"budget note {n}: travel line {n % 97}", meta=tm.MemoryMeta(tags=("t",))
                )
                for n in range(args.learnings)
            ]
            tm.sync(engine, learnings)
            run(engine, args.rounds, args.learnings)


def run(engine: tm.MemoryEngine, rounds: int, learnings: int) -> None:
    guard = Guard(port=PORT, writes=False)
    client = create_app(engine, guard).test_client()
    base = f"http://127.0.0.1:{PORT}"
    assert client.get(f"/?token={guard.token}", base_url=base).status_code == 303
    item_id = engine.list(tm.ListRequest(limit=1)).items[0].id
    now = datetime.now(UTC)

    def page(path: str) -> Callable[[], object]:
        def call() -> object:
            answer = client.get(path, base_url=base)
            assert answer.status_code == 200, (path, answer.status_code)
            return answer.data

        return call

    def explore(facet: str, filter: tm.MetaFilter | None = None, limit: int = 50) -> tm.ExplorePage:
        request = tm.ExploreRequest(facet=facet, filter=filter or tm.MetaFilter(), limit=limit)
        return engine.explore(request)

    def facets_floor() -> object:
        for facet in ("kind", "tag", "workspace"):
            explore(facet, limit=20)
        starts = month_starts(now)
        for start, end in zip(starts, [*starts[1:], None], strict=True):
            explore("kind", tm.MetaFilter(observed_after=start, observed_before=end), 1)
        return explore("kind", limit=1)

    cases: list[tuple[str, str, Callable[[], object]]] = [
        ("search (recall)", f"/search?q={QUESTION}",
         lambda: engine.recall(tm.RecallRequest(question=QUESTION))),
        ("search (keyword)", "/search?q=travel+budget&mode=keyword",
         lambda: engine.fetch(tm.FetchRequest(query="travel budget", mode="keyword", limit=20))),
        ("listing (tag)", "/search?tag=t",
         lambda: engine.list(tm.ListRequest(filter=tm.MetaFilter(tags_any=("t",)), limit=20))),
        ("item", f"/items/{item_id}", lambda: engine.get(tm.GetRequest(ids=(item_id,)))),
        ("tree", "/tree", lambda: (explore("namespace", limit=500), explore("folder", limit=500))),
        ("facets", "/facets", facets_floor),
    ]  # fmt: skip
    print(f"tinymemory ui pages over sqlite: the README's 7 notes and {learnings} learnings")
    print(f"CPU ms per call, mean of {rounds} (time.process_time)")
    print(f"{'page':<18} {'ui':>9} {'engine':>9} {'ratio':>7}")
    for name, path, floor in cases:
        ui = cpu_per_call(page(path), rounds)
        bare = cpu_per_call(floor, rounds)
        print(f"{name:<18} {ui * 1000:>9.2f} {bare * 1000:>9.2f} {ui / bare:>7.2f}")


if __name__ == "__main__":
    main()
