"""Homar's running app: Discord client, dispatcher, transports, CLI and settings."""
