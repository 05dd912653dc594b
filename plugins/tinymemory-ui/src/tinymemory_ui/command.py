"""``tinymemory ui``: serve the web view on 127.0.0.1 until SIGINT or SIGTERM.

The engine is opened as the data commands open it (the configuration, or
``--engine``): without ``--write`` as a reader, which creates no file.
The one line on stdout names the URL with the run's token; the log goes to
stderr and never holds the token.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import sys
from collections.abc import Iterator
from types import FrameType

import click

import tinymemory as tm
from tinymemory.commands import (
    at_option,
    engine_option,
    open_reader,
    open_writer,
    reach_from,
    reach_option,
)

#: The only address the server listens on.
HOST = "127.0.0.1"
#: The threads answering requests (one person's browser).
THREADS = 4
#: The longest request line and headers: a search link with a question at its cap
#: (16 KiB, up to three times that percent-encoded), a cursor and every other field fits.
MAX_HEADER_BYTES = 128 * 1024


@click.command("ui")
@engine_option()
@at_option("The node whose memory the pages read (team:acme/agent:writer); default every node.")
@reach_option()
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="The port on 127.0.0.1 (0: a free one the system picks).",
)
@click.option("--write", is_flag=True, help="Offer forget and erase; without it, only reads.")
def ui_command(
    engine_id: str | None,
    at: tm.Namespace | None,
    reach_kind: str | None,
    port: int,
    write: bool,
) -> None:
    """Serve a web view of memory on 127.0.0.1: search, items, tree, facets, export.

    Prints the URL to open, with a token new each run; every request needs it
    (then a cookie) and a Host of 127.0.0.1 or localhost. Read-only unless
    --write, which adds forget (after a preview) and erase. Runs until Ctrl-C
    or SIGTERM. Opens no browser.
    """
    from waitress.server import create_server

    from .app import MAX_BODY_BYTES, create_app
    from .security import Guard

    _log_to_stderr()
    listener = _listen(port)
    try:
        engine = open_writer(engine_id) if write else open_reader(engine_id=engine_id)
    except tm.TinyMemoryError:
        listener.close()
        raise
    with engine:
        guard = Guard(port=listener.getsockname()[1], writes=write)
        app = create_app(engine, guard, reach=reach_from(at, reach_kind))
        server = create_server(
            app,
            sockets=[listener],
            threads=THREADS,
            ident="tinymemory-ui",
            # Waitress answers 413 or 431 itself, before buffering past these.
            max_request_body_size=MAX_BODY_BYTES,
            max_request_header_size=MAX_HEADER_BYTES,
        )
        mode = "read-write" if write else "read-only"
        # The handlers are in place before the URL is printed: whoever reads the line may
        # stop the server at once, and that is a clean stop (exit 0) too.
        with _stop_on_signals():
            try:
                click.echo(
                    f"tinymemory ui: serving {engine.descriptor.id} at {guard.url()} ({mode})"
                )
                sys.stdout.flush()
                server.run()
            except KeyboardInterrupt:  # stopped before the serving loop began
                pass
            finally:
                server.close()


def _listen(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1 at ``port`` (0: a free one); a usage error when taken."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.bind((HOST, port))
    except OSError as error:
        listener.close()
        raise click.BadParameter(f"{HOST}:{port}: {error.strerror}", param_hint="--port") from None
    listener.listen(128)
    return listener


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[None]:
    """SIGINT and SIGTERM end the server alike (waitress's loop stops on KeyboardInterrupt);
    the first one stops it, any later one is ignored while it closes."""
    stopping = (signal.SIGINT, signal.SIGTERM)

    def stop(signum: int, frame: FrameType | None) -> None:
        for each in stopping:
            signal.signal(each, signal.SIG_IGN)
        raise KeyboardInterrupt

    previous = {each: signal.signal(each, stop) for each in stopping}
    try:
        yield
    finally:
        for each, handler in previous.items():
            signal.signal(each, handler)


def _log_to_stderr() -> None:
    log = logging.getLogger("tinymemory_ui")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("tinymemory ui: %(message)s"))
        log.addHandler(handler)
    log.setLevel(logging.INFO)
