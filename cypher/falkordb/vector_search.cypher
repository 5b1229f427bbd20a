// Approximate nearest points of one collection, filtered, best first. FalkorDB's score is the
// cosine distance: 1 - distance is the cosine similarity thea's other vector stores return.
CALL db.idx.vector.queryNodes('__LABEL__', 'embedding', $k, vecf32($vector)) YIELD node, score
WITH node AS p, 1.0 - score AS score
WHERE ($types IS NULL OR p.type IN $types)
  AND ($user_id IS NULL OR p.user_id = $user_id)
  AND ($active IS NULL OR p.active = $active)
  AND ($created_from IS NULL OR p.created_at >= $created_from)
  AND ($created_to IS NULL OR p.created_at < $created_to)
RETURN p.node_id AS node_id, p.chunk AS chunk, p.type AS type, p.text AS text, p.user_id AS user_id,
       p.active AS active, p.created_at AS created_at, score
ORDER BY score DESC
