"""Model server access: OpenAI-compatible client, text-call parsing, model capabilities."""
