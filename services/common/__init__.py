"""Shared by every role: the service base, model calls, limits, tokens, dates, notation."""
