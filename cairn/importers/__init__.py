"""Importers: bring the decision history a repository already holds into the log."""
