"""Actions: the tools a delayed command can use when it fires (MCP servers, plugins, the thread).

No Discord here: the thread actions are a protocol (`thread.ThreadActions`) that the bot
implements with discord.py.
"""
