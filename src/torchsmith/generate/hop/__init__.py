"""The ``hop`` family: programs around higher-order ops (``cond``, ``while_loop``, ``scan``,
``associative_scan``, ``map``, nested compile regions, flex attention) and function transforms
(``vmap``, ``grad``, ``vjp``, ``checkpoint``): ``generator.py``, with bodies from ``bodies.py``."""
