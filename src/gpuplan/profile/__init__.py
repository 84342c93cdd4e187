"""profile layer (see DESIGN.md)."""
