"""Shared test set-up: pytester, for running pytest in a subprocess."""

pytest_plugins = ["pytester"]
