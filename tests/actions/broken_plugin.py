"""A plugin without a `toolset`, to check the error names it."""

TOOLS = ()
