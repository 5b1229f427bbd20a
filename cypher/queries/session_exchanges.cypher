// The latest messages of one of a user's conversations, each with thea's answer (if it gave one),
// newest first (the caller turns them round).
MATCH (i:UserImpulse)
WHERE i.user_id = $user_id AND i.session_id = $session_id
OPTIONAL MATCH (r:FinalResponse)-[:IS_RESPONSE_TO]->(i)
RETURN properties(i) AS impulse, r.id AS response_id, r.content AS answer, r.created_at AS answered_at
ORDER BY i.created_at DESC
LIMIT $limit
