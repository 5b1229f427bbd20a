// How many of a user's messages since $since wait for the slow loop to read their claims (issue 38:
// the slow loop shows itself). A message it read carries claims_read; one that only gave orders is
// withdrawn.
MATCH (n:UserImpulse)
WHERE n.user_id = $user_id AND n.kind IN $kinds AND coalesce(n.claims_read, false) = false
  AND coalesce(n.withdrawn, false) = false AND n.created_at >= $since
RETURN count(n) AS unread
