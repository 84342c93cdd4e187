"""deploy layer (see DESIGN.md)."""
