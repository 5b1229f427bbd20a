// One hop of spreading activation: currently valid typed relations touching the frontier, both directions.
UNWIND $ids AS cid
MATCH (a:Concept {id: cid})-[r]-(b:Concept)
WHERE type(r) IN $relations
  AND (r.valid_until IS NULL OR r.valid_until > $now)
RETURN cid AS src, b.id AS dst, type(r) AS relation, r.confidence AS confidence
