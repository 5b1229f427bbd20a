"""Claims of record: what users tell, read by the model, kept by code."""
