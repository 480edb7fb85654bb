"""Skill synthesis: turn repeated successful tool spans into procedures.

Off the hot path only (``gaia-lite skills synthesize``, or a background
thread started before a session's first turn). One pass:

1. take the recorded spans not yet distilled that have at least 3 real tool
   steps (``load_tools`` is bookkeeping, not a step);
2. embed their goals (cached in the span row) and cluster them greedily:
   a span joins the first cluster whose centroid has cosine ≥ 0.82 with it;
3. keep clusters with ≥ 3 spans of which ≥ 80 % succeeded, largest first,
   at most 10 per pass; a cluster an existing procedure already matches is
   only marked as covered;
4. ``tools_required`` comes from the recorded calls (tools used in at least
   half of the successful spans, in first-seen order), never from the LLM;
5. one low-temperature LLM call per cluster writes ``name``,
   ``when_to_use`` and the markdown steps, or ``SKIP``. Unusable output
   falls back to a name and trigger built from the cluster's own goals.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Protocol, Sequence

import numpy as np

from gaia_lite.memory.store import STOPWORDS

from .procedure import NAME_MAX, ProcedureSpec, SkillFormatError, ToolStep, is_valid_name, parse_front_matter, slugify
from .store import ProcedureStore, SpanRecord

__all__ = [
    "SynthesisConfig", "SynthesisReport", "ClusterOutcome", "Distillation", "DistillerPort",
    "synthesize", "synthesis_due", "start_background_synthesis", "cluster_spans", "required_tools",
    "typical_sequence", "distillation_prompt", "parse_distillation", "META_TOOLS", "SKIP",
]

log = logging.getLogger("gaia_lite.skills")

META_TOOLS = frozenset({"load_tools"})  # escape-hatch bookkeeping, never a step of a procedure
SKIP = "SKIP"
MAX_WHEN_CHARS = 300


class DistillerPort(Protocol):
    """The chat model, as synthesis needs it (``ChatClient`` fits)."""

    def complete(self, prompt: str, *, system: str | None = None, max_tokens: int = 512) -> str: ...


@dataclass(frozen=True)
class SynthesisConfig:
    min_steps: int = 3
    cluster_tau: float = 0.82
    min_occurrences: int = 3
    min_success_rate: float = 0.8
    max_clusters: int = 10
    max_tokens: int = 600  # a procedure is a few hundred tokens; small models ramble on


@dataclass(frozen=True)
class Distillation:
    """What the model wrote; a field it got wrong is "" and is filled from the goals."""

    name: str
    when_to_use: str
    body: str


@dataclass(frozen=True)
class ClusterOutcome:
    """What one qualifying cluster became."""

    status: Literal["created", "covered", "declined", "failed", "planned"]
    goals: tuple[str, ...]
    span_ids: tuple[int, ...]
    tools_required: tuple[str, ...]
    name: str = ""
    detail: str = ""


@dataclass(frozen=True)
class SynthesisReport:
    spans: int  # open spans with enough steps
    clusters: int  # clusters found among them
    outcomes: tuple[ClusterOutcome, ...] = field(default_factory=tuple)

    @property
    def created(self) -> list[str]:
        return [o.name for o in self.outcomes if o.status == "created"]


# ----------------------------------------------------------------------------- pure pieces

def _real_calls(span: SpanRecord) -> list[tuple[str, dict[str, str], bool]]:
    return [c for c in span.calls if c[0] not in META_TOOLS]


def cluster_spans(vectors: np.ndarray, tau: float) -> list[list[int]]:
    """Greedy clustering of unit row vectors: each row joins the first cluster
    whose (normalised) centroid has cosine ≥ ``tau`` with it, else starts one.
    Deterministic for a given row order."""
    clusters: list[list[int]] = []
    sums: list[np.ndarray] = []
    for i, vec in enumerate(np.asarray(vectors, dtype=np.float32)):
        for c, total in enumerate(sums):
            centroid = total / (np.linalg.norm(total) or 1.0)
            if float(centroid @ vec) >= tau:
                clusters[c].append(i)
                sums[c] = total + vec
                break
        else:
            clusters.append([i])
            sums.append(vec.copy())
    return clusters


def required_tools(spans: Sequence[SpanRecord]) -> list[str]:
    """Tools called in at least half of ``spans``, in first-seen order."""
    if not spans:
        return []
    seen: dict[str, int] = {}
    order: list[str] = []
    for span in spans:
        for tool in dict.fromkeys(c[0] for c in _real_calls(span)):
            if tool not in seen:
                order.append(tool)
            seen[tool] = seen.get(tool, 0) + 1
    return [t for t in order if seen[t] * 2 >= len(spans)]


def typical_sequence(spans: Sequence[SpanRecord]) -> tuple[ToolStep, ...]:
    """The most frequent ordered tool sequence (earliest span wins ties), with its argument shapes."""
    if not spans:
        return ()
    keys = [tuple(c[0] for c in _real_calls(s)) for s in spans]
    counts = Counter(keys)
    best = max(range(len(spans)), key=lambda i: (counts[keys[i]], -i))
    return tuple(ToolStep(t, dict(shape)) for t, shape, _ in _real_calls(spans[best]))


def _medoid(goals: Sequence[str], vectors: np.ndarray) -> str:
    centroid = vectors.sum(axis=0)
    return goals[int(np.argmax(vectors @ centroid))]


def _fallback(goals: Sequence[str], vectors: np.ndarray, sequence: Sequence[ToolStep]) -> Distillation:
    """A usable procedure without the LLM: the most typical goal as trigger, the calls as steps."""
    typical = _medoid(goals, vectors)
    words = [w for w in re.findall(r"[a-z0-9]+", typical.lower()) if w not in STOPWORDS and not w.isdigit()]
    name = slugify(" ".join(words[:5])) or "learned-procedure"
    return Distillation(name, " ".join(typical.split())[:MAX_WHEN_CHARS], _steps_from_sequence(sequence))


def _steps_from_sequence(sequence: Sequence[ToolStep]) -> str:
    lines = []
    for i, step in enumerate(sequence, 1):
        args = ", ".join(step.args) if step.args else "no arguments"
        lines.append(f"{i}. Call `{step.tool}` ({args}).")
    lines.append(f"{len(lines) + 1}. Answer from the results.")
    return "\n".join(lines)


SYSTEM_PROMPT = ("You write short, reusable procedures from records of an assistant's successful tool runs. "
                 "Reply in exactly the format asked for.")


def distillation_prompt(goals: Sequence[str], sequence: Sequence[ToolStep], *, max_goals: int = 6) -> str:
    """The user message of one distillation call.

    The SKIP option comes first, as a narrow exception: put last, a 0.5B model
    answers SKIP to everything (tried on Qwen2.5-Coder-0.5B).
    """
    requests = "\n".join(f"- {' '.join(g.split())[:300]}" for g in goals[:max_goals])
    calls = "\n".join(f"{i}. {s.tool}({', '.join(f'{k}: {v}' for k, v in s.args.items())})"
                      for i, s in enumerate(sequence, 1))
    return (
        "An assistant handled each of these requests successfully with tool calls.\n\n"
        f"Requests:\n{requests}\n\n"
        f"Tool calls of a typical run, in order (argument names and types):\n{calls}\n\n"
        f"Only if the requests are unrelated to each other, reply with the single word {SKIP}. "
        "Otherwise write ONE procedure a later run can follow for this kind of request, "
        "in exactly this format:\n"
        "---\n"
        "name: <a kebab-case name of at most 6 words>\n"
        "when_to_use: <one sentence phrased like such a request, without file names or values "
        "that belong to one run>\n"
        "---\n"
        "1. <first step: the tool to call and what to pass>\n"
        "2. <next step>\n"
    )


_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```\s*$", re.DOTALL)
_FRONT = re.compile(r"(?:^|\n)\s*---[ \t]*\n(.*?)\n\s*---[ \t]*(?:\n|$)(.*)", re.DOTALL)


def _clean_llm_text(text: str) -> str:
    text = _THINK.sub("", text or "").strip()
    fenced = _FENCE.match(text)
    return fenced.group(1).strip() if fenced else text


def _from_json(text: str) -> tuple[dict[str, Any], str] | None:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start:end + 1])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    body = data.get("body") or data.get("steps") or data.get("markdown_body") or ""
    if isinstance(body, list):
        body = "\n".join(f"{i}. {s}" for i, s in enumerate(body, 1))
    return data, str(body)


_STEP = re.compile(r"^\s*\d+[.)]\s")


def _split_steps(block: str) -> tuple[str, str]:
    """Front matter a small model wrote with the steps inside it: (the keys, the steps)."""
    lines = block.splitlines()
    for i, line in enumerate(lines):
        if _STEP.match(line):
            return "\n".join(lines[:i]), "\n".join(lines[i:])
    return block, ""


def _from_key_lines(text: str) -> tuple[dict[str, Any], str] | None:
    """``name:`` / ``when_to_use:`` lines without the ``---`` fences, steps after them."""
    lines = text.splitlines()
    head: list[str] = []
    i = 0
    while i < len(lines) and (re.match(r"^\s*[A-Za-z_]+\s*:", lines[i]) or not lines[i].strip()):
        head.append(lines[i])
        i += 1
    try:
        meta = parse_front_matter("\n".join(head))
    except SkillFormatError:
        return None
    if "name" not in meta and "when_to_use" not in meta:
        return None
    return meta, "\n".join(lines[i:])


def parse_distillation(text: str) -> Distillation | Literal["SKIP"] | None:
    """The LLM's answer as a Distillation, ``"SKIP"``, or None when it is unusable.

    Accepts front matter (fenced or not, inside a code block or not), or a
    JSON object with ``name``, ``when_to_use`` and ``body``/``steps``. A name
    that is not kebab-case is slugified; any ``tools_required`` the model
    wrote is ignored.
    """
    cleaned = _clean_llm_text(text)
    if not cleaned:
        return None
    if re.fullmatch(r"[\W_]*skip[\W_]*", cleaned, re.IGNORECASE):
        return SKIP
    parsed: tuple[dict[str, Any], str] | None = None
    m = _FRONT.search(cleaned)
    if m:
        head, rest = _split_steps(m.group(1))
        try:
            parsed = parse_front_matter(head), rest + "\n" + m.group(2)
        except SkillFormatError:
            parsed = None
    if parsed is None:
        parsed = _from_json(cleaned)
    if parsed is None:
        parsed = _from_key_lines(cleaned)
    if parsed is None:
        return None
    meta, body = parsed
    name = str(meta.get("name") or "").strip()
    name = (name if is_valid_name(name) else slugify(name))[:NAME_MAX].strip("-")
    when = " ".join(str(meta.get("when_to_use") or meta.get("when") or "").split())
    if len(when.split()) < 3 or len(when) > MAX_WHEN_CHARS:
        when = ""  # a file name or a fragment is no trigger
    body = _first_procedure(_clean_llm_text(body))
    if not (name or when or body):
        return None
    return Distillation(name, when, body)


_NEXT_PROCEDURE = re.compile(r"^\s*(?:---\s*$|name\s*:|when_to_use\s*:)", re.IGNORECASE)


def _first_procedure(body: str) -> str:
    """The steps up to where a small model starts writing a second procedure."""
    lines = body.strip().splitlines()
    for i, line in enumerate(lines):
        if i and _NEXT_PROCEDURE.match(line):
            lines = lines[:i]
            break
    return "\n".join(lines).strip()


# ----------------------------------------------------------------------------- the pass

def _span_vectors(store: ProcedureStore, spans: Sequence[SpanRecord], *, cache: bool) -> np.ndarray:
    fresh: dict[int, np.ndarray] = {}
    rows = []
    for span in spans:
        vec = span.vector
        if vec is None:
            vec = fresh[span.id] = store.embed_goal(span.goal)
        rows.append(np.asarray(vec, dtype=np.float32))
    if fresh and cache:
        store.cache_span_vectors(fresh)
    return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.float32)


def synthesis_due(store: ProcedureStore, config: SynthesisConfig = SynthesisConfig()) -> bool:
    """Cheap pre-check (no embedding): are there enough open successful spans to try a pass?"""
    ok = [s for s in store.open_spans(min_steps=config.min_steps)
          if s.success and len(_real_calls(s)) >= config.min_steps]
    return len(ok) >= config.min_occurrences


def synthesize(store: ProcedureStore, llm: DistillerPort | None, *, registry: Any = None,
               config: SynthesisConfig = SynthesisConfig(), dry_run: bool = False) -> SynthesisReport:
    """One synthesis pass (see the module doc). ``dry_run`` finds the clusters and
    what they would need, without calling the LLM or writing anything."""
    spans = [s for s in store.open_spans(min_steps=config.min_steps) if len(_real_calls(s)) >= config.min_steps]
    if len(spans) < config.min_occurrences:
        return SynthesisReport(len(spans), 0)
    vectors = _span_vectors(store, spans, cache=not dry_run)
    groups = cluster_spans(vectors, config.cluster_tau)
    qualifying = []
    for idx in groups:
        members = [spans[i] for i in idx]
        wins = sum(s.success for s in members)
        if len(members) >= config.min_occurrences and wins / len(members) >= config.min_success_rate:
            qualifying.append(idx)
    qualifying.sort(key=lambda idx: (-len(idx), idx[0]))
    outcomes = [_distil_cluster([spans[i] for i in idx], vectors[idx], store, llm, registry, config, dry_run)
                for idx in qualifying[:config.max_clusters]]
    return SynthesisReport(len(spans), len(groups), tuple(outcomes))


def _distil_cluster(members: list[SpanRecord], vectors: np.ndarray, store: ProcedureStore,
                    llm: DistillerPort | None, registry: Any, config: SynthesisConfig,
                    dry_run: bool) -> ClusterOutcome:
    good = [s for s in members if s.success]
    goals = tuple(s.goal for s in members)
    ids = tuple(s.id for s in members)
    tools = [t for t in required_tools(good) if registry is None or t in registry]
    sequence = typical_sequence(good)
    centroid = vectors.sum(axis=0)
    centroid = centroid / (np.linalg.norm(centroid) or 1.0)
    covered = store.search(centroid, top_k=1, tau=config.cluster_tau)

    def outcome(status: Any, name: str = "", detail: str = "") -> ClusterOutcome:
        return ClusterOutcome(status, goals, ids, tuple(tools), name, detail)

    if covered:
        if not dry_run:
            store.claim_spans(ids, covered[0][0].name)
        return outcome("covered", covered[0][0].name, f"already matched (cosine {covered[0][1]:.2f})")
    if not tools:
        return outcome("failed", detail="no tool of the recorded calls is in the registry")
    if dry_run or llm is None:
        return outcome("planned", detail="dry run: no LLM call")
    try:
        answer = llm.complete(distillation_prompt(goals, sequence), system=SYSTEM_PROMPT,
                              max_tokens=config.max_tokens)
    except Exception as exc:  # the cluster stays open for the next pass
        return outcome("failed", detail=f"the model call failed: {exc}")
    parsed = parse_distillation(answer)
    if parsed == SKIP:
        store.claim_spans(ids, "")  # declined: do not ask again for these spans
        return outcome("declined", detail="the model answered SKIP")
    fallback = _fallback([s.goal for s in good], vectors[[i for i, s in enumerate(members) if s.success]],
                         sequence)
    wrote = parsed if isinstance(parsed, Distillation) else Distillation("", "", "")
    filled = [f for f in ("name", "when_to_use", "body") if not getattr(wrote, f)]
    detail = ("the model's answer was unusable; " if parsed is None else "") + \
        (f"{', '.join(filled)} taken from the recorded runs" if filled else "")
    name = store.unique_name(wrote.name or fallback.name)
    spec = ProcedureSpec(name, wrote.when_to_use or fallback.when_to_use, wrote.body or fallback.body, tuple(tools))
    store.add(spec, provenance="synthesized", tool_sequence=sequence)
    store.claim_spans(ids, name)
    log.info("skills: synthesized %r from %d runs (tools %s)", name, len(members), ", ".join(tools))
    return outcome("created", name, detail)


def start_background_synthesis(store: ProcedureStore, llm: DistillerPort, *, registry: Any = None,
                               config: SynthesisConfig = SynthesisConfig(),
                               on_done: Callable[[SynthesisReport], None] | None = None) -> threading.Thread | None:
    """Run a pass in a daemon thread when one is due; returns the thread, or None.

    Caution: on a one-slot local server the pass's LLM call queues in front of
    (or behind) the user's turn. Start it only when the server has a free slot,
    or rely on ``gaia-lite skills synthesize``.
    """
    if not synthesis_due(store, config):
        return None

    def run() -> None:
        try:
            report = synthesize(store, llm, registry=registry, config=config)
        except Exception as exc:  # a background pass must never surface in the chat
            log.warning("skills: background synthesis failed: %s", exc)
            return
        if on_done is not None:
            on_done(report)

    thread = threading.Thread(target=run, name="gaia-lite-skill-synthesis", daemon=True)
    thread.start()
    return thread
