// One user's memory nodes after an id cursor, in id order (keyset pagination): what forgetting
// searches for the words it erases.
MATCH (n:Memory)
WHERE n.user_id = $user_id AND n.id > $after_id
RETURN properties(n) AS props
ORDER BY n.id ASC
LIMIT $limit
