// How many merged insights claim each archived insight of a user (must be exactly 1).
MATCH (m:KnowledgeCrystal)-[:MERGED_FROM]->(s:KnowledgeCrystal)
WHERE s.user_id = $user_id
RETURN s.id AS id, count(m) AS n
