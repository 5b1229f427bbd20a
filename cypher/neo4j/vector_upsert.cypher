// Insert or overwrite vector points of one collection, one batch. Rows: {point_id, vector, props}
UNWIND $rows AS row
MERGE (p:__LABEL__ {point_id: row.point_id})
SET p += row.props, p.embedding = row.vector
RETURN count(p) AS written
