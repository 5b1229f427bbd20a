// A user's conversations (sessions of live chat messages), the latest first: when each began and
// last spoke, how many messages it holds and its first message (its title).
MATCH (n:UserImpulse)
WHERE n.user_id = $user_id AND n.session_id IS NOT NULL
WITH n ORDER BY n.created_at ASC
WITH n.session_id AS session_id, collect(n.content) AS texts, min(n.created_at) AS started_at,
     max(n.created_at) AS last_at, count(n) AS messages
RETURN session_id, texts[0] AS first_text, started_at, last_at, messages
ORDER BY last_at DESC
LIMIT $limit
