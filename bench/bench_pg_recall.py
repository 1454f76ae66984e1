"""pgvector HNSW recall@10 against exact search, on random or real (USE) vectors.

    python bench/bench_pg_recall.py 20000 random
    python bench/bench_pg_recall.py 20000 real     # needs bench/data/use-m3-*.npz from bench_retrieval.py

Random 512-d vectors are the worst case for any HNSW graph; real sentence
embeddings have neighbourhood structure. Prints one line; starts its own pgserver.
"""

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pgserver

from bunko.schema import Chunk, ParsedDocument, doc_id_for
from bunko.store.base import StoredChunk
from bunko.store.postgres import PostgresStore

root = Path(tempfile.mkdtemp())
srv = pgserver.get_server(root / "data", cleanup_mode="delete")
dsn = srv.get_uri()
N = int(sys.argv[1])
kind = sys.argv[2]
rng = np.random.default_rng(0)
if kind == "random":
    X = rng.standard_normal((N, 512))
    Q = rng.standard_normal((50, 512))
else:
    data = np.load(sorted(Path("/work/main/bench/data").glob("use-m3-*.npz"))[0])
    key = [k for k in data.files if data[k].ndim == 2]
    P = np.concatenate([data[k] for k in key])
    print("real vectors", P.shape)
    idx = rng.choice(len(P), size=min(N, len(P)), replace=False)
    X = P[idx]
    Q = P[rng.choice(len(P), 50)] + 0.05 * rng.standard_normal((50, P.shape[1]))
    N = len(X)
X = (X / np.linalg.norm(X, axis=1, keepdims=True)).astype(np.float32)
Q = (Q / np.linalg.norm(Q, axis=1, keepdims=True)).astype(np.float32)
store = PostgresStore(dsn, "r", exact_below=100)
with store.bulk_load():
    for start in range(0, N, 500):
        src = f"d{start}"
        doc = ParsedDocument(doc_id_for(src), src, src, "text/plain", "x", [], {})
        store.replace_document(doc, "h", [StoredChunk(Chunk(f"c{i}", doc.doc_id, src, i - start, "t", "t"), X[i], ["t"], f"e{i}") for i in range(start, min(N, start + 500))])
print("has index", store.has_index())
rec = []
for q in Q:
    exact = set(np.argsort(-(X @ q))[:10].tolist())
    got = {int(c[1:]) for c, _ in store.search().dense_search(q, 10)}
    rec.append(len(exact & got) / 10)
print(kind, N, "recall@10", np.mean(rec))
store.close()
srv.cleanup()
shutil.rmtree(root, ignore_errors=True)
