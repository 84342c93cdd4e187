"""catalog layer (see DESIGN.md)."""
