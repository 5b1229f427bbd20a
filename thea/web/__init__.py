"""The web page (static HTML, JS, CSS) that the thea service serves at ``/``."""

from pathlib import Path

STATIC = Path(__file__).parent / "static"
