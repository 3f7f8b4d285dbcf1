"""Helpers shared by the tests: inputs in every layout, malformed inputs and model files, isolated runs."""
