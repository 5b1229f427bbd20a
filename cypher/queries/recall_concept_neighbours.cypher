// One hop of spreading activation: currently valid typed relations touching the frontier, both directions.
// Starts from each frontier concept by id and walks only typed concept relations, never the (many)
// links from memories to the concept, and only between concepts of the asking user.
UNWIND $ids AS cid
MATCH (a:Memory {id: cid})
WHERE a.user_id = $user_id
WITH cid, a
MATCH (a)-[r:CAUSES|SOLVES|PREVENTS|IS_A|PART_OF|HAS_PROPERTY|RELATED_TO|USED_WITH|PREFERRED_OVER|CONTRADICTS|PRECEDES|REQUIRES]-(b:Concept)
WHERE type(r) IN $relations
  AND b.user_id = $user_id
  AND (r.valid_until IS NULL OR r.valid_until > $now)
RETURN cid AS src, b.id AS dst, type(r) AS relation, r.confidence AS confidence
