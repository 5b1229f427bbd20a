// Remove every point (chunk) of the given nodes from one collection.
MATCH (p:__LABEL__)
WHERE p.node_id IN $node_ids
DELETE p
RETURN count(*) AS deleted
