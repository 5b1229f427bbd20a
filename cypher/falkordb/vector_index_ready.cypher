// Whether one collection's indexes are built (FalkorDB builds them in the background; the vector
// procedure refuses an index under construction).
CALL db.indexes() YIELD label, status
WHERE label = '__LABEL__'
RETURN status = 'OPERATIONAL' AS ready
