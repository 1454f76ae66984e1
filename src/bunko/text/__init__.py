"""Facts about text every stage shares: which script a character is in, which language a text or token list is
in. The lowest layer: parsing, indexing, retrieval and generation all judge scripts and languages the same way."""
