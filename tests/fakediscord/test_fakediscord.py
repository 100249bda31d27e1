"""Tests of the fake Discord server, driven by the real discord.py client."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
import pytest_asyncio
from discord import app_commands

from tests.fakediscord import (
    EPHEMERAL,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    running_client,
    running_fake,
)


class World:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.guild: FakeGuild = fake.add_guild("Homar Test")
        self.channel: FakeChannel = fake.add_channel(self.guild.id, "general")
        self.alice: FakeUser = fake.add_user("alice")
        self.mod_role = fake.add_role(self.guild.id, "Mods", manage_messages=True)
        fake.add_member(self.guild.id, self.alice.id, roles=[self.mod_role.id])
        self.thread: FakeChannel = fake.add_thread(self.channel.id, "work")


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with running_fake() as f:
        yield f


@pytest_asyncio.fixture
async def world(fake: FakeDiscord) -> World:
    return World(fake)


def intents() -> discord.Intents:
    i = discord.Intents.default()
    i.message_content = True
    return i


def new_client(**kwargs: Any) -> discord.Client:
    return discord.Client(intents=intents(), guild_ready_timeout=0.01, **kwargs)


@pytest.mark.asyncio
async def test_login_ready_guild_cached(fake: FakeDiscord, world: World) -> None:
    client = new_client()
    async with running_client(client):
        assert client.user is not None and client.user.id == fake.bot_user.id
        guild = client.get_guild(world.guild.id)
        assert guild is not None
        assert guild.get_channel(world.channel.id) is not None
        assert guild.get_thread(world.thread.id) is not None
        # without the members intent discord.py does not cache other members: fetch it
        member = await guild.fetch_member(world.alice.id)
        assert member.guild_permissions.manage_messages
        assert guild.me.guild_permissions.send_messages
        assert client.application_id == fake.application_id
    assert [r.path for r in fake.requests[:2]] == ["/users/@me", "/oauth2/applications/@me"]
    assert fake.identify_count == 1
    assert fake.unknown_routes == []


@pytest.mark.asyncio
async def test_user_says_reaches_on_message_and_bot_echo(fake: FakeDiscord, world: World) -> None:
    client = new_client()
    got: asyncio.Queue[discord.Message] = asyncio.Queue()

    @client.event
    async def on_message(message: discord.Message) -> None:
        await got.put(message)

    async with running_client(client):
        await fake.user_says(world.channel.id, world.alice.id, f"<@{fake.bot_user.id}> hello")
        msg = await asyncio.wait_for(got.get(), 2)
        assert msg.author.id == world.alice.id
        assert isinstance(msg.author, discord.Member)
        assert client.user in msg.mentions
        assert msg.content.endswith("hello")

        channel = client.get_channel(world.channel.id)
        assert isinstance(channel, discord.TextChannel)
        sent = await channel.send("pong", allowed_mentions=discord.AllowedMentions.none())
        echo = await asyncio.wait_for(got.get(), 2)
        assert echo.id == sent.id and echo.author.id == fake.bot_user.id
        stored = fake.get_message(sent.id)
        assert stored is not None
        assert stored.allowed_mentions == {"parse": []}


@pytest.mark.asyncio
async def test_nonce_dedup(fake: FakeDiscord, world: World) -> None:
    client = new_client()
    async with running_client(client):
        channel = client.get_channel(world.channel.id)
        assert isinstance(channel, discord.TextChannel)
        first = await channel.send("once", nonce="job-1")
        second = await channel.send("once", nonce="job-1")
        third = await channel.send("other", nonce="job-2")
        assert first.id == second.id != third.id
        assert [m.content for m in fake.messages(world.channel.id)] == ["once", "other"]
        assert fake.distinct_nonces(world.channel.id) == 2
        assert fake.nonce_dedup_hits == 1
        # outside the window the nonce is not deduplicated any more
        fake.nonce_window = -1
        fourth = await channel.send("once", nonce="job-1")
        assert fourth.id != first.id


@pytest.mark.asyncio
async def test_send_to_archived_thread_unarchives(fake: FakeDiscord, world: World) -> None:
    client = new_client()
    async with running_client(client):
        updated = asyncio.ensure_future(client.wait_for("thread_update"))
        await fake.archive_thread(world.thread.id)
        await asyncio.wait_for(updated, 2)
        guild = client.get_guild(world.guild.id)
        assert guild is not None and guild.get_thread(world.thread.id) is None
        assert client.get_channel(world.thread.id) is None
        thread = await client.fetch_channel(world.thread.id)
        assert isinstance(thread, discord.Thread) and thread.archived
        msg = await thread.send("still here")
        assert fake.messages(world.thread.id)[-1].id == msg.id
        assert not fake.channels[world.thread.id].archived
        assert any(
            d["id"] == str(world.thread.id) and not d["thread_metadata"]["archived"]
            for d in fake.iter_events("THREAD_UPDATE")
        )
        # partial messageable works too
        pm = client.get_partial_messageable(world.thread.id)
        await pm.send("via partial")
        assert fake.messages(world.thread.id)[-1].content == "via partial"


@pytest.mark.asyncio
async def test_error_codes(fake: FakeDiscord, world: World) -> None:
    client = new_client()
    async with running_client(client):
        await fake.archive_thread(world.thread.id, locked=True)
        with pytest.raises(discord.Forbidden) as exc:
            await client.get_partial_messageable(world.thread.id).send("nope")
        assert exc.value.code == 50083

        fake.close_dms(world.alice.id)
        user = await client.fetch_user(world.alice.id)
        with pytest.raises(discord.Forbidden) as exc:
            await user.send("hi")
        assert exc.value.code == 50007

        gone = fake.add_channel(world.guild.id, "gone")
        await fake.delete_channel(gone.id)
        with pytest.raises(discord.NotFound) as nf:
            await client.get_partial_messageable(gone.id).send("x")
        assert nf.value.code == 10003

        secret = fake.add_channel(world.guild.id, "secret")
        fake.deny_access(secret.id)
        with pytest.raises(discord.Forbidden) as exc:
            await client.get_partial_messageable(secret.id).send("x")
        assert exc.value.code == 50001

        with pytest.raises(discord.NotFound):
            await client.http.request(discord.http.Route("GET", "/nonexistent/thing"))
        assert ("GET", "/nonexistent/thing") in fake.unknown_routes


@pytest.mark.asyncio
async def test_slash_command_ephemeral_and_followup(fake: FakeDiscord, world: World) -> None:
    guild_obj = discord.Object(world.guild.id)

    class Bot(discord.Client):
        def __init__(self) -> None:
            super().__init__(intents=intents(), guild_ready_timeout=0.01)
            self.tree = app_commands.CommandTree(self)

        async def setup_hook(self) -> None:
            await self.tree.sync(guild=guild_obj)

    bot = Bot()

    @bot.tree.command(name="ask", description="Ask Homar", guild=guild_obj)
    async def ask(interaction: discord.Interaction, question: str) -> None:
        await interaction.response.send_message(f"thinking about {question}", ephemeral=True)
        await interaction.followup.send("done", ephemeral=True)

    @bot.tree.command(name="slow", description="Deferred")
    async def slow(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.edit_original_response(content="finished")

    async with running_client(bot):
        assert [c["name"] for c in fake.guild_commands[world.guild.id]] == ["ask"]
        handle = await fake.slash(
            "ask", {"question": "life"}, user_id=world.alice.id, channel_id=world.channel.id
        )
        resp = await handle.wait_response()
        assert resp["type"] == 4
        assert handle.ephemeral and resp["data"]["flags"] & EPHEMERAL
        assert resp["data"]["content"] == "thinking about life"
        followups = await handle.wait_followups(1)
        assert followups[0].content == "done" and followups[0].ephemeral
        assert fake.messages(world.channel.id) == []  # ephemeral messages are not in the channel

        await bot.tree.sync()  # global commands
        slow_handle = await fake.slash("slow", user_id=world.alice.id, channel_id=world.channel.id)
        original = await slow_handle.wait_original(lambda m: m.content == "finished")
        assert slow_handle.response_type == 5
        assert fake.messages(world.channel.id)[-1].id == original.id


@pytest.mark.asyncio
async def test_persistent_view_and_dynamic_item(fake: FakeDiscord, world: World) -> None:
    clicked: asyncio.Queue[str] = asyncio.Queue()

    class Persistent(discord.ui.View):
        def __init__(self) -> None:
            super().__init__(timeout=None)

        @discord.ui.button(label="Approve", custom_id="homar:approve")
        async def approve(
            self, interaction: discord.Interaction, button: discord.ui.Button[Any]
        ) -> None:
            await clicked.put("approve")
            await interaction.response.edit_message(content="approved", view=None)

    class JobButton(
        discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"homar:job:(?P<id>\d+)"
    ):
        def __init__(self, job_id: int) -> None:
            super().__init__(discord.ui.Button(label="Cancel", custom_id=f"homar:job:{job_id}"))
            self.job_id = job_id

        @classmethod
        async def from_custom_id(
            cls,
            interaction: discord.Interaction,
            item: discord.ui.Item[Any],
            match: re.Match[str],
            /,
        ) -> JobButton:
            return cls(int(match["id"]))

        async def callback(self, interaction: discord.Interaction) -> None:
            await clicked.put(f"job {self.job_id}")
            await interaction.response.send_message("cancelled", ephemeral=True)

    class Bot(discord.Client):
        async def setup_hook(self) -> None:
            self.add_view(Persistent())
            self.add_dynamic_items(JobButton)

    bot = Bot(intents=intents(), guild_ready_timeout=0.01)
    async with running_client(bot):
        channel = bot.get_channel(world.channel.id)
        assert isinstance(channel, discord.TextChannel)
        msg = await channel.send("approve?", view=Persistent())
        stored = fake.get_message(msg.id)
        assert stored is not None and stored.custom_ids() == ["homar:approve"]
        handle = await fake.click_button(msg.id, "homar:approve", world.alice.id)
        assert await asyncio.wait_for(clicked.get(), 2) == "approve"
        assert (await handle.wait_response())["type"] == 7
        assert stored.content == "approved" and stored.components == []

        view = discord.ui.View(timeout=None)
        view.add_item(JobButton(42))
        msg2 = await channel.send("job 42", view=view)
        handle2 = await fake.click_button(msg2.id, "homar:job:42", world.alice.id)
        assert await asyncio.wait_for(clicked.get(), 2) == "job 42"
        await handle2.wait_response()
        assert handle2.response_type == 4 and handle2.ephemeral


@pytest.mark.asyncio
async def test_modal_and_autocomplete(fake: FakeDiscord, world: World) -> None:
    submitted: asyncio.Queue[str] = asyncio.Queue()

    class Feedback(discord.ui.Modal, title="Feedback"):
        text: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Text", custom_id="fb:text")

        async def on_submit(self, interaction: discord.Interaction) -> None:
            await submitted.put(str(self.text.value))
            await interaction.response.defer()

    bot = discord.Client(intents=intents(), guild_ready_timeout=0.01)
    tree = app_commands.CommandTree(bot)

    async def pick_complete(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=x, value=x) for x in ("alpha", "beta") if x.startswith(current)
        ]

    @tree.command(name="feedback", description="fb")
    async def feedback(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(Feedback(custom_id="fb:modal"))

    @tree.command(name="pick", description="pick")
    @app_commands.autocomplete(item=pick_complete)
    async def pick(interaction: discord.Interaction, item: str) -> None:
        await interaction.response.send_message(item)

    async with running_client(bot):
        await tree.sync()
        h = await fake.slash("feedback", user_id=world.alice.id, channel_id=world.channel.id)
        resp = await h.wait_response()
        assert resp["type"] == 9 and resp["data"]["custom_id"] == "fb:modal"
        m = await fake.submit_modal(
            "fb:modal",
            {"fb:text": "great bot"},
            user_id=world.alice.id,
            channel_id=world.channel.id,
        )
        assert await asyncio.wait_for(submitted.get(), 2) == "great bot"
        assert (await m.wait_response())["type"] == 6

        ac = await fake.autocomplete(
            "pick", {"item": "al"}, "item", user_id=world.alice.id, channel_id=world.channel.id
        )
        resp = await ac.wait_response()
        assert resp["type"] == 8 and resp["data"]["choices"] == [
            {"name": "alpha", "value": "alpha"}
        ]


@pytest.mark.asyncio
async def test_fault_injection_retry(fake: FakeDiscord, world: World) -> None:
    client = new_client()
    async with running_client(client):
        channel = client.get_partial_messageable(world.channel.id)
        fake.inject_fault("POST", r"/channels/\d+/messages$", status=429, retry_after=0.01)
        await channel.send("after 429")
        fault = fake.inject_fault("POST", r"/channels/\d+/messages$", status=500)
        msg = await channel.send("after 500")  # discord.py sleeps 1 s then retries
        assert fault.hits == 1
        statuses = [r.status for r in fake.requests_matching("POST", r"/channels/\d+/messages$")]
        assert statuses == [429, 200, 500, 200]
        assert [m.content for m in fake.messages(world.channel.id)] == ["after 429", "after 500"]
        assert msg.content == "after 500"

        fake.inject_fault("POST", r"/channels/\d+/messages$", status=503)
        with pytest.raises(discord.DiscordServerError):
            await channel.send("503 is not retried")
        fake.inject_fault("POST", r"/channels/\d+/messages$", drop=True)
        with pytest.raises(aiohttp.ClientConnectionError):
            await channel.send("dropped")
        assert [m.content for m in fake.messages(world.channel.id)] == ["after 429", "after 500"]


@pytest.mark.asyncio
async def test_state_survives_reconnect_and_two_clients(fake: FakeDiscord, world: World) -> None:
    first = new_client()
    async with running_client(first):
        ch = first.get_channel(world.channel.id)
        assert isinstance(ch, discord.TextChannel)
        await ch.send("before restart", nonce="n1")
        # the server asks for a reconnect → discord.py resumes
        await fake.reconnect_all()
        await fake.wait_for(lambda: fake.resume_count == 1)
        await ch.send("after resume")
        await fake.wait_for_message(world.channel.id, lambda m: m.content == "after resume")

    second = new_client()
    third = new_client()
    seen: asyncio.Queue[str] = asyncio.Queue()

    @third.event
    async def on_message(message: discord.Message) -> None:
        await seen.put(message.content)

    async with running_client(second), running_client(third):
        assert len(fake.connected_sessions) == 2
        ch2 = second.get_channel(world.channel.id)
        assert isinstance(ch2, discord.TextChannel)
        history = [m.content async for m in ch2.history(limit=10)]
        assert history == ["after resume", "before restart"]
        again = await ch2.send("before restart", nonce="n1")
        assert again.content == "before restart" and fake.nonce_dedup_hits == 1
        await fake.user_says(world.channel.id, world.alice.id, "to everyone")
        assert await asyncio.wait_for(seen.get(), 2) == "to everyone"
    assert fake.identify_count == 3


@pytest.mark.asyncio
async def test_threads_created_by_bot(fake: FakeDiscord, world: World) -> None:
    client = new_client()
    async with running_client(client):
        ch = client.get_channel(world.channel.id)
        assert isinstance(ch, discord.TextChannel)
        msg = await ch.send("start")
        thread = await msg.create_thread(name="job thread")
        assert thread.id == msg.id and fake.channels[msg.id].parent_id == world.channel.id
        await thread.join()
        await thread.edit(archived=True)
        assert fake.channels[thread.id].archived
        await thread.edit(archived=False)
        assert not fake.channels[thread.id].archived
        other = await ch.create_thread(name="no message", type=discord.ChannelType.public_thread)
        assert fake.channels[other.id].type == 11
        dm = await (await client.fetch_user(world.alice.id)).create_dm()
        await dm.send("private")
        assert fake.messages(dm.id)[0].content == "private"
        edited = await msg.edit(content="edited")
        assert edited.content == "edited" and fake.get_message(msg.id) is not None
        await msg.delete()
        assert [m.content for m in fake.messages(world.channel.id)] == []


@pytest.mark.asyncio
async def test_file_upload_and_reply(fake: FakeDiscord, world: World) -> None:
    client = new_client()
    async with running_client(client):
        said = await fake.user_says(world.channel.id, world.alice.id, "log please")
        ch = client.get_partial_messageable(world.channel.id)
        original = ch.get_partial_message(said.id)
        sent = await original.reply(
            "here",
            file=discord.File(io.BytesIO(b"hello"), filename="log.txt"),
            mention_author=False,
        )
        assert sent.attachments and sent.attachments[0].filename == "log.txt"
        stored = fake.get_message(sent.id)
        assert stored is not None
        assert stored.payload["message_reference"]["message_id"] == str(said.id)
        assert (
            stored.allowed_mentions is not None and stored.allowed_mentions["replied_user"] is False
        )


@pytest.mark.asyncio
async def test_auto_sharded_client_routes_guilds(fake: FakeDiscord, world: World) -> None:
    other = fake.add_guild("Other")
    while (other.id >> 22) % 2 == (world.guild.id >> 22) % 2:
        other = fake.add_guild("Other", guild_id=other.id + (1 << 22))
    other_chan = fake.add_channel(other.id, "general")

    class Sharded(discord.AutoShardedClient):
        async def before_identify_hook(
            self, shard_id: int | None, *, initial: bool = False
        ) -> None:
            return None  # the default sleeps 5 s between shard IDENTIFYs

    client = Sharded(intents=intents(), guild_ready_timeout=0.01, shard_count=2)
    got: asyncio.Queue[discord.Message] = asyncio.Queue()

    @client.event
    async def on_message(message: discord.Message) -> None:
        await got.put(message)

    async with running_client(client):
        assert len(fake.connected_sessions) == 2
        assert (
            client.get_guild(world.guild.id) is not None and client.get_guild(other.id) is not None
        )
        await fake.user_says(other_chan.id, fake.owner_user.id, "hi from other")
        msg = await asyncio.wait_for(got.get(), 2)
        assert msg.guild is not None and msg.guild.id == other.id
        assert msg.guild.shard_id == (other.id >> 22) % 2


@pytest.mark.asyncio
async def test_auto_sharded_asks_gateway_bot(fake: FakeDiscord, world: World) -> None:
    client = discord.AutoShardedClient(intents=intents(), guild_ready_timeout=0.01)
    async with running_client(client):
        assert client.shard_count == 1
        assert client.get_guild(world.guild.id) is not None
    assert fake.requests_matching("GET", r"^/gateway/bot$")


@pytest.mark.asyncio
async def test_dm_from_user_reaches_bot(fake: FakeDiscord, world: World) -> None:
    client = new_client()
    got: asyncio.Queue[discord.Message] = asyncio.Queue()

    @client.event
    async def on_message(message: discord.Message) -> None:
        await got.put(message)

    async with running_client(client):
        dm = fake.dm_channel(world.alice.id)
        await fake.user_says(dm.id, world.alice.id, "psst")
        msg = await asyncio.wait_for(got.get(), 2)
        assert msg.guild is None and isinstance(msg.channel, discord.DMChannel)
        await msg.channel.send("hi alice")
        assert [m.content for m in fake.messages(dm.id)] == ["psst", "hi alice"]
