"""Cross-validated tuning: search a space of settings on training folds, score out of fold."""
