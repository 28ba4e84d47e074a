"""google-adk shim (placeholder)."""
