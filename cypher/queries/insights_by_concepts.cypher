// One user's insights linked to any of the given concepts (by id), still valid (not superseded),
// newest first: the insights a later statement or fact may support or contradict. Starts from
// each concept by id and walks its INSIGHT_FROM_CONCEPT edges: no scan of all insights.
UNWIND $concepts AS cid
MATCH (c:Memory {id: cid})<-[:INSIGHT_FROM_CONCEPT]-(k:KnowledgeCrystal)
WHERE k.user_id = $user_id AND k.valid_until IS NULL AND NOT k.id IN $exclude
WITH DISTINCT k
ORDER BY k.created_at DESC
LIMIT $limit
RETURN properties(k) AS props
