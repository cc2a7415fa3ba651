"""Program generators: one subpackage per family, the pieces they share at this level.

* :mod:`~torchsmith.generate.protocol`: what the fuzz loop asks of a generator, the registry
  (``get_generator``), writing programs, and the one generator-option parser
  (:func:`~torchsmith.generate.protocol.typed_options`);
* :mod:`~torchsmith.generate.family`: the eager-checked families' one try-until-valid loop;
* :mod:`~torchsmith.generate.mix`: the campaign default, families mixed by bug yield;
* :mod:`~torchsmith.generate.coverage`: coverage features and steering;
* :mod:`~torchsmith.generate.validate`: eager/compiled validity of generated programs.

Families: ``graph/`` (random DAGs of op specs, valid by construction), ``opinfo/`` (one OpInfo
sample call per program), ``python/`` (what Dynamo must trace and guard), ``rewrites/``
(programs that match Inductor's rewrites), ``mutate/`` (AST mutation of a corpus), ``llm/``
(programs written by a language model). Each holds a ``generator.py`` with its generator class.
"""
