"""Everything a user tunes per run, as LangGraph runtime context (editable in Studio)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal

from stores.retrieval.fsww import FSWWParams
from stores.retrieval.ranking import RetrievalConfig

OutputFormat = Literal["md", "json", "text"]
ReconcileMode = Literal["ask", "report"]
RetrievalMethod = Literal["hybrid", "dense", "bm25", "hierarchical"]

DEFAULT_DESTRUCTIVE = ["cancel_*", "delete_*", "archive_*", "revoke_*", "refund*", "*_refund"]


@dataclass(kw_only=True)
class Context:
    """Per-run settings. Every field has a default, so a parent graph may pass none."""

    top_k: int = field(default=5, metadata={"description": "Candidate tools kept per sub-intent."})
    retrieval_method: RetrievalMethod = field(
        default="hybrid",
        metadata={"description": "Ranking: hybrid (dense + BM25, RRF), dense, bm25, hierarchical."},
    )
    use_fsww: bool = field(
        default=False,
        metadata={"description": "Fuse each sub-intent's keywords into its query vector (FSWW)."},
    )
    fsww_alpha: float = field(default=0.5, metadata={"description": "FSWW α: subspace share."})
    fsww_beta: float = field(default=0.1, metadata={"description": "FSWW β: keyword centroid."})
    fsww_gamma: float = field(default=0.6, metadata={"description": "FSWW γ: correction vector."})
    fsww_lambda: float = field(default=0.6, metadata={"description": "FSWW λ: residual gate."})
    fsww_epsilon: float = field(default=0.001, metadata={"description": "FSWW ε: ridge term."})
    fsww_delta: float = field(
        default=0.9, metadata={"description": "FSWW Δ: least cosine to the plain query."}
    )
    environments: list[str] = field(
        default_factory=lambda: ["test"],
        metadata={
            "description": "Environment allow-list: tools tagged with another environment are "
            "never candidates nor called; untagged tools may be read, never written."
        },
    )
    output_format: OutputFormat = field(
        default="md", metadata={"description": "Answer format: md (table), json, text."}
    )
    model: str = field(
        default="",
        metadata={
            "description": "Chat model name for the LLM path (e.g. gpt-4o-mini); empty = the "
            "offline rule parser and templates unless a model is injected."
        },
    )
    base_url: str = field(
        default="", metadata={"description": "OpenAI-compatible endpoint for `model`."}
    )
    planner: Literal["auto", "rules"] = field(
        default="auto",
        metadata={
            "description": "auto: the chat model plans (chooses tools, fills arguments) when one "
            "is configured, else the rule planner; rules: always the rule planner."
        },
    )
    max_model_turns: int = field(
        default=6,
        metadata={"description": "Planning turns the model gets per run (each sees the results "
                  "so far); then the run answers with what it has."},
    )
    max_retrieval_rounds: int = field(
        default=1, metadata={"description": "Re-retrievals with a reformulated query per run."}
    )
    max_alignment_retries: int = field(
        default=1, metadata={"description": "Compensatory retries of missing sub-intents."}
    )
    call_deadline_s: float = field(
        default=30.0, metadata={"description": "Deadline of one tool call, in seconds."}
    )
    destructive_tools: list[str] = field(
        default_factory=lambda: list(DEFAULT_DESTRUCTIVE),
        metadata={"description": "Name patterns of tools that need approval (our policy)."},
    )
    pre_approved: bool = field(
        default=False,
        metadata={"description": "Run destructive calls without asking (for unattended runs)."},
    )
    reconcile_unknown: ReconcileMode = field(
        default="ask",
        metadata={
            "description": "A side-effecting call whose outcome is unknown (started before a "
            "crash, or timed out) and whose tool takes no idempotency key: 'ask' a person "
            "(an interrupt: did it happen?), or 'report' it as a gap without asking."
        },
    )
    run_id: str = field(
        default="",
        metadata={
            "description": "Idempotency scope; empty = derived from the thread and turn. The "
            "same run id never repeats a recorded side effect."
        },
    )

    def fsww(self) -> FSWWParams | None:
        """Query-side FSWW parameters, or None when FSWW is off."""
        if not self.use_fsww:
            return None
        return FSWWParams(
            alpha=self.fsww_alpha,
            beta=self.fsww_beta,
            gamma=self.fsww_gamma,
            lam=self.fsww_lambda,
            eps=self.fsww_epsilon,
            delta=self.fsww_delta,
        )

    def retrieval_config(self) -> RetrievalConfig:
        """The ranking configuration of this run."""
        return RetrievalConfig(method=self.retrieval_method, query_fsww=self.fsww())


def resolve_context(runtime: Any) -> Context:
    """Return the run's ``Context`` whether the graph runs alone, in Studio or embedded.

    A parent graph may pass no context, a dict (Studio, HTTP API) or its own dataclass; unknown
    keys are ignored and missing ones take defaults.
    """
    raw = getattr(runtime, "context", None) if runtime is not None else None
    if isinstance(raw, Context):
        return raw
    if raw is None:
        return Context()
    if not isinstance(raw, dict):
        raw = {f.name: getattr(raw, f.name) for f in fields(Context) if hasattr(raw, f.name)}
    known = {f.name for f in fields(Context)}
    return Context(**{key: value for key, value in raw.items() if key in known})
