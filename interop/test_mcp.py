"""`fcm-emu mcp` driven by the official Model Context Protocol Python SDK's stdio client.

The client launches the server as an MCP host would (Claude Desktop, `claude mcp add`), with
`mcp.client.stdio.stdio_client`, and calls the tools as an agent does (docs/mcp.md).
"""
import asyncio
import json
import os
import re
import subprocess
import urllib.request

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

BINARY = os.environ.get("FCM_EMU_BIN", os.path.join(os.path.dirname(__file__), "..", ".build", "debug", "fcm-emu"))
TOOLS = {"create_project", "create_device", "list_devices", "set_device_state", "send_message", "read_inbox", "advance_clock",
         "why", "list_events"}
PROJECT = "mcp-interop"


def run(session_body):
    """Runs `session_body(session)` against a fresh `fcm-emu mcp` (its own emulator, no state on disk)."""
    async def main():
        params = StdioServerParameters(command=BINARY, args=["mcp", "--set", "stateDir=none"])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.server_info.name == "fcm-emu"
                # The emulator's address is in the instructions, for the agent to point an app at.
                session.emulator_url = re.search(r"http://127\.0\.0\.1:\d+", init.instructions).group(0)
                return await session_body(session)
    return asyncio.run(asyncio.wait_for(main(), 60))


def text(result):
    return "\n".join(item.text for item in result.content if item.type == "text")


def test_send_read_and_advance():
    async def body(session):
        listed = await session.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS
        for tool in listed.tools:
            assert tool.input_schema["type"] == "object" and tool.description

        made = await session.call_tool("create_project", {"id": PROJECT})
        assert not made.is_error, text(made)
        assert made.structured_content["id"] == PROJECT
        device = await session.call_tool("create_device", {"project": PROJECT, "platform": "android", "name": "pixel"})
        assert not device.is_error, text(device)
        token = device.structured_content["token"]

        sent = await session.call_tool(
            "send_message", {"project": PROJECT, "message": {"token": token, "notification": {"title": "Hello"}, "data": {"k": "v"}}})
        assert not sent.is_error, text(sent)
        name = sent.structured_content["name"]
        assert name.startswith(f"projects/{PROJECT}/messages/")

        inbox = await session.call_tool("read_inbox", {"project": PROJECT, "device": "pixel"})
        assert not inbox.is_error, text(inbox)
        assert inbox.structured_content["total"] == 1
        assert inbox.structured_content["deliveries"][0]["messageId"] == name.rsplit("/", 1)[1]
        assert "1 delivery" in text(inbox)

        # Offline, a message waits until its TTL, then expires (FCM's "Set message lifespan").
        offline = await session.call_tool("set_device_state", {"project": PROJECT, "device": "pixel", "state": "offline"})
        assert not offline.is_error and offline.structured_content["state"] == "offline", text(offline)
        waiting = await session.call_tool(
            "send_message", {"project": PROJECT, "message": {"token": token, "data": {"n": "2"}, "android": {"ttl": "60s"}}})
        assert not waiting.is_error, text(waiting)
        advanced = await session.call_tool("advance_clock", {"duration": "10m"})
        assert not advanced.is_error, text(advanced)
        assert text(advanced).startswith("Clock now ")
        events = await session.call_tool("list_events", {"project": PROJECT, "kind": "expired", "limit": 10})
        assert not events.is_error, text(events)
        assert [event["messageId"] for event in events.structured_content["events"]] == [waiting.structured_content["name"].rsplit("/", 1)[1]]
        # `why` tells the same story as `fcm-emu why`: the newest outcome first.
        why = await session.call_tool("why", {"project": PROJECT, "device": "pixel"})
        assert not why.is_error, text(why)
        assert why.structured_content["outcomes"][0]["kind"] == "expired", text(why)
        assert "story: expired" in text(why) and "outcomes, newest first:" in text(why), text(why)

        # One access token for every send, until the project's tokens are revoked; then a new one.
        grants = await session.call_tool("list_events", {"project": PROJECT, "kind": "accessTokenGranted"})
        assert len(grants.structured_content["events"]) == 1, text(grants)
        revoke = urllib.request.Request(f"{session.emulator_url}/emulator/v1/projects/{PROJECT}/accessTokens:revoke", data=b"{}", method="POST",
                                        headers={"Content-Type": "application/json"})
        urllib.request.urlopen(revoke, timeout=10).read()
        later = await session.call_tool("send_message", {"project": PROJECT, "message": {"token": token, "data": {"n": "3"}}})
        assert not later.is_error, text(later)
        grants = await session.call_tool("list_events", {"project": PROJECT, "kind": "accessTokenGranted"})
        assert len(grants.structured_content["events"]) == 2, text(grants)

        listed = await session.call_tool("list_devices", {"project": PROJECT})
        assert listed.structured_content["total"] == 1 and "1 device in" in text(listed)

        # An FCM refusal is a failed call with FCM's own error.
        refused = await session.call_tool("send_message", {"project": PROJECT, "message": {"token": "not-a-token", "data": {"k": "v"}}})
        assert refused.is_error
        assert "400" in text(refused) and "INVALID_ARGUMENT" in text(refused)
    run(body)


def test_errors():
    async def body(session):
        await session.call_tool("create_project", {"id": PROJECT})
        missing = await session.call_tool("read_inbox", {"project": PROJECT, "device": "no-such-device"})
        assert missing.is_error
        assert "404" in text(missing) and "no-such-device" in text(missing)

        # `why` names an unknown device as such, in any project.
        why = await session.call_tool("why", {"device": "no-such-device"})
        assert why.is_error and "no device 'no-such-device'" in text(why)

        bad = await session.call_tool("set_device_state", {"project": PROJECT, "device": "x", "state": "asleep"})
        assert bad.is_error and "state must be one of foreground" in text(bad)
        extra = await session.call_tool("advance_clock", {"duration": "soon"})
        assert extra.is_error and "duration" in text(extra)
        too_many = await session.call_tool("list_events", {"project": PROJECT, "limit": 5000})
        assert too_many.is_error and "limit must be an integer from 1 to 200" in text(too_many)

        # An unknown tool is a protocol error, not a tool result.
        with pytest.raises(MCPError):
            await session.call_tool("no_such_tool", {})
    run(body)


def test_stops_when_stdin_closes():
    process = subprocess.Popen([BINARY, "mcp", "--set", "stateDir=none"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=30) == 0
    assert process.stdout.read() == b""


def test_requests_written_before_stdin_closes_are_all_answered():
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pipe", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "create_project", "arguments": {"id": PROJECT}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "list_devices", "arguments": {"project": PROJECT}}},
    ]
    done = subprocess.run([BINARY, "mcp", "--set", "stateDir=none"], input="".join(json.dumps(r) + "\n" for r in requests).encode(),
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [answer["id"] for answer in answers] == [1, 2, 3]
    assert answers[2]["result"]["structuredContent"]["total"] == 0
