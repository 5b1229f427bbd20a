// MERGE nodes of one label on id, overwrite their properties. Rows: {id, props}
UNWIND $rows AS row
MERGE (n:Memory {id: row.id})
SET n += row.props
SET n:__LABEL__
RETURN count(n) AS written
