// A user's facts of record (they carry a subject key), newest first; with $current_only just the
// ones valid at $now (no valid_until, or one still ahead: a home until a move told ahead).
MATCH (f:Fact)
WHERE f.user_id = $user_id AND f.subject_key IS NOT NULL
  AND ($current_only = false OR f.valid_until IS NULL OR f.valid_until > $now)
RETURN properties(f) AS props
ORDER BY f.created_at DESC
LIMIT $limit
