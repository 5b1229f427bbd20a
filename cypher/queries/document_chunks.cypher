// The chunks of one user's document, in order (the document's text is their concatenation).
MATCH (n:DocumentChunk)
WHERE n.document_id = $document_id AND n.user_id = $user_id
RETURN properties(n) AS props
ORDER BY n.chunk_index ASC
