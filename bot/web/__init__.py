"""The web dashboard: see and manage jobs in a browser, served by the running bot.

Server-rendered HTML (Jinja2, autoescaped) with one small script of our own: pages work
without JavaScript, the script adds the live time preview and live updates (server-sent
events). Every write goes through the same engine commands as the slash commands.
"""
