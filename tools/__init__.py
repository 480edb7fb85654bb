"""Built-in tools of the `doc` profile, one module per family.

Each module exports ``TOOLS``: a list of @tool functions in registration
order. ``gaia_lite.tools.catalog.doc_tools()`` assembles the profile.
"""
