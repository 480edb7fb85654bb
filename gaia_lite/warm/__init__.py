"""The warm agent: a kept process that has gaia-lite imported, so the next `ask` skips start-up.

Python start-up, imports (openai alone ~0.4 s) and the embedder cost an `ask` about 1.5 s of CPU
before its first model call, on top of the model's own work. The first `ask` that keeps the embedded
server alive also starts a worker (worker.py) with the same keep-alive; the `gaia-lite` command
(launch.py) hands a later `ask` to it (client.py), and the worker forks a child that runs the
`ask` exactly as the command would, in the caller's folder, environment and terminal.

Standard library only in paths.py and client.py: they run before anything else is imported.
"""
