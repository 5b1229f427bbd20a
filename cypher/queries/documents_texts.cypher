// The chunks of several documents, in order within each: joined, each document's pasted text
// (the export gives a pasted message whole).
MATCH (n:DocumentChunk)
WHERE n.document_id IN $document_ids
RETURN n.document_id AS document_id, n.content AS content
ORDER BY n.document_id ASC, n.chunk_index ASC
