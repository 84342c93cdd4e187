"""The render layer: tables, the JSON documents, Markdown/HTML reports (docs/architecture.md)."""
