// Approximate nearest points of one collection, filtered, best first. Neo4j's cosine score is
// (1 + cosine) / 2: 2 * score - 1 is the cosine similarity thea's other vector stores return.
CALL db.index.vector.queryNodes('__LABEL__', $k, $vector) YIELD node, score
WITH node AS p, 2.0 * score - 1.0 AS score
WHERE ($types IS NULL OR p.type IN $types)
  AND ($user_id IS NULL OR p.user_id = $user_id)
  AND ($active IS NULL OR p.active = $active)
  AND ($created_from IS NULL OR p.created_at >= $created_from)
  AND ($created_to IS NULL OR p.created_at < $created_to)
RETURN p.node_id AS node_id, p.chunk AS chunk, p.type AS type, p.text AS text, p.user_id AS user_id,
       p.active AS active, p.created_at AS created_at, score
ORDER BY score DESC
