"""The ``export`` family: other families' programs checked through ``torch.export`` and
AOTInductor (``generator.py``), plus programs whose sizes come from data (``unbacked.py``)."""
