"""How a conformance check reports: a failure naming the call, or a skip."""

from __future__ import annotations


class CheckFailed(AssertionError):
    """The engine broke the contract in one check.

    The message names the check, the call, what the contract expects and what
    came back, so a plugin author can reproduce it without reading the suite.
    """

    def __init__(self, check: str, call: str, expected: str, got: str) -> None:
        self.check = check
        self.call = call
        self.expected = expected
        self.got = got
        super().__init__(f"{check}: {call}\n  expected: {expected}\n  got: {got}")

    @property
    def summary(self) -> str:
        """One line, what differed first: the line pytest's short test summary shows."""
        return f"{self.check}: expected {self.expected}; got {self.got} (at {self.call})"


class CheckSkipped(Exception):
    """The engine declines an optional operation (export, erase) with ``Unsupported``."""

    def __init__(self, check: str, reason: str) -> None:
        self.check = check
        self.reason = reason
        super().__init__(f"{check}: skipped, {reason}")
