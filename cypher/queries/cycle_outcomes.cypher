// For every impulse of users whose id starts with $prefix: how many final responses and
// crystals it has, and the crystals' ids (once the queues are drained: one response, one model
// crystal, plus the grounded restatement when the model's insight was unsupported).
MATCH (i:UserImpulse)
WHERE i.user_id STARTS WITH $prefix
OPTIONAL MATCH (r:FinalResponse)-[:IS_RESPONSE_TO]->(i)
WITH i, count(DISTINCT r) AS responses
OPTIONAL MATCH (k:KnowledgeCrystal)-[:DERIVED_FROM]->(i)
RETURN i.id AS id, responses, count(DISTINCT k) AS crystals, collect(DISTINCT k.id) AS crystal_ids
