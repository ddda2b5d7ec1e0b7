"""Experimental fx tools (``optimization.fuse``: Conv/Linear + BatchNorm folding for inference)."""
