// Flip the active flag of every point (chunk) of the given nodes in one collection.
MATCH (p:__LABEL__)
WHERE p.node_id IN $node_ids
SET p.active = $active
RETURN count(p) AS matched
