"""The ``rewrites`` family: programs written to match Inductor's rewrites (``generator.py``;
``catalog.py`` reads the installed torch's rewrites, ``base.py`` is what templates write with,
``templates_*.py`` the templates by pass)."""
