"""The ``mutate`` family: new programs from a corpus by AST mutation (``generator.py``;
``sites.py`` parses a program into mutation sites, ``operators.py`` holds the operators)."""
