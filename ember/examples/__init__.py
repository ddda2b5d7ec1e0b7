"""ember.examples: runnable examples (``python -m ember.examples.quickstart``) and their data."""
