def replace_pattern(*a): raise NotImplementedError
