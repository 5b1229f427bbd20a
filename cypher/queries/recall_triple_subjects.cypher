// Concepts matching a triple pattern (?s)-[:REL]->(?o) where the known ends are given by norm.
MATCH (s:Concept)-[r]->(o:Concept)
WHERE type(r) = $relation
  AND ($subject IS NULL OR s.norm = $subject)
  AND ($object IS NULL OR o.norm = $object)
  AND (r.valid_until IS NULL OR r.valid_until > $now)
RETURN s.id AS subject, o.id AS object, r.confidence AS confidence
LIMIT 50
