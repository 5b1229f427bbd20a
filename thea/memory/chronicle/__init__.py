"""chronicle."""
