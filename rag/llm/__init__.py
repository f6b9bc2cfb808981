"""Talking to an OpenAI-compatible endpoint: the client (retries, breaker, fallback, structured replies),
per-stage LLM deadlines, the judge check, reply usability counts and a local server."""
