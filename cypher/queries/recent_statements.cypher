// A user's newest messages that tell something, read by the slow loop or not (withdrawn ones
// aside): what they told in their own words, for what a request must mind where no claim holds it
// (a constraint told a moment ago, or one the reading missed: issue 36, item 5). With every kind,
// the messages a question may name a moment by ("when I asked you for a recipe").
MATCH (n:UserImpulse)
WHERE n.user_id = $user_id AND n.kind IN $kinds AND coalesce(n.withdrawn, false) = false
RETURN properties(n) AS props
ORDER BY n.created_at DESC
LIMIT $limit
