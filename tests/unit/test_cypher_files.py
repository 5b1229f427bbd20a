"""Cypher files that spell out closed sets must stay in step with the model."""

from __future__ import annotations

import re

from tests.processes import ROOT
from thea.models import CONCEPT_RELATIONS


def test_spreading_activation_walks_every_concept_relation_type() -> None:
    text = (ROOT / "cypher" / "queries" / "recall_concept_neighbours.cypher").read_text()
    match = re.search(r"\[r:([A-Z_|]+)\]", text)
    assert match, "the relation types must be listed in the pattern (so hubs' memory links are not walked)"
    assert set(match.group(1).split("|")) == {r.value for r in CONCEPT_RELATIONS}
