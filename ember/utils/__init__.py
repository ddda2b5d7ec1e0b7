"""ember.utils: hooks, data (imported lazily), _pytree."""
