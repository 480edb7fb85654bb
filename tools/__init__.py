"""Built-in tools of the `doc` profile, one module per family.

Each family module exports ``TOOLS``: a list of @tool functions in
registration order. ``catalog.doc_tool_specs()`` assembles the profile
(``load.py`` holds ``load_tools``, which joins only when a loader is configured).
"""
