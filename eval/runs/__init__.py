"""Runs: a preset scored on a dataset, configurations scored on an evaluation set, sweeps over
cached candidate lists, BEIR collections and searchers, and stored runs."""
