"""The package's version: the one place it is written (hatch reads it for the metadata)."""

__version__ = "0.1.0"
