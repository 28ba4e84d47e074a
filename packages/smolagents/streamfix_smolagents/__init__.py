"""smolagents shim (placeholder)."""
