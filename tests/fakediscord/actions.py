"""What tests do as people in the fake world: users post messages, run slash commands and
autocomplete, click buttons, pick from selects and submit modals (each dispatched to the
bots as Discord would), and admins change roles, overwrites and threads."""

from __future__ import annotations

import secrets
from typing import Any

from .gateway import Gateway
from .models import (
    BOT_ROLE_PERMISSIONS,
    GUILD_TEXT,
    FakeMessage,
    FakeRole,
    InteractionHandle,
    iso_now,
)


class Actions(Gateway):
    """Acting as users and admins; each call returns what a test waits on next."""

    async def update_role(
        self,
        guild_id: int,
        role_id: int,
        *,
        mentionable: bool | None = None,
        permissions: int | None = None,
    ) -> FakeRole:
        """Change a role as an admin would; GUILD_ROLE_UPDATE tells the bots."""
        role = self.guilds[guild_id].roles[role_id]
        if mentionable is not None:
            role.mentionable = mentionable
        if permissions is not None:
            role.permissions = permissions
        await self._flush_soon()
        await self.dispatch(
            "GUILD_ROLE_UPDATE", {"guild_id": str(guild_id), "role": role.payload()}, guild_id
        )
        return role

    async def set_overwrite(
        self,
        channel_id: int,
        target_id: int,
        *,
        allow: int = 0,
        deny: int = 0,
        member: bool = True,
    ) -> None:
        """A channel permission overwrite for a member (or a role); CHANNEL_UPDATE tells bots."""
        channel = self.channels[channel_id]
        channel.overwrites[target_id] = (1 if member else 0, allow, deny)
        await self._flush_soon()  # a CHANNEL_CREATE still queued must arrive first
        await self.dispatch("CHANNEL_UPDATE", channel.payload(), channel.guild_id)

    async def set_member_roles(self, guild_id: int, user_id: int, roles: list[int]) -> None:
        """Give a member exactly these roles (seen by REST member fetches)."""
        self.guilds[guild_id].members[user_id].roles = list(roles)
        await self._notify()

    async def archive_thread(self, thread_id: int, *, locked: bool = False) -> None:
        thread = self.channels[thread_id]
        thread.archived = True
        thread.locked = locked
        thread.archive_timestamp = iso_now()
        await self.dispatch("THREAD_UPDATE", thread.payload(), thread.guild_id)

    async def unarchive_thread(self, thread_id: int) -> None:
        thread = self.channels[thread_id]
        thread.archived = False
        thread.locked = False
        await self.dispatch("THREAD_UPDATE", thread.payload(), thread.guild_id)

    async def user_says(
        self,
        channel_id: int,
        author_id: int,
        content: str,
        *,
        mentions: list[int] | None = None,
        reply_to: int | None = None,
        embeds: list[dict[str, Any]] | None = None,
    ) -> FakeMessage:
        """A user posts a message; MESSAGE_CREATE is dispatched to connected bots."""
        channel = self.channels[channel_id]
        body: dict[str, Any] = {"content": content, "embeds": embeds or []}
        if reply_to is not None:
            body["message_reference"] = {"message_id": reply_to}
        payload = self._new_message(channel, self.users[author_id], body, extra_mentions=mentions)
        message = FakeMessage(payload=payload)
        self._store(message)
        if channel.is_thread and channel.archived and not channel.locked:
            channel.archived = False
            await self.dispatch("THREAD_UPDATE", channel.payload(), channel.guild_id)
        await self.dispatch("MESSAGE_CREATE", payload, channel.guild_id)
        return message

    def _interaction_base(
        self,
        itype: int,
        user_id: int,
        channel_id: int,
        guild_id: int | None,
        data: dict[str, Any] | None,
        message: FakeMessage | None = None,
    ) -> InteractionHandle:
        iid = self.snowflake()
        token = f"tok-{iid}-{secrets.token_hex(8)}"
        channel = self.channels.get(channel_id)
        if guild_id is None and channel is not None:
            guild_id = channel.guild_id
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "token": token,
            "version": 1,
            "channel_id": str(channel_id),
            "channel": channel.payload(self.users)
            if channel
            else {"id": str(channel_id), "type": GUILD_TEXT},
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": 26214400,
            "app_permissions": str(BOT_ROLE_PERMISSIONS),
            "authorizing_integration_owners": {"0": str(guild_id)}
            if guild_id
            else {"1": str(user_id)},
            "context": 0 if guild_id else 1,
        }
        if data is not None:
            payload["data"] = data
        if guild_id is not None:
            guild = self.guilds[guild_id]
            payload["guild_id"] = str(guild_id)
            payload["guild_locale"] = "en-US"
            payload["guild"] = {"id": str(guild_id), "locale": "en-US", "features": []}
            payload["member"] = self._member_payload(guild, user_id, with_permissions=True)
        else:
            payload["user"] = self.users[user_id].payload()
        if message is not None:
            payload["message"] = message.payload
        handle = InteractionHandle(
            id=iid,
            token=token,
            type=itype,
            channel_id=channel_id,
            guild_id=guild_id,
            user_id=user_id,
            payload=payload,
            component_message_id=message.id if message else None,
        )
        self.interactions[iid] = handle
        self._interactions_by_token[token] = handle
        return handle

    async def _send_interaction(self, handle: InteractionHandle) -> InteractionHandle:
        await self.dispatch("INTERACTION_CREATE", handle.payload, handle.guild_id)
        return handle

    def _find_command(
        self, name: str, guild_id: int | None, cmd_type: int
    ) -> dict[str, Any] | None:
        candidates = list(self.guild_commands.get(guild_id or 0, [])) + list(self.global_commands)
        for cmd in candidates:
            if cmd["name"] == name and int(cmd.get("type", 1)) == cmd_type:
                return cmd
        return None

    async def slash(
        self,
        name: str,
        options: list[dict[str, Any]] | dict[str, Any] | None = None,
        *,
        user_id: int,
        channel_id: int,
        guild_id: int | None = None,
        subcommand: str | list[str] | None = None,
        resolved: dict[str, Any] | None = None,
        cmd_type: int = 1,
    ) -> InteractionHandle:
        """Invoke an application command (INTERACTION_CREATE type 2).

        ``options`` is either the raw option list or a ``{name: value}`` dict (types are guessed:
        str 3, bool 5, int 4, float 10). ``subcommand`` may be ``"sub"`` or ``["group", "sub"]``.
        """
        channel = self.channels.get(channel_id)
        if guild_id is None and channel is not None:
            guild_id = channel.guild_id
        opts = self._build_options(options)
        if resolved is None:
            resolved = self._resolve_options(opts, guild_id)
        if subcommand:
            path = [subcommand] if isinstance(subcommand, str) else list(subcommand)
            for depth, sub in enumerate(reversed(path)):
                opts = [{"name": sub, "type": 1 if depth == 0 else 2, "options": opts}]
        cmd = self._find_command(name, guild_id, cmd_type)
        data: dict[str, Any] = {
            "id": cmd["id"] if cmd else str(self.snowflake()),
            "name": name,
            "type": cmd_type,
            "options": opts,
            "resolved": resolved or {},
        }
        if cmd is not None and cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        handle = self._interaction_base(2, user_id, channel_id, guild_id, data)
        return await self._send_interaction(handle)

    def _resolve_options(self, opts: list[dict[str, Any]], guild_id: int | None) -> dict[str, Any]:
        """The `resolved` block Discord sends for user/channel/role/mentionable options."""
        out: dict[str, dict[str, Any]] = {}
        guild = self.guilds.get(guild_id or 0)
        for opt in opts:
            if opt.get("type") not in (6, 7, 8, 9):
                continue
            oid = int(opt["value"])
            if opt["type"] in (6, 9) and oid in self.users:
                out.setdefault("users", {})[str(oid)] = self.users[oid].payload()
                if guild is not None and oid in guild.members:
                    out.setdefault("members", {})[str(oid)] = self._member_payload(
                        guild, oid, with_user=False, with_permissions=True
                    )
            if opt["type"] in (8, 9):
                for g in self.guilds.values():
                    if oid in g.roles:
                        out.setdefault("roles", {})[str(oid)] = g.roles[oid].payload()
            if opt["type"] == 7 and oid in self.channels:
                ch = self.channels[oid]
                data = ch.payload(self.users)
                data["permissions"] = str(BOT_ROLE_PERMISSIONS)
                out.setdefault("channels", {})[str(oid)] = data
        return out

    @staticmethod
    def _build_options(
        options: list[dict[str, Any]] | dict[str, Any] | None,
    ) -> list[dict[str, Any]]:
        if options is None:
            return []
        if isinstance(options, list):
            return options
        built = []
        for key, value in options.items():
            if isinstance(value, bool):
                otype = 5
            elif isinstance(value, int):
                otype = 4
            elif isinstance(value, float):
                otype = 10
            else:
                otype = 3
            built.append({"name": key, "type": otype, "value": value})
        return built

    async def autocomplete(
        self,
        name: str,
        options: list[dict[str, Any]] | dict[str, Any],
        focused: str,
        *,
        user_id: int,
        channel_id: int,
        guild_id: int | None = None,
        subcommand: str | list[str] | None = None,
    ) -> InteractionHandle:
        """Autocomplete request (type 4); ``focused`` names the option being typed."""
        opts = self._build_options(options)
        for opt in opts:
            if opt["name"] == focused:
                opt["focused"] = True
        channel = self.channels.get(channel_id)
        if guild_id is None and channel is not None:
            guild_id = channel.guild_id
        if subcommand:
            path = [subcommand] if isinstance(subcommand, str) else list(subcommand)
            for depth, sub in enumerate(reversed(path)):
                opts = [{"name": sub, "type": 1 if depth == 0 else 2, "options": opts}]
        cmd = self._find_command(name, guild_id, 1)
        data: dict[str, Any] = {
            "id": cmd["id"] if cmd else str(self.snowflake()),
            "name": name,
            "type": 1,
            "options": opts,
        }
        if cmd is not None and cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        handle = self._interaction_base(4, user_id, channel_id, guild_id, data)
        return await self._send_interaction(handle)

    async def click_button(
        self,
        message_id: int,
        custom_id: str,
        user_id: int,
        *,
        component_type: int = 2,
        values: list[str] | None = None,
    ) -> InteractionHandle:
        """Click a component on a stored message (INTERACTION_CREATE type 3)."""
        message = self._message_index[message_id]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = values
        handle = self._interaction_base(3, user_id, message.channel_id, None, data, message=message)
        return await self._send_interaction(handle)

    async def select(
        self, message_id: int, custom_id: str, values: list[str], user_id: int
    ) -> InteractionHandle:
        return await self.click_button(
            message_id, custom_id, user_id, component_type=3, values=values
        )

    async def submit_modal(
        self,
        custom_id: str,
        values: dict[str, str],
        *,
        user_id: int,
        channel_id: int,
        guild_id: int | None = None,
        message_id: int | None = None,
    ) -> InteractionHandle:
        """Submit a modal (type 5); ``values`` maps text-input custom_id -> value."""
        components = [
            {"type": 1, "components": [{"type": 4, "custom_id": k, "value": v}]}
            for k, v in values.items()
        ]
        message = self._message_index.get(message_id) if message_id else None
        handle = self._interaction_base(
            5,
            user_id,
            channel_id,
            guild_id,
            {"custom_id": custom_id, "components": components},
            message=message,
        )
        return await self._send_interaction(handle)
