"""Non-default compile settings: a curated table, a sampler, and bisection of failures.

``table`` (the default space, data only), ``space`` (entries, a user's JSON/TOML table, what a
torch has, the seeded sampler), ``present`` (in the worker: which keys the worker's torch has),
``bisect`` (a failure's minimal set of settings), ``session`` (what the campaign loop calls).
See ``notes/config-space.md``.
"""
