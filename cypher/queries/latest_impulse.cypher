MATCH (n:UserImpulse)
WHERE ($user_id IS NULL OR n.user_id = $user_id)
RETURN n.id AS id
ORDER BY n.created_at DESC
LIMIT 1
