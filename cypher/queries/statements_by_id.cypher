// The user's messages with these ids (withdrawn ones aside): the sentences a claim's quote was
// copied from, so a question is answered from what the user said around it, not from the few
// words the reading copied ("She is expecting again" without "the baby is due in October").
MATCH (n:UserImpulse)
WHERE n.id IN $ids AND n.user_id = $user_id AND coalesce(n.withdrawn, false) = false
RETURN properties(n) AS props
