// Exact cosine similarity of every point the filter selects (a scan, not the vector index),
// filtered, best first (when the index's nearest points held too few that pass the filter).
MATCH (p:__LABEL__)
WHERE ($types IS NULL OR p.type IN $types)
  AND ($user_id IS NULL OR p.user_id = $user_id)
  AND ($active IS NULL OR p.active = $active)
  AND ($created_from IS NULL OR p.created_at >= $created_from)
  AND ($created_to IS NULL OR p.created_at < $created_to)
WITH p, 1.0 - vec.cosineDistance(p.embedding, vecf32($vector)) AS score
RETURN p.node_id AS node_id, p.chunk AS chunk, p.type AS type, p.text AS text, p.user_id AS user_id,
       p.active AS active, p.created_at AS created_at, score
ORDER BY score DESC
LIMIT $k
