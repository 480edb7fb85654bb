"""ToolLoader: per-turn tool selection = CORE ∪ REQUESTED ∪ SKILL ∪ SEMANTIC (+ learned, companions).

REQUESTED holds the tools the user's own message names (``requested.py``);
it is admitted right after CORE, as in GAIA's released loader (0.25.1).
Learned picks (``matching.learned_picks``) are tools whose past requests the
current message nearly repeats; companions (``companions.py``) are the tools
past turns used together with a tool selected this turn. Both come after the
direct matches, only into free room (never evicting), so what was learned can
never push out CORE or a direct match: learning only adds.

Only the *prompt* is filtered; the agent executes any registry tool the model
names ("free recovery", counted as an escape hatch). The loaded set is
session-scoped. With the sticky presets (the default) it only grows: past the
cap a turn may still add up to the cap minus CORE, and ``load_tools`` always
adds. GAIA's own preset evicts the least recently used tool at the cap; as in
its release (0.25.1) it does so only at a turn boundary, and it returns the
loaded set in admission order (``LoaderSettings.order`` / ``.evict``).

Each ``select`` and ``load_bundle`` returns a complete ``Selection``: the
loaded set, why each tool is in it, the typed ``TOOL_LOADER`` record, its tools
hash and whether that hash changed. The loader keeps these books; callers only
read them.

Where this differs from GAIA on purpose:

* the selection query is built from *clean* user messages (``selection_query``),
  never the memory-augmented input, so the timestamp header is not embedded;
* ``ranking="matched_first"`` (the default preset) keeps a tool that matched
  on its own ahead of bundle-mates that only inherited its score;
* ``load_bundle`` always re-admits CORE, so an escape-hatch call can never
  hide CORE; the bundle menu is empty while the loader is inactive;
* every ``TOOL_LOADER`` line carries ``tools_hash`` and ``selection_ms``, the
  session line carries ``tool_set_changes``, and the session line is written
  by ``close()`` as well as by ``reset_session()``;
* free recoveries are counted only while a filter is in effect (an inactive
  loader hides nothing, so nothing can be recovered).

Usage by the agent, once per user turn::

    q = selection_query(previous_clean_user_msgs, clean_user_msg)
    sel = loader.select(q, registry, skill_tools=recalled_skill_tools)
    filter_to = None if sel is None else sel.loaded   # None = full registry
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Generic, Iterable, Mapping, Sequence, TypeVar

import numpy as np

from gaia_lite import logline
from gaia_lite.embed.base import Embedder, EmbedderError
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.render import render_native, render_text, tools_hash
from gaia_lite.registry.spec import ToolSpec

from .bundles import ToolBundle, load_bundles
from .cache import DocEmbeddingCache
from .companions import CompanionGraph
from .documents import load_examples
from .presets import LoaderSettings, preset as get_preset
from .matching import learned_picks, match_tools, pull_bundles, rank_key
from .query import SELECTION_QUERY_CHARS, SelectionQuery, selection_query, split_clauses
from .requested import RequestIndex, build_request_index, requested_tools
from .scorer import QueryScorer
from .worked import NO_TOOL, WorkedBank, WorkedExample, WorkedPick, load_worked, with_learned

__all__ = ["ToolLoader", "Selection", "SessionStats", "SelectionQuery", "selection_query", "build_doc_loader",
           "split_clauses", "registry_tools_hash", "LOGGER_NAME", "SELECTION_QUERY_CHARS"]

LOGGER_NAME = "gaia_lite.loader"

ToolsHashFn = Callable[[ToolRegistry, Sequence[str]], str]


def registry_tools_hash(registry: ToolRegistry, loaded: Sequence[str]) -> str:
    """Hash of both render paths of the loaded set (what a native model sees)."""
    return tools_hash(render_text(registry, loaded), render_native(registry, loaded))


Record = TypeVar("Record", logline.SelectionRecord, logline.LoadToolsRecord)


@dataclass(frozen=True)
class Selection(Generic[Record]):
    """What the prompt shows after a ``select()`` (record: SelectionRecord) or a ``load_bundle()``
    (record: LoadToolsRecord): the loaded set, why each tool is in it, and whether its tools hash
    differs from the previous selection's."""

    record: Record
    reasons: Mapping[str, str]
    changed: bool
    examples: tuple[WorkedPick, ...] = ()  # worked examples to show beside the message (their tools loaded)
    sure: WorkedPick | None = None  # the example whose call serves the message as it stands (settings.first_call)

    @property
    def loaded(self) -> tuple[str, ...]:
        return self.record.loaded

    @property
    def tools_hash(self) -> str:
        return self.record.tools_hash


@dataclass(frozen=True)
class SessionStats:
    turns: int
    escape_hatch_count: int
    load_tools_count: int
    escape_hatch_rate: float
    tool_set_changes: int


@dataclass
class _Slot:
    """Mutable per-loaded-tool state (private to one loader session)."""

    loaded_at: float
    load_turn: int
    reason: str
    last_call_ts: float | None = None


@dataclass
class _Round:
    """Scratch lists of one admission round (a select or a load_bundle)."""

    admitted: list[str]
    evicted: list[str]
    skipped_at_cap: list[str]
    held: list[str] = field(default_factory=list)  # loaded earlier, named again this turn: never evicted now


class ToolLoader:
    def __init__(
        self,
        core: Iterable[str],
        bundles: Iterable[ToolBundle],
        embedder: Embedder,
        *,
        settings: LoaderSettings | None = None,
        threshold: float | None = None,
        max_tools: int | None = None,
        examples: Mapping[str, Sequence[str]] | None = None,
        aliases: Mapping[str, Sequence[str]] | None = None,
        learned_examples: Mapping[str, Sequence[str]] | None = None,
        companions: CompanionGraph | None = None,
        worked: Sequence[WorkedExample] = (),
        doc_cache: DocEmbeddingCache | None = None,
        tools_hash_fn: ToolsHashFn | None = None,
        clock: Callable[[], float] = time.time,
        perf_clock: Callable[[], float] = time.perf_counter,
        logger: logging.Logger | None = None,
    ) -> None:
        base = settings if settings is not None else LoaderSettings()  # GAIA's main-branch loader (presets.py)
        if threshold is not None:
            base = base.replace(threshold=float(threshold))
        if max_tools is not None:
            base = base.replace(max_tools=int(max_tools))
        self.settings = base
        self.core = frozenset(core) - frozenset(base.not_core)
        self.bundles = tuple(bundles)
        names = [b.name for b in self.bundles]
        if len(set(names)) != len(names):
            raise ValueError(f"bundle names must be unique: {names}")
        # tool -> bundles containing it, in config (menu) order
        self._bundles_of: dict[str, list[ToolBundle]] = {}
        for b in self.bundles:
            for m in sorted(b.members):
                self._bundles_of.setdefault(m, []).append(b)
        self.embedder = embedder
        self._cache = doc_cache if doc_cache is not None else DocEmbeddingCache()
        self._scorer = QueryScorer(base, embedder, examples or {}, self._cache, learned_examples)
        self.worked = WorkedBank(worked, embedder, self._cache)
        self._aliases = dict(aliases or {})
        self.companions = companions if companions is not None else CompanionGraph()
        self._requests: tuple[tuple[int, int], RequestIndex] | None = None
        self._tools_hash_fn = tools_hash_fn or registry_tools_hash
        self._clock = clock
        self._perf = perf_clock
        self._log = logger if logger is not None else logging.getLogger(LOGGER_NAME)
        self._new_session()

    # -- session state -------------------------------------------------------

    def _new_session(self) -> None:
        self._slots: dict[str, _Slot] = {}
        self._turn = 0
        self._disabled = False
        self._escapes = 0
        self._loads = 0
        self._changes = 0
        self._last_hash: str | None = None

    @property
    def threshold(self) -> float:
        return self.settings.threshold

    @property
    def max_tools(self) -> int:
        return self.settings.max_tools

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def session_disabled(self) -> bool:
        return self._disabled

    @property
    def active(self) -> bool:
        """False after an embedder failure: the caller shows the full registry."""
        return not self._disabled

    @property
    def loaded(self) -> tuple[str, ...]:
        """The loaded set, sorted or in admission order (``settings.order``)."""
        if self.settings.order == "admission":
            return tuple(self._slots)  # a dict keeps insertion order; a re-admitted tool goes last
        return tuple(sorted(self._slots))

    def reason(self, name: str) -> str | None:
        """Why a loaded tool was admitted ("core", "requested", "skill", "semantic", "bundle:<b>",
        "learned", "companion:<tool>", "load_tools:<b>"); ``None`` if it is not loaded."""
        slot = self._slots.get(name)
        return slot.reason if slot is not None else None

    @property
    def stats(self) -> SessionStats:
        return SessionStats(self._turn, self._escapes, self._loads,
                            logline.escape_hatch_rate(self._turn, self._escapes, self._loads), self._changes)

    def reset_session(self) -> None:
        """New conversation: log the summary (if a turn ran), clear state, keep the embeddings."""
        if self._turn > 0:
            s = self.stats
            self._log.info(logline.format_session(logline.session_payload(
                turns=s.turns, escape_hatch_count=s.escape_hatch_count,
                load_tools_count=s.load_tools_count, tool_set_changes=s.tool_set_changes)))
        self._new_session()

    def close(self) -> None:
        """Normal exit: same summary as a reset, and make sure the cache is on disk."""
        self.reset_session()
        self._cache.flush()

    # -- scoring ---------------------------------------------------------------

    def score(self, query: str, registry: ToolRegistry) -> dict[str, float]:
        """Semantic score of every registry tool (registry order). Raises EmbedderError."""
        return self._scorer.score(query, registry)

    def requested(self, message: str, registry: ToolRegistry) -> list[str]:
        """Tools ``message`` names (tool names, identifier-like bundle names, aliases)."""
        key = (id(registry), registry.revision)  # identity + revision name its contents
        if self._requests is None or self._requests[0] != key:
            self._requests = (key, build_request_index(registry.names(), self.bundles, self._aliases))
        return requested_tools(message, self._requests[1])

    # -- admission ---------------------------------------------------------------

    def _admit(self, name: str, reason: str, rnd: _Round) -> None:
        self._slots[name] = _Slot(self._clock(), self._turn, reason)
        rnd.admitted.append(name)

    def _admit_capped(self, name: str, reason: str, protected: Iterable[str], rnd: _Round) -> None:
        """Admit under the cap, else evict the least recently used unprotected tool, else skip.

        Sticky sessions never evict: past the cap, a turn may still add up to
        ``max_tools`` minus the loaded CORE tools, and ``load_tools`` always adds.
        """
        if len(self._slots) < self.max_tools:
            self._admit(name, reason, rnd)
            return
        if self.settings.evict == "turn_boundary" and reason.startswith("load_tools:"):
            # Mid-turn the set is add-only: dropping a tool there rewrites the prompt mid-answer.
            # The next select() trims back to the cap (_trim_to_cap).
            self._admit(name, reason, rnd)
            return
        if self.settings.sticky:
            budget = self.max_tools - sum(1 for n in self._slots if n in self.core)
            added = sum(1 for n in rnd.admitted if n not in self.core)
            if reason.startswith("load_tools:") or added < budget:
                self._admit(name, reason, rnd)
            else:
                rnd.skipped_at_cap.append(name)
            return
        shielded = self.core | set(protected) | set(rnd.held)
        victim = self._lru_victim(shielded)
        if victim is None:
            rnd.skipped_at_cap.append(name)
            return
        del self._slots[victim]
        rnd.evicted.append(victim)
        self._admit(name, reason, rnd)

    def _lru_victim(self, shielded: Iterable[str]) -> str | None:
        """The least recently used loaded tool outside ``shielded`` (last call, else load time; then name)."""
        shield = set(shielded)
        victims = [n for n in self._slots if n not in shield]
        if not victims:
            return None

        def lru_key(n: str) -> tuple[float, float, str]:
            slot = self._slots[n]
            last = slot.last_call_ts if slot.last_call_ts is not None else slot.loaded_at
            return (last, slot.loaded_at, n)

        return min(victims, key=lru_key)

    def _trim_to_cap(self, rnd: _Round) -> None:
        """At a turn boundary, evict (LRU, never CORE) what mid-turn loads put over the cap."""
        if self.settings.sticky or self.settings.evict != "turn_boundary":
            return
        while len(self._slots) > self.max_tools:
            victim = self._lru_victim(self.core)
            if victim is None:
                return  # CORE alone may exceed the cap
            del self._slots[victim]
            rnd.evicted.append(victim)

    def _in_order(self, registry: ToolRegistry, names: Iterable[str]) -> list[str]:
        """``names`` in the order they are admitted: registry order when the set keeps admission
        order (as GAIA 0.25.1 admits CORE and a bundle), else by name."""
        wanted = set(names)
        if self.settings.order == "admission":
            return [n for n in registry.names() if n in wanted]
        return sorted(wanted)

    def _has_room(self, rnd: _Round) -> bool:
        """Could one more tool be admitted without evicting anything (the cap rules of ``_admit_capped``)?"""
        if len(self._slots) < self.max_tools:
            return True
        if not self.settings.sticky:
            return False
        budget = self.max_tools - sum(1 for n in self._slots if n in self.core)
        return sum(1 for n in rnd.admitted if n not in self.core) < budget

    def _companion_triggers(self, names: Sequence[str], best: np.ndarray, matched: Iterable[str],
                            direct: Sequence[str], learned: Sequence[str] = ()) -> list[str]:
        """The tools selected this turn, strongest claim first: requested and skill tools, the
        semantic matches by score, the learned picks, then CORE tools that scored among this turn's
        best (a CORE tool is always loaded, but "what does the policy say" still selects
        ``query_documents``)."""
        scores = dict(zip(names, best.tolist()))
        out = list(direct) + sorted(matched, key=lambda n: (-scores.get(n, 0.0), n)) + list(learned)
        k = min(len(names), max(self.settings.per_turn or 0, 4))
        if k:
            top = np.argpartition(-best, k - 1)[:k] if k < len(names) else np.arange(len(names))
            out += sorted((names[i] for i in top if names[i] in self.core and best[i] >= self.threshold),
                          key=lambda n: (-scores[n], n))
        return list(dict.fromkeys(out))

    def _admit_free(self, names: Sequence[str], reason: str, registry: ToolRegistry, rnd: _Round) -> list[str]:
        """Admit ``names`` in order into free room only (never evicting); the rest are skipped at the cap."""
        added: list[str] = []
        for name in names:
            if name in self._slots or name not in registry or name in rnd.skipped_at_cap:
                continue
            if self._has_room(rnd):
                self._admit(name, reason, rnd)
                added.append(name)
            else:
                rnd.skipped_at_cap.append(name)
        return added

    def _admit_companions(self, triggers: Sequence[str], registry: ToolRegistry, rnd: _Round) -> list[str]:
        added: list[str] = []
        for trigger in triggers:
            for edge in self.companions.companions_of(trigger):
                name = edge.companion
                if name in self._slots or name not in registry or name in rnd.skipped_at_cap:
                    continue
                if self._has_room(rnd):
                    self._admit(name, f"companion:{trigger}", rnd)
                    added.append(name)
                else:
                    rnd.skipped_at_cap.append(name)
        return added

    def _admit_core(self, registry: ToolRegistry, rnd: _Round) -> None:
        for name in self._in_order(registry, self.core):
            if name in registry and name not in self._slots:
                self._admit(name, "core", rnd)

    def _admit_requested(self, query: str, registry: ToolRegistry, rnd: _Round) -> list[str]:
        """The tools the user's own words name (the REQUESTED tier); one already loaded is held."""
        requested: list[str] = []
        current = getattr(query, "current", None)
        for name in self.requested(str(query) if current is None else current, registry):
            if name in self._slots:
                rnd.held.append(name)
            if name in self.core or name in self._slots:
                continue
            requested.append(name)
            self._admit_capped(name, "requested", rnd.admitted, rnd)
        return requested

    def _admit_skill(self, skill_tools: Sequence[str], registry: ToolRegistry, rnd: _Round) -> list[str]:
        """The tools of the procedures recalled for this turn (the SKILL tier)."""
        skill: list[str] = []
        for name in skill_tools:
            if name in self.core or name in self._slots or name not in registry or name in skill:
                continue
            skill.append(name)
            self._admit_capped(name, "skill", rnd.admitted, rnd)
        return skill

    def select(self, query: str, registry: ToolRegistry, *,
               skill_tools: Sequence[str] | None = None) -> Selection[logline.SelectionRecord] | None:
        """Choose the visible tools for this user turn; ``None`` = show the full registry."""
        if self._disabled:
            return None
        started = self._perf()
        self._turn += 1  # before embedding: a failing turn still counts, as in GAIA
        try:
            index, matrix, first_clause, nearest = self._scorer.score_all(query, registry)
        except EmbedderError as exc:
            self._disable(exc)
            return None
        threshold = self.threshold
        best = matrix.max(axis=1) if matrix.size else np.zeros(len(index.names))
        scores = dict(zip(index.names, best.tolist()))  # tolist: Python floats in one C loop
        matched = self._matched(index.names, matrix, first_clause, scores)
        learned = learned_picks(index.names, nearest, self.settings.learned_gate, self.core | matched,
                                self.settings.per_turn)
        # Reported (and ranked, for R@5) as the user's wording scores them: a tool's score rises to
        # its nearest learned request's cosine where that clears the gate. Matching used ``best``.
        scores.update((index.names[i], float(nearest[i]))
                      for i in np.flatnonzero((nearest >= self.settings.learned_gate) & (nearest > best)))
        if self.settings.bundle_pull:
            candidates, pulled_by = pull_bundles(self.bundles, scores, matched, registry)
        else:
            candidates, pulled_by = {n: scores[n] for n in matched}, {}

        rnd = _Round([], [], [])
        self._trim_to_cap(rnd)
        self._admit_core(registry, rnd)
        requested = self._admit_requested(query, registry, rnd) if self.settings.requested else []
        skill = self._admit_skill(skill_tools or (), registry, rnd)
        new = [n for n in candidates if n not in self._slots and n not in self.core and n in registry]
        new.sort(key=rank_key(self.settings.ranking, scores, candidates, matched))
        for name in new:
            reason = "semantic" if name in matched else f"bundle:{pulled_by[name]}"
            self._admit_capped(name, reason, rnd.admitted, rnd)
        learned_added = self._admit_free(learned, "learned", registry, rnd)
        examples, example_added = self._admit_examples(query, scores, registry, rnd)
        companion: list[str] = []
        if not self.companions.empty:
            triggers = self._companion_triggers(index.names, best, matched, [*requested, *skill], learned)
            companion = self._admit_companions(triggers, registry, rnd)

        loaded = self.loaded
        digest, changed = self._rehash(registry, loaded)
        if changed:
            self._changes += 1
        record = logline.SelectionRecord(
            turn=self._turn, query_sha=logline.query_sha(str(query)), threshold=threshold, max_tools=self.max_tools,
            scores=MappingProxyType(scores), matched=tuple(sorted(matched)), bundle_pulled=tuple(sorted(pulled_by)),
            admitted=tuple(sorted(rnd.admitted)), evicted=tuple(sorted(rnd.evicted)),
            skipped_at_cap=tuple(sorted(rnd.skipped_at_cap)), skill=tuple(sorted(skill)), loaded=loaded,
            tools_hash=digest, selection_ms=(self._perf() - started) * 1000.0, requested=tuple(sorted(requested)),
            companion=tuple(sorted(companion)), learned=tuple(sorted(learned_added)),
            example=tuple(sorted(example_added)))
        self._log_record(record)
        return Selection(record, self._reasons(rnd), changed, examples, self._sure_pick(query))

    def _matched(self, names: Sequence[str], matrix: np.ndarray, first_clause: int,
                 scores: Mapping[str, float]) -> set[str]:
        """The turn's semantic picks. Tools the preset took out of CORE come by an example or by name, never
        as a semantic pick; a later turn's new picks need ``later_threshold``."""
        matched = match_tools(names, matrix, first_clause, self.core.union(self.settings.not_core), self.settings)
        floor = self.settings.later_threshold
        if self._turn > 1 and floor is not None:
            matched = {n for n in matched if scores[n] >= floor}
        return matched

    def _admit_examples(self, query: str, scores: Mapping[str, float], registry: ToolRegistry,
                        rnd: _Round) -> tuple[tuple[WorkedPick, ...], list[str]]:
        """This turn's worked examples whose tools are loaded (theirs admitted into free room), and the
        tools they brought."""
        # anchors compete (a shown example far below one is not shown) but are never shown or bring anything;
        # the closest being a request that needs no tool means no example at all
        picks = self._worked_picks(query, scores)
        picks = [p for p in picks if p.example.shown] if picks and picks[0].example.tool != NO_TOOL else []
        added = self._admit_free([p.example.tool for p in picks], "example", registry, rnd)
        shown = tuple(p for p in picks if p.example.tool in self._slots) if self.settings.show_worked else ()
        return shown, added

    def _worked_picks(self, query: str, scores: Mapping[str, float]) -> tuple[WorkedPick, ...]:
        """The worked examples closest to the current message (none when the preset picks none); a later
        turn of the session picks ``later_worked`` at most."""
        st = self.settings
        limit = st.worked if self._turn <= 1 or st.later_worked is None else min(st.worked, st.later_worked)
        if limit <= 0 or not len(self.worked):
            return ()
        try:
            vector = self._scorer.message_vector(query)
        except EmbedderError:  # the scores above were computed, so this is a passing fault: no examples
            return ()
        return self.worked.nearest(vector, scores, limit=limit, threshold=st.worked_threshold)

    def _sure_pick(self, query: str) -> WorkedPick | None:
        """The worked example whose call serves the current message as it stands (WorkedBank.sure_pick), or None
        (the preset never offers one, or the bank is empty)."""
        st = self.settings
        if st.first_call is None or not len(self.worked):
            return None
        try:
            vector = self._scorer.message_vector(query)
        except EmbedderError:
            return None
        return self.worked.sure_pick(vector, cosine=st.first_call, margin=st.first_call_margin)

    def _reasons(self, rnd: _Round) -> Mapping[str, str]:
        """Why each loaded tool is shown: its admission reason if admitted in this round (and for
        CORE), else "loaded" (kept from an earlier turn)."""
        now = set(rnd.admitted)
        return MappingProxyType({n: (s.reason if n in now or s.reason == "core" else "loaded")
                                 for n, s in sorted(self._slots.items())})

    def _rehash(self, registry: ToolRegistry, loaded: Sequence[str]) -> tuple[str, bool]:
        """The loaded set's tools hash, and whether it differs from the last selection's."""
        digest = self._tools_hash_fn(registry, loaded)
        changed = self._last_hash is not None and digest != self._last_hash
        self._last_hash = digest
        return digest, changed

    def _log_record(self, record: logline.SelectionRecord | logline.LoadToolsRecord) -> None:
        if self._log.isEnabledFor(logging.INFO):  # the scores dict is large on big registries
            self._log.info(record.line())

    def _disable(self, exc: Exception) -> None:
        self._disabled = True
        self._log.warning(
            "dynamic tool selection is disabled for this session because the embedder failed (%s); "
            "every tool will be shown until the session is reset. Check the embedding model.", exc)

    # -- escape hatches ------------------------------------------------------------

    def record_tool_use(self, tool_name: str) -> None:
        """Call before every tool execution, whichever render path the model used.

        A loaded tool gets its recency stamp (LRU). An unloaded one is a free
        recovery: counted and logged, never auto-loaded.
        """
        if self._disabled or self._turn == 0:
            return  # no filter in effect, so nothing was hidden
        slot = self._slots.get(tool_name)
        if slot is not None:
            slot.last_call_ts = self._clock()
            return
        self._escapes += 1
        self._log.info(logline.format_escape_hatch(logline.escape_hatch_payload(tool_name, self._turn)))

    def bundle_names(self) -> list[str]:
        return sorted(b.name for b in self.bundles)

    def add_bundle(self, bundle: ToolBundle) -> None:
        """A bundle that joins mid-session (an MCP server that connected): last in the menu.
        Its tools must be in the registry first; a bundle of the same name is replaced."""
        kept = tuple(b for b in self.bundles if b.name != bundle.name)
        self.bundles = (*kept, bundle)
        self._requests = None  # the bundle's name can now be requested
        self._bundles_of = {}
        for b in self.bundles:
            for m in sorted(b.members):
                self._bundles_of.setdefault(m, []).append(b)

    def forget(self, names: Iterable[str]) -> None:
        """Tools that left the registry (an MCP server no longer lists them) leave the loaded set."""
        for name in names:
            self._slots.pop(name, None)

    def prepare(self, specs: Sequence[ToolSpec]) -> None:
        """Embed the documents of tools about to join into the on-disk cache, so the turn they
        join does not pay for it (call from a background thread). Raises EmbedderError."""
        self._scorer.prepare(specs)

    def format_bundle_menu(self) -> str:
        """``- name: description`` per bundle in menu order; empty while inactive."""
        if self._disabled:
            return ""
        return "\n".join(f"- {b.name}: {b.description}" if b.description else f"- {b.name}"
                         for b in self.bundles)

    def _resolve(self, bundle: str) -> tuple[str, frozenset[str]]:
        for b in self.bundles:
            if b.name == bundle:
                return b.name, b.members
        owners = self._bundles_of.get(bundle)
        if owners:
            return "+".join(b.name for b in owners), frozenset().union(*(b.members for b in owners))
        raise KeyError(bundle)

    def load_bundle(self, bundle: str, registry: ToolRegistry) -> Selection[logline.LoadToolsRecord] | None:
        """``load_tools``: make a bundle (or the bundles of a tool name) visible now.

        Returns ``None`` while the loader is inactive (the full registry is
        visible then). Unknown names raise KeyError. A load changes the hash the
        next turn compares with, but is not counted in ``tool_set_changes``.
        """
        if self._disabled:
            return None
        started = self._perf()
        resolved, members = self._resolve(bundle)
        rnd = _Round([], [], [])
        self._admit_core(registry, rnd)  # CORE can never be hidden by an escape-hatch call
        protected = self.core | members
        for name in self._in_order(registry, members):
            if name in registry and name not in self._slots:
                self._admit_capped(name, f"load_tools:{resolved}", protected, rnd)
        self._loads += 1
        loaded = self.loaded
        digest, changed = self._rehash(registry, loaded)
        record = logline.LoadToolsRecord(
            turn=self._turn, bundle=resolved, admitted=tuple(sorted(rnd.admitted)), evicted=tuple(sorted(rnd.evicted)),
            skipped_at_cap=tuple(sorted(rnd.skipped_at_cap)), loaded=loaded, tools_hash=digest,
            selection_ms=(self._perf() - started) * 1000.0)
        self._log_record(record)
        return Selection(record, self._reasons(rnd), changed)

    def validate_registry(self, registry: ToolRegistry) -> None:
        """Raise ValueError if CORE or a bundle names a tool the registry lacks."""
        missing_core = sorted(n for n in self.core if n not in registry)
        missing_members = sorted({m for b in self.bundles for m in b.members if m not in registry})
        if missing_core or missing_members:
            raise ValueError(
                "loader configuration names tools missing from the registry: "
                f"CORE: {', '.join(missing_core) or 'none'}; "
                f"bundle members: {', '.join(missing_members) or 'none'}")


def build_doc_loader(embedder: Embedder, *, preset: str = "default", threshold: float | None = None,
                     max_tools: int | None = None, cache_dir: str | None = None, profile: str = "doc",
                     tools_hash_fn: ToolsHashFn | None = None, logger: logging.Logger | None = None,
                     learned_examples: Mapping[str, Sequence[str]] | None = None,
                     companions: CompanionGraph | None = None,
                     learned_worked: Sequence[WorkedExample] = ()) -> ToolLoader:
    """The composition root's one-liner: CORE, bundles and examples of ``profile`` plus a preset.

    ``threshold`` / ``max_tools`` override the preset (env ``GAIA_DYNAMIC_TOOLS_TAU`` /
    ``GAIA_DYNAMIC_TOOLS_MAX`` land here). ``cache_dir=None`` keeps tool vectors in memory.
    ``learned_examples`` (the user's own wording) join the hand-written examples;
    ``companions`` are the learned workflow edges (both from ``skills/learning.py``);
    ``learned_worked`` (the user's own requests with the call that served them) join the shipped worked
    examples.
    """
    settings = get_preset(preset)
    config = load_bundles(profile)
    examples = load_examples(profile) if "examples" in settings.views else {}
    return ToolLoader(config.core, config.bundles, embedder, settings=settings, threshold=threshold,
                      max_tools=max_tools, examples=examples, aliases=config.aliases,
                      learned_examples=learned_examples, companions=companions,
                      worked=with_learned(load_worked(profile), learned_worked) if settings.worked else (),
                      doc_cache=DocEmbeddingCache(cache_dir),
                      tools_hash_fn=tools_hash_fn, logger=logger)
