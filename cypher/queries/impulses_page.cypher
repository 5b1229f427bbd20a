// Impulses after a (created_at, id) cursor, oldest first: keyset pagination for streaming exports.
MATCH (n:UserImpulse)
WHERE (n.created_at > $after_time OR (n.created_at = $after_time AND n.id > $after_id))
  AND ($user_id IS NULL OR n.user_id = $user_id)
RETURN properties(n) AS props
ORDER BY n.created_at ASC, n.id ASC
LIMIT $limit
