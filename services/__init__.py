"""Cognitive services: each handles one kind of Task and returns a Report."""
