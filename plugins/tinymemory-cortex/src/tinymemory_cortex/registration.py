"""Registering a layout v3 root with its owner, once per engine, before the first write.

``POST v1/scopes`` with the owner as a member; when the scope is already
registered (409), its record is read and the owner added if missing (``PUT
v1/scopes/members``). Any other failure is logged, never fails the write,
and is tried again on the next one (the wire reference's §4.10).
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
        """Register the root (best effort): a failure is logged and tried again next time."""
        with self._lock:
            if self.done:
                return
            try:
                self._register()
            except TinyMemoryError as error:
                _log.warning("could not register scope root %s: %s", self.root, error.message)
                return
            self.done = True

    def _register(self) -> None:
        owner = {"actor": self.owner, "role": "owner"}
        try:
            self.transport.post("register", {"path": self.root, "members": [owner]})
            return
        except TinyMemoryError as error:
            if status_of(error) != 409:
                raise
        record = self.transport.get("register", {"path": str(self.root)})
        members = record.get("members") if isinstance(record, dict) else None
        members = [member for member in members or [] if isinstance(member, dict)]
        if owner in [{"actor": m.get("actor"), "role": m.get("role")} for m in members]:
            return
        self.transport.request(
            "PUT", "members", params={"path": str(self.root)}, body={"members": [*members, owner]}
        )
