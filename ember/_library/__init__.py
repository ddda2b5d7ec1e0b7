"""Internals of ember.library (layer L3): Python-defined operators."""
