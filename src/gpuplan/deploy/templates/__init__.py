"""Files the generators copy into a launch directory. Read as text, never imported:
``train_entry.py`` needs torch and becomes the user's ``train.py``."""
