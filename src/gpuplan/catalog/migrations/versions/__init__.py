"""The migration scripts, one per schema revision, in order (0001_initial, …); never edited once shipped."""
