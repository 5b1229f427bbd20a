CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (n:Memory) REQUIRE n.id IS UNIQUE
;
DROP CONSTRAINT concept_alias_norm IF EXISTS
;
CREATE CONSTRAINT concept_alias_user_norm IF NOT EXISTS FOR (n:ConceptAlias) REQUIRE (n.user_id, n.norm) IS UNIQUE
;
CREATE INDEX memory_correlation IF NOT EXISTS FOR (n:Memory) ON (n.correlation_id)
;
CREATE INDEX memory_embed_pending IF NOT EXISTS FOR (n:Memory) ON (n.embed_pending)
;
CREATE INDEX memory_time IF NOT EXISTS FOR (n:Memory) ON (n.created_at)
;
CREATE INDEX concept_norm IF NOT EXISTS FOR (n:Concept) ON (n.norm)
;
CREATE INDEX crystal_active IF NOT EXISTS FOR (n:KnowledgeCrystal) ON (n.active)
;
CREATE INDEX impulse_time IF NOT EXISTS FOR (n:UserImpulse) ON (n.created_at)
;
CREATE INDEX turn_time IF NOT EXISTS FOR (n:DialogueTurn) ON (n.created_at)
;
CREATE INDEX fact_time IF NOT EXISTS FOR (n:Fact) ON (n.created_at)
;
CREATE INDEX chunk_document IF NOT EXISTS FOR (n:DocumentChunk) ON (n.document_id)
;
CREATE FULLTEXT INDEX memory_content IF NOT EXISTS FOR (n:Memory) ON EACH [n.content]
