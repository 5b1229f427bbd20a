// One page of a user's active insights with the ids of their concepts (keyset on id).
MATCH (k:KnowledgeCrystal)
WHERE k.active = true AND k.user_id = $user_id AND k.id > $after
WITH k ORDER BY k.id ASC LIMIT $limit
OPTIONAL MATCH (k)-[:INSIGHT_FROM_CONCEPT]->(c:Concept)
WHERE c.user_id = $user_id
RETURN k.id AS id, k.content AS content, k.strength AS strength, collect(c.id) AS concepts
ORDER BY id ASC
