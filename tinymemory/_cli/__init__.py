"""The ``tinymemory`` command line: ``main`` (the group, each command loaded when it runs),
``info_commands``, ``data_commands``, ``plugin_commands`` and the ``options`` they share."""
