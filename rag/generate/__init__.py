"""Generation: OpenAI-compatible client (retries, breaker, fallback), offline extractive answerer, prompts."""
