MATCH (n:__LABEL__)
WHERE n.created_at >= $start AND n.created_at < $end
  AND ($user_id IS NULL OR n.user_id = $user_id)
RETURN properties(n) AS props
ORDER BY n.created_at DESC
LIMIT $limit
