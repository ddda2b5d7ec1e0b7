"""Helpers of ``ember.serialization``: torch <-> ember global names and the restricted unpickler."""
