"""The contract's errors: one base class and its eight kinds.

Every failure an engine, the registry or a plugin reports is a
:class:`TinyMemoryError`. Messages are lowercase, carry no trailing
punctuation and never hold a credential.
"""

from __future__ import annotations


class TinyMemoryError(Exception):
    """Base of every error the SDK raises on purpose.

    ``str(error)`` reads like the original's display form, prefixed by the kind
    (``invalid request: recall limit must be positive``); ``error.message``
    holds the bare message.
    """

    prefix = "error"
    #: Whether retrying the same call may succeed. Only :class:`Unavailable` is.
    transient = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"{self.prefix}: {self.message}"


class Unsupported(TinyMemoryError):
    """The engine does not offer this operation or fetch mode."""

    prefix = "unsupported"


class InvalidRequest(TinyMemoryError):
    """The request breaks a rule of the contract; nothing was done."""

    prefix = "invalid request"


class Unauthorized(TinyMemoryError):
    """The engine refused the credential."""

    prefix = "unauthorized"


class NotFound(TinyMemoryError):
    """Something the call names does not exist."""

    prefix = "not found"


class Conflict(TinyMemoryError):
    """The call collides with the engine's current state."""

    prefix = "conflict"


class Unavailable(TinyMemoryError):
    """The engine cannot be reached right now; the call may be retried."""

    prefix = "unavailable"
    transient = True


class EngineError(TinyMemoryError):
    """The engine's own failure, already stripped of anything secret."""

    prefix = "engine error"


class ConfigError(TinyMemoryError):
    """The configuration cannot build an engine."""

    prefix = "configuration error"
