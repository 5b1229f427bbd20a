// A user's newest messages since $since that tell something and wait for the slow loop to read
// their claims: until then what they told is still the user's words only (a constraint told a
// moment ago bears on the next request: issue 36, item 5).
MATCH (n:UserImpulse)
WHERE n.user_id = $user_id AND n.kind IN $kinds AND coalesce(n.claims_read, false) = false
  AND coalesce(n.withdrawn, false) = false AND n.created_at >= $since
RETURN properties(n) AS props
ORDER BY n.created_at DESC
LIMIT $limit
