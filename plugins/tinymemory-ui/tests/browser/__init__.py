"""The browser tests of ``tinymemory ui``: a package, so that its conftest does not shadow the
plugin tests' own ``conftest`` module."""
