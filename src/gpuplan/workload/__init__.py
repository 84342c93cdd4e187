"""workload layer (see DESIGN.md)."""
