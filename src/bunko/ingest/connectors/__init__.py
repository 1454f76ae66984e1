"""Sources a collection syncs from: `base.Source` and its implementations (folder, s3, git, web, sql);
`registry` keeps them in `<collection>/sources.toml`. `ingest/sync.py` brings them into the store."""
