"""Chat models behind one interface (`ChatModel`): an OpenAI-compatible HTTP server or an in-process GGUF model.
Beside `embed/` and below every stage that asks a model something (rerank, grade, generate)."""
