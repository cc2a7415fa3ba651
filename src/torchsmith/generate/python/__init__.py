"""The ``python`` family: programs whose risk is in what Dynamo must trace and guard
(``generator.py``; ``builder.py`` holds the program under construction; the fragments are
``frags_control.py``: control flow, loops, shapes and Python scalars, ``frags_functions.py``:
functions and containers, ``frags_effects.py``: graph breaks, side effects, aliasing and modules)."""
