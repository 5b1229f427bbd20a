// For every impulse of users whose id starts with $prefix: how many final responses and
// crystals it has (each must be exactly one once the queues are drained).
MATCH (i:UserImpulse)
WHERE i.user_id STARTS WITH $prefix
OPTIONAL MATCH (r:FinalResponse)-[:IS_RESPONSE_TO]->(i)
WITH i, count(DISTINCT r) AS responses
OPTIONAL MATCH (k:KnowledgeCrystal)-[:DERIVED_FROM]->(i)
RETURN i.id AS id, responses, count(DISTINCT k) AS crystals
