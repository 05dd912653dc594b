"""Print what storing learnings costs the CortexDB engine, through the double over loopback HTTP.

``store_many`` pays per batch (one id lookup per kind scope, the batch's
events in one bulk append, one listing wait per scope, one ranked wait); the
floor it is compared with is the same items stored one at a time, each with
its own lookup, write and waits. Both run in the same process against the
same loopback double (a real socket on 127.0.0.1), so the ratio is fair;
the one-at-a-time run stores fewer items (``--single``) because it is slow,
and its per-item figures are what compare.

``--wire tinyhumans`` runs the hosted wire instead (one request per event,
no bulk route), with the double's rate limit and the engine's pacing lifted
so the figures show the wire's cost rather than 300 requests a minute.

    python benchmarks/cortex_store_many.py [--items 5000] [--single 500] [--wire tinyhumans]
"""

from __future__ import annotations

import argparse
import os
import time

from tinymemory import EngineCredential, EngineSettings, Learning, MemoryEngine, build_engine
from tinymemory_cortex.testing import CortexDouble, DoubleServer

BATCH = 100


#: Requests a minute the hosted run allows (the real limit is 300).
UNPACED = 10**9


def _engine(url: str, token: str, wire: str) -> MemoryEngine:
    options: dict[str, object] = {"poll_interval": 0.005}
    if wire == "tinyhumans":
        options["rate_limit"] = UNPACED
    settings = EngineSettings(endpoint=url, options=options)
    return build_engine(wire, settings, EngineCredential.static(token), scrub=False)


def _learnings(prefix: str, count: int) -> list[Learning]:
    return [
        Learning(text=f"{prefix} learning {n}: the user prefers short answers")
        for n in range(count)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=5000, help="learnings stored in batches")
    parser.add_argument("--single", type=int, default=500, help="learnings stored one at a time")
    parser.add_argument("--wire", choices=("cortexdb", "tinyhumans"), default="cortexdb")
    args = parser.parse_args()
    with DoubleServer(CortexDouble(hosted_rate_limit=None)) as server:
        double = server.double
        batched = _engine(server.url, "bench-batched", args.wire)
        batched.health()  # learn the actor first: one request not counted against the batches
        items = _learnings("batched", args.items)
        sent = len(double.requests)
        started = time.perf_counter()
        per_batch = []
        for start in range(0, len(items), BATCH):
            before = len(double.requests)
            batched.store_many(items[start : start + BATCH])
            per_batch.append(len(double.requests) - before)
        batched_seconds = time.perf_counter() - started
        batched_requests = len(double.requests) - sent
        batched.close()

        single = _engine(server.url, "bench-single", args.wire)
        single.health()
        items = _learnings("single", args.single)
        sent = len(double.requests)
        started = time.perf_counter()
        for item in items:
            single.store(item)
        single_seconds = time.perf_counter() - started
        single_requests = len(double.requests) - sent
        single.close()

    batched_rate = args.items / batched_seconds
    single_rate = args.single / single_seconds
    single_per_batch = single_requests / args.single * BATCH
    print(f"load average {os.getloadavg()}")
    floor = 5 if args.wire == "cortexdb" else BATCH + 4
    print(f"wire {args.wire}; store_many, {args.items} learnings in batches of {BATCH}, one scope:")
    print(
        f"  HTTP requests per {BATCH}-item batch: max {max(per_batch)}, "
        f"mean {batched_requests / len(per_batch):.2f} (target <= {floor})"
    )
    print(f"  items/s: {batched_rate:,.0f}  ({batched_seconds:.2f} s)")
    print(f"store one at a time (per-item waits), {args.single} learnings:")
    print(f"  HTTP requests per {BATCH} items: {single_per_batch:.0f}")
    print(f"  items/s: {single_rate:,.0f}  ({single_seconds:.2f} s)")
    print(
        f"ratio: store_many is {batched_rate / single_rate:.1f}x the items/s, "
        f"with {single_per_batch / (batched_requests / len(per_batch)):.0f}x fewer requests"
    )


if __name__ == "__main__":
    main()
