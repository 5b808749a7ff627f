"""Validation on a real GPU: the sweep, its measurement, and the comparison with the model."""
