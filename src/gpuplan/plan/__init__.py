"""plan layer (see DESIGN.md)."""
