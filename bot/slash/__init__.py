"""Slash commands: /remind, /jobs, /timezone, /help — jobs managed without the model.

`bot.slash.setup.install(bot)` registers them; `bot.slash.setup.sync(bot)` publishes them.
"""
