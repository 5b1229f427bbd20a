// Every insight of a user (current or superseded) derived from the given memories, and the
// insights merged from those (up to four merges deep): what forgetting those memories erases.
MATCH (k:KnowledgeCrystal)-[:DERIVED_FROM]->(source:Memory)
WHERE source.id IN $ids AND k.user_id = $user_id
OPTIONAL MATCH (merged:KnowledgeCrystal)-[:MERGED_FROM*1..4]->(k)
WITH collect(DISTINCT k) + collect(DISTINCT merged) AS found
UNWIND found AS insight
WITH DISTINCT insight
WHERE insight.user_id = $user_id
RETURN insight.id AS id
