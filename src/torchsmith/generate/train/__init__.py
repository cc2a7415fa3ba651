"""The ``train`` family: compiled training steps (``generator.py``) on small models (``templates.py``)."""
