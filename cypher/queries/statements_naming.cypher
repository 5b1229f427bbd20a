// The user's newest messages that tell something and hold one of these words (lower-cased;
// withdrawn ones aside): what they said of someone of their record by name ("Tango"), when the
// question asks about them in other words ("my dog") and recall, by meaning, found only the
// message that introduced them. Code keeps those holding the name as a word.
MATCH (n:UserImpulse)
WHERE n.user_id = $user_id AND n.kind IN $kinds AND coalesce(n.withdrawn, false) = false
  AND any(w IN $words WHERE toLower(n.content) CONTAINS w)
RETURN properties(n) AS props
ORDER BY n.created_at DESC
LIMIT $limit
