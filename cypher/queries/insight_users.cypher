// Users that have at least two active insights (candidates for a scheduled reflection).
MATCH (k:KnowledgeCrystal)
WHERE k.active = true AND k.user_id IS NOT NULL
WITH k.user_id AS user_id, count(k) AS n
WHERE n >= 2
RETURN user_id
ORDER BY user_id
