// Keyword (full-text) search over node content, best first.
CALL db.index.fulltext.queryNodes('memory_content', $query) YIELD node, score
WHERE ($types IS NULL OR node.type IN $types)
  AND ($user_id IS NULL OR node.user_id = $user_id)
RETURN properties(node) AS props, score
ORDER BY score DESC
LIMIT $limit
