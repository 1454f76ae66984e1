"""Search structures with no knowledge of documents, stores or questions: BM25 over sparse matrices, exact and
HNSW dense search, top-k selection, filter masks. Every store builds its search on these; nothing here imports
another bunko package except `errors` and `text`, so any layer may use them."""
