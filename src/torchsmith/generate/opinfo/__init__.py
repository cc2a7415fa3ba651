"""The ``opinfo`` family: one call of an OpInfo sample per program (``generator.py``;
``render.py`` writes the program, ``values.py`` the literal arguments)."""
