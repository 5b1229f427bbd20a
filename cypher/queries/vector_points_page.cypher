// One page of a collection's points in point-id order (keyset: after the last point id seen).
MATCH (p:__LABEL__)
WHERE $after IS NULL OR p.point_id > $after
RETURN p.point_id AS point_id, p.node_id AS node_id
ORDER BY point_id
LIMIT $limit
