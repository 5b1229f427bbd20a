// Knowledge crystals filtered by state, user, minimum strength and (optionally) a concept norm,
// strongest first, with the names of their concepts. $verification 'unverified' keeps the
// unverified ones only, 'archived' leaves them out (an inactive insight is one or the other).
MATCH (k:KnowledgeCrystal)
WHERE ($active IS NULL OR k.active = $active)
  AND ($verification IS NULL
       OR ($verification = 'unverified' AND k.verification = 'unverified')
       OR ($verification = 'archived' AND coalesce(k.verification, '') <> 'unverified'))
  AND ($user_id IS NULL OR k.user_id = $user_id)
  AND k.strength >= $min_strength
OPTIONAL MATCH (k)-[:INSIGHT_FROM_CONCEPT]->(c:Concept)
WHERE c.user_id = k.user_id
WITH k, collect(c.name) AS concepts, collect(c.norm) AS norms
WHERE $concept IS NULL OR $concept IN norms
RETURN properties(k) AS props, concepts
ORDER BY k.strength DESC, k.created_at DESC
LIMIT $limit
