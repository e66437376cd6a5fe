"""slack-manifest.yaml asks for exactly what the Slack adapter uses.

Read with a few lines of parsing rather than a YAML library, which is not a
declared dependency.
"""

from pathlib import Path

MANIFEST = Path(__file__).resolve().parent.parent / "slack-manifest.yaml"


def items_under(key: str) -> set[str]:
    """The ``- item`` lines nested under the first ``key:`` line (comments dropped)."""
    lines = MANIFEST.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"{key}:")
    indent = len(lines[start]) - len(lines[start].lstrip())
    found = set()
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        if line.strip().startswith("- "):
            found.add(line.split("#", 1)[0].strip()[2:].strip())
    return found


def test_manifest_scopes_events_and_socket_mode():
    assert items_under("bot") == {
        "app_mentions:read",
        "assistant:write",
        "chat:write",
        "commands",
        "files:read",
        "files:write",
        "reactions:write",
        "users:read",
        "channels:history",
        "groups:history",
        "im:history",
    }
    assert items_under("bot_events") == {
        "app_mention",
        "message.channels",
        "message.groups",
        "message.im",
        "file_shared",
        "file_deleted",
        "file_unshared",
        "assistant_thread_started",
        "assistant_thread_context_changed",
    }
    assert "    - command: /papertrail" in MANIFEST.read_text().splitlines()
    assert "  socket_mode_enabled: true" in MANIFEST.read_text().splitlines()


def test_manifest_turns_on_what_buttons_and_the_assistant_view_need():
    lines = MANIFEST.read_text().splitlines()
    at = lines.index("  interactivity:")
    assert lines[at + 1].strip() == "is_enabled: true"  # block_actions: votes, questions
    assert "  assistant_view:" in lines
    prompts = items_under("suggested_prompts")
    assert {p.split(":", 1)[0] for p in prompts} == {"title"}
