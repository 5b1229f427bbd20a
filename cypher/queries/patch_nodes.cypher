// Set per-node properties in one batch (graph only). Rows: {id, props}
UNWIND $rows AS row
MATCH (n:Memory {id: row.id})
SET n += row.props
RETURN count(n) AS matched
