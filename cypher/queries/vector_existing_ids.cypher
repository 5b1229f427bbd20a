// Which of the given nodes have at least one point in one collection.
MATCH (p:__LABEL__)
WHERE p.node_id IN $node_ids
RETURN DISTINCT p.node_id AS node_id
