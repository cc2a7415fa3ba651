"""The ``llm`` family: programs written by a language model behind an OpenAI-compatible
endpoint (``generator.py``; ``prompts.py`` builds targets, examples and requests)."""
