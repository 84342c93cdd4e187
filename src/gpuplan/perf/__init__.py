"""perf layer (see DESIGN.md)."""
