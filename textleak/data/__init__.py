"""Datasets in one schema (builders, loaders) and the bundled demo data."""
