"""The fast loop: instinct -> plan -> recall -> synthesis, and what assembles it."""
