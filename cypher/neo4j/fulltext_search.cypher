// Keyword (full-text) search over node content: for each word of $queries, its best $limit
// matches, word after word (a node matching two words comes twice), best first within a word,
// ties by id so the cut at $limit is the same on every run. One round trip for all the words.
UNWIND range(0, size($queries) - 1) AS i
CALL db.index.fulltext.queryNodes('memory_content', $queries[i]) YIELD node, score
WHERE ($types IS NULL OR node.type IN $types)
  AND ($user_id IS NULL OR node.user_id = $user_id)
WITH i, node, score
ORDER BY i, score DESC, node.id
WITH i, collect({props: properties(node), score: score})[..$limit] AS hits
ORDER BY i
UNWIND hits AS hit
RETURN hit.props AS props, hit.score AS score
