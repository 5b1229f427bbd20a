CREATE INDEX FOR (n:Memory) ON (n.id)
;
CREATE INDEX FOR (n:Memory) ON (n.correlation_id)
;
CREATE INDEX FOR (n:Memory) ON (n.embed_pending)
;
CREATE INDEX FOR (n:Memory) ON (n.created_at, n.user_id, n.type)
;
CREATE INDEX FOR (n:Concept) ON (n.norm)
;
CREATE INDEX FOR (n:ConceptAlias) ON (n.norm)
;
CREATE INDEX FOR (n:ConceptAlias) ON (n.user_id)
;
CREATE INDEX FOR (n:KnowledgeCrystal) ON (n.active, n.user_id, n.created_at)
;
CREATE INDEX FOR (n:UserImpulse) ON (n.created_at, n.user_id)
;
CREATE INDEX FOR (n:DialogueTurn) ON (n.created_at, n.user_id, n.event_time)
;
CREATE INDEX FOR (n:Fact) ON (n.created_at, n.user_id, n.active)
;
CREATE INDEX FOR (n:DocumentChunk) ON (n.document_id, n.user_id)
;
CREATE FULLTEXT INDEX FOR (n:Memory) ON (n.content)
