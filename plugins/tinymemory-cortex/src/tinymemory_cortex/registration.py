"""Registering a layout v3 root with its owner, once per engine, before the first write.

``POST v1/scopes`` with ``{path, owner}``, as the vendor's CLI sends it
(``cortexdb scopes register``); a 409 (already registered) is done. No
vendor client changes a scope's members, so neither does the engine (the
Rust engine's ``PUT v1/scopes/members`` of the wire reference's §4.10 is
not sent). A transient failure is logged, never fails the write, and is
tried again on the next one; a refusal is the write's error.
"""

from __future__ import annotations

import logging
import re
import threading

from tinymemory import ConfigError, TinyMemoryError

from .transport import Transport, status_of

_log = logging.getLogger(__name__)
_ACTOR = re.compile(r"[a-z]+:[A-Za-z0-9_.@-]+", re.ASCII)


class RootRegistration:
    """Whether the root is registered with its owner; :meth:`ensure` does it once."""

    def __init__(self, transport: Transport, root: str | None, owner: str | None) -> None:
        if owner is not None:
            if root is None:
                raise ConfigError("`scope_owner` needs a `scope_root` to own")
            if _ACTOR.fullmatch(owner) is None:
                raise ConfigError("`scope_owner` must be an actor written type:id, such as user:42")
        self.transport = transport
        self.root = root
        self.owner = owner
        self.done = owner is None
        self._lock = threading.Lock()

    def ensure(self) -> None:
        """Register the root before a write.

        A transient failure (a 429, a 5xx, no answer) is logged and tried again
        on the next write, which goes ahead. A refusal (the credential, the
        policy or the body refused) is the write's error: the owner configured
        cannot own the root, and writing on would lay memory out under a root
        nobody owns.
        """
        with self._lock:
            if self.done:
                return
            try:
                self._register()
            except TinyMemoryError as error:
                if not error.transient:
                    raise type(error)(
                        f"scope root {self.root} could not be registered for its owner "
                        f"{self.owner}: {error.message}"
                    ) from None
                _log.warning("could not register scope root %s: %s", self.root, error.message)
                return
            self.done = True

    def _register(self) -> None:
        try:
            self.transport.post("register", {"path": self.root, "owner": self.owner})
        except TinyMemoryError as error:
            if status_of(error) != 409:
                raise
