"""machine layer (see DESIGN.md)."""
