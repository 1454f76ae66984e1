"""`bunko serve`: HTTP API, OpenAI-compatible chat endpoint, access control and a web page.

The web stack (FastAPI, uvicorn, python-multipart) is the optional ``server``
extra; nothing here is imported by the engine, and `auth` (keys) needs none of it.
"""
