"""Look-alike providers: the agent named in the query, and near-duplicate agents ranked once.

A large catalog holds many providers of the same kind of API (forks, resellers, mirrors of one
service) whose tools say nearly the same thing. Dense and BM25 scores cannot tell them apart,
so they crowd the top of the agent ranking. Two steps use what the query says about them:

- **Provider named in the query.** Users name services ("the streamer on Kick.com"). An
  agent's score is multiplied by ``1 + boost * coverage``, where coverage is the share of the
  agent's name (its words weighted by inverse document frequency over all agent names, so
  "api" or "service" count for little) that the query contains.
- **Look-alike groups.** Among the top agents, two are look-alikes when the vectors of their
  best-ranked entries are at least ``threshold`` similar. Inside a group the members are put in
  order of query-specific evidence: their best BM25 score (exact wording beats a paraphrase)
  times ``1 + name coverage``; every member after the first is moved ``demotion`` places down,
  so the group's first member keeps its place and the others make room for different agents.

Measured on StableToolBench grown with look-alike providers (``bench/results/scale.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AgentNames:
    """Every agent's name as tokens, and each token's weight (IDF over agent names)."""

    tokens: Mapping[str, frozenset[str]]
    weight: Mapping[str, float]

    @classmethod
    def build(cls, names: Mapping[str, Sequence[str]]) -> AgentNames:
        """From ``agent -> name tokens``; a token in every name weighs nothing."""
        tokens = {agent: frozenset(words) for agent, words in names.items()}
        frequency: dict[str, int] = {}
        for words in tokens.values():
            for word in words:
                frequency[word] = frequency.get(word, 0) + 1
        total = len(tokens)
        weight = {word: math.log(total / count) for word, count in frequency.items()}
        return cls(tokens, weight)

    def coverage(self, agent: str, query_tokens: frozenset[str]) -> float:
        """Share of the agent's name (by token weight) that the query contains, 0 to 1."""
        words = self.tokens.get(agent)
        if not words:
            return 0.0
        total = sum(self.weight.get(word, 0.0) for word in words)
        if total <= 0.0:
            return 0.0
        return sum(self.weight.get(word, 0.0) for word in words if word in query_tokens) / total


def boost_named_agents(
    scores: Sequence[tuple[str, float]],
    names: AgentNames,
    query_tokens: frozenset[str],
    boost: float,
) -> list[tuple[str, float]]:
    """Agent scores times ``1 + boost * name coverage``, re-sorted (stable on ties)."""
    if boost <= 0.0:
        return list(scores)
    boosted = [
        (agent, score * (1.0 + boost * names.coverage(agent, query_tokens)))
        for agent, score in scores
    ]
    return sorted(boosted, key=lambda pair: -pair[1])


def group_lookalikes(
    agents: Sequence[str], vectors: Mapping[str, np.ndarray], threshold: float
) -> list[int]:
    """A group id per agent, in rank order.

    An agent joins the first earlier group whose first member's vector is at least
    ``threshold`` cosine-similar to its own; an agent without a vector stays alone.
    """
    heads: list[np.ndarray | None] = []
    group_of: list[int] = []
    for agent in agents:
        vector = vectors.get(agent)
        found = None
        if vector is not None:
            unit = vector / (float(np.linalg.norm(vector)) or 1.0)
            for group, head in enumerate(heads):
                if head is not None and float(unit @ head) >= threshold:
                    found = group
                    break
            if found is None:
                heads.append(unit)
        else:
            heads.append(None)
        group_of.append(len(heads) - 1 if found is None else found)
    return group_of


def rank_lookalikes(
    agents: Sequence[str],
    groups: Sequence[int],
    evidence: Callable[[str], float],
    demotion: int,
) -> list[str]:
    """Agents re-ordered so each look-alike group is ranked once.

    A group's members take the group's places in order of ``evidence`` (highest first, rank
    order on ties); every member after the first then moves ``demotion`` places down.
    """
    members: dict[int, list[str]] = {}
    for agent, group in zip(agents, groups, strict=True):
        members.setdefault(group, []).append(agent)
    ordered = {
        group: iter(sorted(names, key=lambda agent: -evidence(agent)))
        for group, names in members.items()
    }
    placed = [next(ordered[group]) for group in groups]
    first: dict[int, int] = {}
    keyed: list[tuple[float, int, str]] = []
    for position, (agent, group) in enumerate(zip(placed, groups, strict=True)):
        head = first.setdefault(group, position) == position
        keyed.append((position if head else position + demotion + 0.5, position, agent))
    return [agent for _, _, agent in sorted(keyed)]
