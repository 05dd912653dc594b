"""The engine under test, and one check's session with a fresh engine.

A :class:`Harness` gives each check a run marker and workspace of its own (so
the checks also work on an engine that holds other memory), engine calls that
turn any error into a :class:`CheckFailed` naming the call, listing with the
contract's paging rules, and clean-up that forgets everything the check stored.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, NoReturn, Protocol, TypeVar

import attrs

from tinymemory._engine import MemoryEngine
from tinymemory._errors import InvalidRequest, TinyMemoryError, Unavailable, Unsupported
from tinymemory._items import StoreItem, StoreReceipt
from tinymemory._meta import MemoryMeta, MetaFilter
from tinymemory._namespace import Namespace, Reach
from tinymemory._operations import (
    EraseReport,
    EraseRequest,
    ExplorePage,
    ExploreRequest,
    Exported,
    FetchMode,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    Hit,
    ListRequest,
    RecallAnswer,
    RecallRequest,
)
from tinymemory._wire import to_json

from .failures import CheckFailed, CheckSkipped
from .profiles import Profile, profile_named

T = TypeVar("T")


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


#: An entry of a paged read (a hit or an exported item), and the request that pages it.
E = TypeVar("E", bound=_Identified)
R = TypeVar("R", ListRequest, FetchRequest)

#: Builds a fresh, empty engine; called once per check and per Hypothesis example.
EngineMaker = Callable[[], MemoryEngine]
#: Builds two engines for two different users of one backing store.
PairMaker = Callable[[], tuple[MemoryEngine, MemoryEngine]]

#: Listing page size, small so that paging itself is tested.
LISTING_PAGE = 2
#: A listing longer than this many pages is taken to loop.
MAX_PAGES = 10_000


class Call:
    """A call as a failure names it (``list {...request json...}``), written only when shown."""

    def __init__(self, operation: str, request: object = None) -> None:
        self.operation = operation
        self.request = request

    def __str__(self) -> str:
        if self.request is None:
            return self.operation
        return f"{self.operation} {to_json(self.request)}"


#: What names a call in a failure: plain text, or a :class:`Call` written only when shown.
Label = str | Call


def describe_error(error: BaseException) -> str:
    """An error as a failure shows it, saying when it is not one of the contract's."""
    if isinstance(error, TinyMemoryError):
        return f"{type(error).__name__}: {error.message}"
    return f"{type(error).__name__} (not one of the contract's errors): {error}"


def _shorten(text: str, most: int = 300) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _made(
    check: str, call: str, make: Callable[[], tuple[object, ...]]
) -> tuple[MemoryEngine, ...]:
    """What a factory made, failing ``check`` unless it made engines."""
    try:
        made = make()
    except Exception as error:
        raise CheckFailed(check, call, "fresh engines", describe_error(error)) from error
    engines = tuple(engine for engine in made if isinstance(engine, MemoryEngine))
    if len(engines) != len(made):
        shown = ", ".join(type(thing).__name__ for thing in made)
        raise CheckFailed(check, call, "MemoryEngine instances", shown)
    return engines


@attrs.frozen
class Subject:
    """The engine under test: how to build a fresh one, how to build two users, the profile.

    Without ``pair``, the isolation check runs between two engines from
    ``factory``; pass ``pair`` to test two users of one backing store.
    """

    factory: EngineMaker
    pair: PairMaker | None = None
    profile: Profile = attrs.field(factory=profile_named)
    #: What to give the suite for a second user, as the isolation check says when two
    #: engines built alike turn out to share a store.
    pair_hint: str = "pass two users of one store"

    def build(self, check: str) -> MemoryEngine:
        """A fresh engine, or a failure of ``check`` when the factory breaks."""
        return _made(check, "factory()", lambda: (self.factory(),))[0]

    def build_pair(self, check: str) -> tuple[MemoryEngine, MemoryEngine]:
        """Two users' engines, from ``pair`` or from two calls of the factory."""
        if self.pair is None:
            return self.build(check), self.build(check)
        first, second = _made(check, "pair()", self.pair)
        return first, second

    @contextmanager
    def session(self, check: str) -> Iterator[Harness]:
        """A harness over a fresh engine; cleans up and closes it afterwards.

        After a passing check the clean-up is verified (nothing of the run
        left listed); after a failing one it is best effort.
        """
        engine = self.build(check)
        with using(engine, check) as harness:
            yield harness


@contextmanager
def using(engine: MemoryEngine, check: str, nonce: str | None = None) -> Iterator[Harness]:
    """A harness over ``engine`` that cleans up after itself and closes the engine."""
    harness = Harness(check, engine, nonce)
    try:
        yield harness
    except BaseException:
        harness.clean_up(verify=False)
        raise
    else:
        harness.clean_up(verify=True)
    finally:
        harness.call("close()", engine.close)


class Harness:
    """One check's calls against one engine, each failure named after its call."""

    def __init__(self, check: str, engine: MemoryEngine, nonce: str | None = None) -> None:
        self.check = check
        self.engine = engine
        self.nonce = nonce or secrets.token_hex(4)
        #: A word every text of the run holds, so every fetch mode can find it.
        self.marker = f"tmconf{self.nonce}"
        #: The workspace every item of the run is stored in.
        self.workspace = f"tinymemory-conformance/{self.nonce}"
        #: The workspace of the filter probes.
        self.probe_workspace = f"{self.workspace}/probes"
        self._names: dict[str, str] = {}
        self._nodes: set[Namespace] = set()
        #: Every workspace the run stores in, each forgotten at clean-up.
        self._workspaces: dict[str, None] = dict.fromkeys((self.workspace, self.probe_workspace))

    # --- reporting --------------------------------------------------------

    def fail(self, call: Label, expected: str, got: str) -> NoReturn:
        """Fail the check at ``call``."""
        __tracebackhide__ = True  # pytest shows the failure, not the suite's frames
        raise CheckFailed(self.check, str(call), expected, _shorten(got))

    def expect(self, ok: bool, call: Label, expected: str, got: object) -> None:
        """Fail the check at ``call`` unless ``ok``."""
        __tracebackhide__ = True  # pytest shows the failure, not the suite's frames
        if not ok:
            self.fail(call, expected, got if isinstance(got, str) else repr(got))

    def skip(self, reason: str) -> NoReturn:
        """Skip the rest of the check."""
        raise CheckSkipped(self.check, reason)

    def name(self, item_id: str, label: str) -> str:
        """Give a stored item a name that failures show instead of its id."""
        self._names[item_id] = label
        return item_id

    def names(self, ids: Iterable[str]) -> str:
        """Ids as a failure shows them: named items by name, others by id."""
        return "[" + ", ".join(self._names.get(item_id, item_id) for item_id in ids) + "]"

    def hits(self, hits: Iterable[Hit]) -> str:
        """Hits as a failure shows them."""
        return self.names(hit.id for hit in hits)

    # --- calls ------------------------------------------------------------

    def call(self, label: Label, operation: Callable[[], T]) -> T:
        """Run a call the engine must serve; any error fails the check."""
        __tracebackhide__ = True  # pytest shows the failure, not the suite's frames
        try:
            return operation()
        except (CheckFailed, CheckSkipped):
            raise
        except Exception as error:
            self.fail(label, "the call to succeed", describe_error(error))

    def refuses(
        self,
        label: Label,
        operation: Callable[[], object],
        errors: tuple[type[TinyMemoryError], ...] = (InvalidRequest,),
    ) -> None:
        """Run a call the engine must refuse with one of ``errors``."""
        __tracebackhide__ = True  # pytest shows the failure, not the suite's frames
        wanted = " or ".join(error.__name__ for error in errors)
        try:
            answer = operation()
        except errors as error:
            self.expect_transient_only_if_unavailable(label, error)
            return
        except Exception as error:
            self.fail(label, wanted, describe_error(error))
        self.fail(label, wanted, f"an answer: {answer!r}")

    def expect_transient_only_if_unavailable(self, label: Label, error: TinyMemoryError) -> None:
        """Only ``Unavailable`` is transient (worth retrying as it is); every other error is not."""
        __tracebackhide__ = True  # pytest shows the failure, not the suite's frames
        unavailable = isinstance(error, Unavailable)
        self.expect(
            error.transient is unavailable,
            label,
            f"{type(error).__name__} with transient={unavailable} (only Unavailable is transient)",
            f"transient={error.transient}",
        )

    def also_clean(self, workspace: str) -> None:
        """Forget, at clean-up, what the run stores in ``workspace`` too."""
        self._workspaces[workspace] = None

    def meta(self, **fields: Any) -> MemoryMeta:
        """Metadata in the run's workspace (unless ``fields`` names another)."""
        return attrs.evolve(MemoryMeta(workspace=self.workspace), **fields)

    def in_run(self, item: StoreItem) -> StoreItem:
        """``item`` moved into the run's workspace (a drawn item's own workspace replaced)."""
        return item.with_meta(attrs.evolve(item.meta, workspace=self.workspace))

    def run_filter(self, **fields: Any) -> MetaFilter:
        """A filter admitting only the run's workspace (unless ``fields`` names another)."""
        return attrs.evolve(MetaFilter(workspace=self.workspace), **fields)

    def store(self, item: StoreItem, label: str | None = None) -> StoreReceipt:
        """Store ``item``; its receipt must carry the item's id (its fingerprint)."""
        name = label or item.item_kind.value
        self._nodes.add(item.meta.namespace)
        receipt = self.call(f"store({name})", lambda: self.engine.store(item))
        self.name(receipt.id, name)
        fingerprint = item.fingerprint()
        self.expect(
            receipt.id == fingerprint,
            f"store({name})",
            f"the item's fingerprint {fingerprint} as its id",
            receipt.id,
        )
        return receipt

    def store_many(self, items: Sequence[StoreItem]) -> list[StoreReceipt]:
        """Store a batch."""
        self._nodes.update(item.meta.namespace for item in items)
        return self.call(
            f"store_many({len(items)} items)", lambda: self.engine.store_many(list(items))
        )

    def _paged(
        self,
        operation: str,
        serve: Callable[[R], tuple[Sequence[E], str | None]],
        request: R,
    ) -> list[E]:
        """Everything a paged read returns, page by page from ``request``.

        Fails on a page over the limit, an item served twice, a repeated
        cursor or an endless read.
        """
        found: list[E] = []
        served: set[str] = set()
        seen: set[str] = set()
        cursor: str | None = None
        while True:
            current = attrs.evolve(request, cursor=cursor)
            label = Call(operation, current)
            entries, cursor = self.call(label, partial(serve, current))
            page = current.limit
            self.expect(len(entries) <= page, label, f"at most {page} entries", len(entries))
            again = [entry.id for entry in entries if entry.id in served]
            self.expect(
                not again, label, "each item once across pages", f"{self.names(again)} again"
            )
            served.update(entry.id for entry in entries)
            found.extend(entries)
            if cursor is None:
                return found
            self.expect(
                cursor not in seen and len(seen) < MAX_PAGES,
                label,
                f"a new cursor on every page and at most {MAX_PAGES} pages",
                cursor,
            )
            seen.add(cursor)

    def listed(self, filter: MetaFilter, page: int = LISTING_PAGE) -> list[Hit]:
        """Every item ``filter`` admits, through pages of ``page``; each must score 0."""

        def serve(request: ListRequest) -> tuple[Sequence[Hit], str | None]:
            answer = self.engine.list(request)
            return answer.items, answer.next_cursor

        hits = self._paged("list", serve, ListRequest(filter=filter, limit=page))
        for hit in hits:
            self.expect(
                hit.score == 0, Call("list", filter), "score 0 on every listed item", hit.score
            )
        return hits

    def listed_ids(self, filter: MetaFilter) -> list[str]:
        """The ids of every item ``filter`` admits, in listing order."""
        return [hit.id for hit in self.listed(filter)]

    def fetch(self, request: FetchRequest) -> list[Hit]:
        """The first page of a fetch."""
        return list(self.call(Call("fetch", request), lambda: self.engine.fetch(request)).hits)

    def fetched(self, request: FetchRequest) -> list[Hit]:
        """Every hit of a fetch, through pages of ``request.limit``."""

        def serve(current: FetchRequest) -> tuple[Sequence[Hit], str | None]:
            answer = self.engine.fetch(current)
            return answer.hits, answer.next_cursor

        return self._paged("fetch", serve, request)

    def fetch_marker(self, mode: FetchMode, filter: MetaFilter) -> list[Hit]:
        """Fetch the run's marker in ``mode`` under ``filter``, 50 hits at most."""
        return self.fetch(FetchRequest(query=self.marker, mode=mode, filter=filter, limit=50))

    def recall(self, request: RecallRequest) -> RecallAnswer:
        """Recall."""
        return self.call(Call("recall", request), lambda: self.engine.recall(request))

    def get(self, ids: Sequence[str], reach: Reach | None = None) -> list[Hit]:
        """Get ``ids`` under ``reach``."""
        request = GetRequest(ids=ids, reach=reach)
        return self.call(Call("get", request), lambda: self.engine.get(request))

    def explore(self, request: ExploreRequest) -> ExplorePage:
        """Explore."""
        return self.call(Call("explore", request), lambda: self.engine.explore(request))

    def forget(self, target: ForgetTarget) -> int:
        """Forget; the number forgotten."""
        report = self.call(Call("forget", target), lambda: self.engine.forget(target))
        return report.forgotten

    def forget_within(self, ids: Sequence[str], reach: Reach | None) -> int:
        """Forget the ``ids`` ``reach`` can see; the number forgotten."""
        label = f"forget_within({self.names(ids)}, {reach})"
        return self.call(label, lambda: self.engine.forget_within(ids, reach)).forgotten

    def exports(self, filter: MetaFilter) -> bool:
        """Whether the engine exports (it does not when it refuses with ``Unsupported``)."""
        try:
            self.engine.export(ListRequest(filter=filter, limit=LISTING_PAGE))
        except Unsupported:
            return False
        except Exception:  # the caller's own read reports it, naming the call
            return True
        return True

    def exported(self, filter: MetaFilter, page: int = LISTING_PAGE) -> list[Exported] | None:
        """Every item ``filter`` admits, exported in pages of ``page``; ``None`` when the
        engine does not export."""
        if not self.exports(filter):
            return None

        def serve(request: ListRequest) -> tuple[Sequence[Exported], str | None]:
            answer = self.engine.export(request)
            if answer.incomplete:
                self.fail(
                    Call("export", request), "no incomplete items", repr(list(answer.incomplete))
                )
            return answer.items, answer.next_cursor

        return self._paged("export", serve, ListRequest(filter=filter, limit=page))

    def erase(self, request: EraseRequest) -> EraseReport | None:
        """Erase; ``None`` when the engine does not erase."""
        try:
            return self.engine.erase(request)
        except Unsupported:
            return None
        except Exception as error:
            self.fail(Call("erase", request), "the call to succeed", describe_error(error))

    # --- clean-up ---------------------------------------------------------

    def clean_up(self, *, verify: bool) -> None:
        """Forget everything the run stored; with ``verify``, check that nothing is left.

        Each node the run stored at is read exactly, so items in a service
        sandbox are cleaned up too.
        """
        reaches = [None, *(Reach.exact(node) for node in sorted(self._nodes, key=str))]
        filters = [
            MetaFilter(workspace=workspace, reach=reach)
            for workspace in self._workspaces
            for reach in reaches
        ]
        for filter in filters:
            label = Call("forget", filter)
            try:
                self.engine.forget(ForgetTarget.by_filter(filter))
            except Exception as error:
                if verify:
                    self.fail(label, "clean-up to succeed", describe_error(error))
        if verify:
            for filter in filters:
                left = self.listed(filter)
                self.expect(
                    not left, "clean-up", f"nothing left under {to_json(filter)}", self.hits(left)
                )
