"""Analyses and rewrites over fx graphs (shape propagation, splitting, drawing, cost counting)."""
