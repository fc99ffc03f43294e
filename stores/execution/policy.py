"""Policy of tool calls: environments, approval, pinned definitions, secrets filled at the edge.

Pure functions over :class:`~stores.catalog.model.ToolSpec` and plain data, used by the executor
(at execution time, whatever the plan says) and by the approval step:

- **Environments**: a run may only reach the environments of its allow-list; a tool tagged for
  another environment is never called, an untagged tool may be read from but never written to.
- **Destructive by our policy**: tool-name patterns (``cancel_*``, ``delete_*`` ...) decide which
  calls need a person's approval; a server's ``destructiveHint`` is never trusted to waive it.
- **Pinned definitions**: each tool's definition hash is pinned when it is indexed; a tool whose
  live definition differs (a "rug pull") is disabled until it is re-indexed and approved.
- **Secrets at the edge**: a tool's secret-named parameters are filled at call time from
  ``ZSPACE_SECRET_<NAME>`` so the plan never holds them (what counts as a secret, redaction
  and masking live in :mod:`stores.secrets`).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from stores.catalog.model import DEFINITION_HASH_KEY, DESTRUCTIVE_KEY, ToolSpec
from stores.secrets import SECRET_ENV_PREFIX, SECRETS, is_secret_name

Decision = Literal["allow", "needs_approval", "refuse"]


# ------------------------------------------------------------------------ environments
def environment_allows(
    environment: str | None, side_effect: bool, allowed: Sequence[str] | None
) -> bool:
    """Return whether a run with this allow-list may call a tool of this environment.

    The one environment rule: the planner's candidates, the index's filter and the executor's
    refusal all ask it. A tool tagged for an allowed environment may be called; an untagged
    tool only by a call that cannot write; a tool tagged for any other environment never.

    Args:
        environment: The tool's environment tag; None (or ``""``) when untagged.
        side_effect: Whether the call may write; an unknown side effect counts as writing.
        allowed: The run's environment allow-list; None switches the rule off.
    """
    if allowed is None:
        return True
    if environment:
        return environment in allowed
    return not side_effect


def environment_refusal(
    spec: ToolSpec, side_effect: bool, allowed: Sequence[str] | None
) -> str | None:
    """Return why the environment rule forbids a call, or None when it may run.

    Args:
        spec: The tool.
        side_effect: Whether this call may write (the executor's effective view).
        allowed: The run's environment allow-list; None disables the policy.
    """
    if allowed is None or environment_allows(spec.environment, side_effect, allowed):
        return None
    return f"tool {spec.id!r} was not called: {environment_fix(spec, allowed)}"


def listed_over_mcp(spec: ToolSpec) -> bool:
    """Whether the tool came from an MCP server (its definition hash was pinned at indexing)."""
    return spec.source.startswith("mcp:") or DEFINITION_HASH_KEY in spec.annotations


def environment_fix(spec: ToolSpec, allowed: Sequence[str]) -> str:
    """Why the environment rule refuses the tool, and the one change that allows it.

    A tool tagged for another environment is allowed by adding that environment to the
    run's allow-list; an untagged one that may write, by one line in its server's entry of
    the MCP config (``"environment": "test"``, then index again) or in its catalog entry.

    Args:
        spec: The refused tool.
        allowed: The run's environment allow-list.
    """
    if spec.environment:
        return (
            f"it belongs to environment {spec.environment!r} and this run may only reach "
            f"{list(allowed)}; to allow it, run with --env {spec.environment} (Context "
            f"environments=[..., {spec.environment!r}])"
        )
    target = allowed[0] if allowed else "test"
    if listed_over_mcp(spec):
        server = spec.agent  # an MCP tool's agent is its server's name in the config
        where = (
            f'add "environment": "{target}" to the "{server}" entry of your MCP config '
            "(mcp.json), then run `zspace index --mcp CONFIG` again"
        )
        owner = f"server {server!r}"
    else:
        where = (
            f'add "environment": "{target}" to tool {spec.name!r} in its catalog'
            + (f" ({spec.source})" if spec.source else "")
            + ", then index it again"
        )
        owner = "it"
    return (
        f"it may write and {owner} has no environment tag, so the policy lets a run only "
        f"read from it; to allow writes, {where}"
    )


# ------------------------------------------------------------------------ approval
def is_destructive(tool_id: str, patterns: Sequence[str]) -> bool:
    """Return whether our policy (tool-name patterns, not a server's hint) needs approval."""
    name = tool_id.split("/", 1)[-1]
    return any(fnmatch.fnmatch(name, pattern) for pattern in patterns)


def declared_destructive(spec: ToolSpec | None) -> bool:
    """Whether our ingestion marked the tool destructive (an OpenAPI DELETE operation).

    Only zspace's own ingestion sets the flag; it adds an approval, never waives one.
    """
    return spec is not None and spec.annotations.get(DESTRUCTIVE_KEY) is True


def approval_needed(
    tool_id: str,
    patterns: Sequence[str],
    *,
    approved: bool = False,
    pre_approved: bool = False,
    declared: bool = False,
) -> bool:
    """Return whether a call must wait for a person: the one approval gate.

    :func:`decide` applies it after the environment rule; the ``approve`` node and
    ``call_tool`` apply it to planned calls, which carry a tool id but no :class:`ToolSpec`.

    Args:
        tool_id: The tool of the call.
        patterns: Tool-name patterns that are destructive by our policy.
        approved: A person approved this exact call.
        pre_approved: The run pre-approves destructive calls.
        declared: The tool's source declares it destructive (:func:`declared_destructive`).
    """
    destructive = declared or is_destructive(tool_id, patterns)
    return destructive and not (approved or pre_approved)


@dataclass(frozen=True)
class PolicyVerdict:
    """What the policy says about one call before it runs."""

    decision: Decision
    reason: str


def decide(
    spec: ToolSpec,
    *,
    allowed_environments: Sequence[str] | None,
    destructive_patterns: Sequence[str],
    approved: bool = False,
    pre_approved: bool = False,
    side_effect: bool | None = None,
) -> PolicyVerdict:
    """Judge a call as if the planner (or a compromised model) asked for it.

    Args:
        spec: The tool.
        allowed_environments: The run's allow-list (None: no environment policy).
        destructive_patterns: Tool-name patterns that need approval.
        approved: A person approved this exact call.
        pre_approved: The run pre-approves destructive calls.
        side_effect: The call's effective side effect (default: unknown counts as writing).
    """
    writes = spec.side_effect is not False if side_effect is None else side_effect
    refusal = environment_refusal(spec, writes, allowed_environments)
    if refusal is not None:
        return PolicyVerdict("refuse", refusal)
    if approval_needed(
        spec.id, destructive_patterns, approved=approved, pre_approved=pre_approved,
        declared=declared_destructive(spec),
    ):
        return PolicyVerdict(
            "needs_approval", f"tool {spec.id!r} is destructive by policy: a person must approve"
        )
    return PolicyVerdict("allow", "allowed")


# ------------------------------------------------------------------------ pinned definitions
def pinned_hash(spec: ToolSpec) -> str:
    """Return the definition hash pinned at index time (MCP), else the catalog content hash."""
    pinned = spec.annotations.get(DEFINITION_HASH_KEY)
    return str(pinned) if pinned else spec.content_hash()


def definition_refusal(spec: ToolSpec, live_hash: str | None) -> str | None:
    """Return why a tool is disabled because its live definition changed, or None.

    Args:
        spec: The tool as indexed (with its pinned hash).
        live_hash: The hash of the definition the server lists now; ``""`` when the server no
            longer lists the tool; None when unknown (no check possible).
    """
    pinned = spec.annotations.get(DEFINITION_HASH_KEY)
    if live_hash is None or not pinned or live_hash == pinned:
        return None
    if live_hash == "":
        change = "is no longer listed by its server"
    else:
        change = (
            f"changed on its server since it was indexed (pinned {str(pinned)[:12]}…, "
            f"live {live_hash[:12]}…)"
        )
    return (
        f"tool {spec.id!r} {change}; it is disabled until it is re-indexed (`zspace index "
        "--mcp CONFIG`) and its new definition approved, so it was not called"
    )


def injected_secrets(
    spec: ToolSpec, args: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Return secret arguments to add at call time, read from ``ZSPACE_SECRET_<PARAM>``.

    One for each secret-named parameter of the tool's schema that the plan did not bind.

    The plan (and so state and checkpoints) never holds these values.
    """
    environ = os.environ if environ is None else environ
    found: dict[str, str] = {}
    for param in (spec.input_schema.get("properties") or {}):
        if param in args or not is_secret_name(param):
            continue
        variable = SECRET_ENV_PREFIX + re.sub(r"[^A-Za-z0-9]+", "_", param).upper()
        value = environ.get(variable)
        if value:
            SECRETS.add(value)
            found[param] = value
    return found
