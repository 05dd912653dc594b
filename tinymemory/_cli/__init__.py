"""The ``tinymemory`` command line: ``main`` (the group and its informational commands),
``data_commands`` and the ``options`` they share."""
