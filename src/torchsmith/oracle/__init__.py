"""The judge: everything that decides a verdict, run inside worker processes only.

* :mod:`~torchsmith.oracle.runtime`: load a program and run it once, eager or compiled;
* :mod:`~torchsmith.oracle.compare`: compiled vs eager, judged against float64 with ``same()``;
* :mod:`~torchsmith.oracle.sensitivity`, :mod:`~torchsmith.oracle.perturb`,
  :mod:`~torchsmith.oracle.boundary`, :mod:`~torchsmith.oracle.probe`: the sensitivity probe
  (eager variants under rounding noise, and the decisions taken from them);
* :mod:`~torchsmith.oracle.diagnose`, :mod:`~torchsmith.oracle.constraints`: why an invalid
  program is invalid (which op broke which constraint);
* :mod:`~torchsmith.oracle.jobs`: the check, eager and bisect jobs the worker runs.

Nothing here starts or watches processes (that is :mod:`torchsmith.execute`), and nothing here
runs in the CLI's process: these modules execute program code.
"""
