// A user's facts of record (they carry a subject key), newest first; with $current_only just the
// ones still valid (no valid_until).
MATCH (f:Fact)
WHERE f.user_id = $user_id AND f.subject_key IS NOT NULL
  AND ($current_only = false OR f.valid_until IS NULL)
RETURN properties(f) AS props
ORDER BY f.created_at DESC
LIMIT $limit
