// Of these cycle ids (impulse id = correlation id), the ones that recorded no FinalResponse.
UNWIND $ids AS id
OPTIONAL MATCH (r:Memory {correlation_id: id})
WHERE r.type = 'FinalResponse'
WITH id, count(r) AS responses
WHERE responses = 0
RETURN id
