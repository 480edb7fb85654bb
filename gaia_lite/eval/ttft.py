"""Live time to first token, loader off vs on, interleaved in one run.

``gaia-lite eval ttft`` drives two agents that share one model server: one
with the loader off (every tool in the prompt) and one with it on. Each
request is built exactly as the agent builds its first model call of a turn:
the selector picks the tools, the agent composes its system prompt and tool
schemas, and the client streams the request. Only the answer is cut short
(``max_tokens`` small): prefill is what the tool list costs.

* **First turn, cold.** A per-request nonce at the start of the system prompt
  defeats the server's prefix cache (as GAIA's benchmark does), so every request
  pays its whole prefill. One discarded warm-up request per arm comes first.
* **Later turns, warm.** A scripted six-turn conversation with one change of
  topic, identical for both arms. The assistant side of the script is canned
  (tool calls, tool results and answers), so the two arms differ only in the
  tool block; one nonce per conversation, so turn 1 is cold and turns 2-6 reuse
  the prefix unless the tool block changed. Each canned tool call is reported
  to the selector (``record_tool_use``) as the executor would, so the loader's
  LRU sees the same uses as in a live session.

Two counts over the script tell the tool set and the prompt apart:
``tool_set_changes`` counts turns whose loaded set changed, ``prefix_changes``
turns whose bytes before the conversation (system prompt and ``tools`` array,
where chat templates put the tools) differ from the previous turn's. Only the
second costs the server its cached prefix: the stable layout discloses new
tools inside the conversation, so the set can change while the prefix stays.

Two more first-turn phases need the embedded llama-server (``restore`` given; issue 29):

* **First turn, restored prefix** (``first_restored``). Before each request the server's slot is made
  to hold the arm's shared prompt prefix, restored from its saved file, as a freshly started server's
  is before its first request; no nonce. What a cold server's first turn costs with the prefix saved.
* **First turn, kept-alive server** (``first_kept``). A new conversation sent right after the arm's
  previous one, no nonce, nothing restored: what the next ``ask`` costs on a kept-alive server.

Arms alternate off, on, off, on … so drift on a busy machine hits both alike:
cold first turns request by request, and the scripted conversations turn by
turn (``interleave="turn"``, the default), each arm continuing its own
conversation. That needs a server that keeps each conversation's cached
prefix while the other arms' requests come between (llama-server saves a
slot's prompt to its host-memory cache, ``--cache-ram``, on by default, and
restores it when the conversation comes back); every later turn whose prefix
did not change but whose cache came back short is flagged ``cache_lost``, so
a server that cannot do this shows up instead of skewing the ratio. With
``interleave="conversation"`` each arm runs a whole conversation before the
next one starts (one cache suffices; drift between arms is not controlled).
TTFT is measured by the client (time to the first streamed content or tool
call); prompt, cached and prefill numbers are the server's own (llama-server
``timings``; servers that report nothing leave them None).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping, Sequence

__all__ = ["ScriptTurn", "Sample", "QUESTIONS", "SCRIPT", "ARMS", "EXTRA_ARMS", "INTERLEAVE", "run_ttft", "first_request",
           "summarize", "quantile", "samples_to_dicts", "prefix_digest"]

ARMS = ("off", "on")
# Optional arms, so the stable layout's savings show side by side: ``rewrite`` is GAIA's prompt layout (the
# system prompt is recomposed whenever the loaded set changes) with LRU eviction; ``gaia`` is GAIA's
# released loader (preset gaia: admission order, eviction only at a turn boundary) with its layout.
EXTRA_ARMS = ("rewrite", "gaia")
INTERLEAVE = ("turn", "conversation")
# A later turn whose prefix is unchanged should get back at least the previous request's tokens from the
# cache; this many fewer counts as a lost cache (templates may re-render the last few tokens differently).
CACHE_SLACK = 16

# Realistic first messages of a doc-profile session.
QUESTIONS = (
    "What does the employee handbook say about working remotely?",
    "Find the Q3 report in my documents and tell me the revenue.",
    "Index the PDFs in my reports folder so I can ask questions about them.",
    "What was the total revenue in Q1 according to sales_data_2025.csv?",
    "Summarize the contract in contracts/acme_msa.pdf in three bullet points.",
    "Which files in this project mention the word deadline?",
)


@dataclass(frozen=True)
class ScriptTurn:
    """One user turn of the warm script and the canned assistant side that follows it."""

    user: str
    calls: tuple[tuple[str, dict[str, Any], dict[str, Any]], ...]  # (tool, arguments, result)
    answer: str


HANDBOOK = "docs/hr/employee_handbook.md"
SALES = "data/sales_data_2025.csv"

SCRIPT: tuple[ScriptTurn, ...] = (
    ScriptTurn("Where is our employee handbook? It's somewhere under this folder.",
               (("search_file", {"file_pattern": "employee_handbook"},
                 {"status": "success", "files": [HANDBOOK], "count": 1}),),
               f"The handbook is at {HANDBOOK}."),
    ScriptTurn("Please index it so I can ask questions about it.",
               (("index_document", {"file_path": HANDBOOK},
                 {"status": "success", "file": HANDBOOK, "chunks": 9}),),
               "Done: the handbook is indexed (9 chunks)."),
    ScriptTurn("How many PTO days do first-year employees get?",
               (("query_specific_file", {"file_path": HANDBOOK, "query": "PTO days first-year employees"},
                 {"status": "success", "chunks": [{"text": "Employees in their first year accrue 15 days of "
                                                           "paid time off (PTO)."}]}),),
               "First-year employees get 15 days of PTO."),
    ScriptTurn("And what is the policy on working from home?",
               (("query_specific_file", {"file_path": HANDBOOK, "query": "remote work policy"},
                 {"status": "success", "chunks": [{"text": "Staff may work remotely up to 3 days per week "
                                                           "with their manager's approval."}]}),),
               "Up to 3 days a week from home, with your manager's approval."),
    # the change of topic: from HR documents to a data file
    ScriptTurn(f"Different question: what was the total revenue in Q1 in {SALES}?",
               (("analyze_data_file", {"file_path": SALES, "analysis_type": "summary"},
                 {"status": "success", "rows": 24, "totals": {"revenue": 340000}}),),
               "Total Q1 revenue was $340,000."),
    ScriptTurn("Who was the top salesperson in that file, and with how much?",
               (("analyze_data_file", {"file_path": SALES, "analysis_type": "summary", "group_by": "salesperson"},
                 {"status": "success", "groups": {"Sarah Chen": 70000, "Carlos Rivera": 69000}}),),
               "Sarah Chen, with $70,000."),
)


@dataclass(frozen=True)
class Sample:
    """One measured request."""

    arm: str
    phase: str  # "first" (cold first turn), "first_restored", "first_kept" or "script" (the conversation)
    trial: int
    turn: int
    ttft_s: float | None
    prefill_s: float | None  # the server's prompt_ms, when reported
    prompt_tokens: int | None
    cached_tokens: int | None
    tools_shown: int
    tools_hash: str
    changed: bool
    select_ms: float
    tools: tuple[str, ...] = ()
    prefix_hash: str = ""  # digest of the bytes before the conversation: system prompt (no nonce) + tools
    prefix_changed: bool = False  # differs from the previous turn of the same conversation
    cache_lost: bool = False  # prefix unchanged, yet the server restored less than the previous request

    @property
    def prefilled_tokens(self) -> int | None:
        """Tokens the server had to process (not restored from its cache): what TTFT pays for."""
        if self.prompt_tokens is None:
            return None
        return self.prompt_tokens - (self.cached_tokens or 0)


def quantile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated quantile (q in [0, 1]); None for no values."""
    data = sorted(v for v in values if v is not None)
    if not data:
        return None
    pos = (len(data) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def _median(values: Sequence[Any]) -> float | None:
    data = [v for v in values if v is not None]
    return statistics.median(data) if data else None


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 4) if a is not None and b else None


def _r(v: float | None, nd: int = 4) -> float | None:
    return round(v, nd) if v is not None else None


def _script_history(turn: ScriptTurn, index: int) -> list[dict[str, Any]]:
    """The canned messages that follow the user message of ``turn`` (as the agent writes them)."""
    msgs: list[dict[str, Any]] = []
    if turn.calls:
        wire = [{"id": f"call_s{index}_{j}", "type": "function",
                 "function": {"name": name, "arguments": json.dumps(args)}}
                for j, (name, args, _) in enumerate(turn.calls)]
        msgs.append({"role": "assistant", "content": None, "tool_calls": wire})
        for j, (_, _, result) in enumerate(turn.calls):
            msgs.append({"role": "tool", "tool_call_id": f"call_s{index}_{j}", "content": json.dumps(result)})
    msgs.append({"role": "assistant", "content": turn.answer})
    return msgs


def prefix_digest(system: str, tools: list[dict[str, Any]] | None) -> str:
    """Short digest of what a chat template puts before the conversation: the system prompt and the
    ``tools`` array, serialised as sent (key order included: the template renders it in that order)."""
    h = hashlib.sha256(system.encode("utf-8"))
    h.update(b"\x00")
    h.update(json.dumps(tools, ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()[:12]


@dataclass(frozen=True)
class _Sent:
    result: Any  # ChatResult
    state: Any  # SelectionState
    select_ms: float
    content: str  # the user message as the agent stores it
    prefix: str  # prefix_digest of the request, without the nonce


def _request(agent: Any, earlier: Sequence[str], history: Sequence[dict[str, Any]], query: str,
             nonce: str, max_tokens: int) -> _Sent:
    """Select tools and send the turn's first model call, laid out by the agent's prompt layout."""
    t0 = time.perf_counter()
    state = agent.selector.select(list(earlier), query)
    select_ms = (time.perf_counter() - t0) * 1000.0
    content = agent.turn_message(state, query)
    system = agent.system_prompt(state)
    tools = agent.tool_schemas(state)
    tag = f"[req-{nonce}] " if nonce else ""  # no nonce: the server may reuse a cached prefix
    messages = [{"role": "system", "content": tag + system}, *history, {"role": "user", "content": content}]
    result = agent.client.chat(messages, tools=tools, max_tokens=max_tokens, temperature=0.0)
    return _Sent(result, state, select_ms, content, prefix_digest(system, tools))


def first_request(agent: Any, query: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """(messages, tools) of a new conversation's first model call, built as ``_request`` builds it but
    not sent (the agent is reset before and after)."""
    agent.reset()
    state = agent.selector.select([], query)
    content = agent.turn_message(state, query)
    out = ([{"role": "system", "content": agent.system_prompt(state)}, {"role": "user", "content": content}],
           agent.tool_schemas(state))
    agent.reset()
    return out


def _sample(arm: str, phase: str, trial: int, turn: int, agent: Any, sent: _Sent,
            previous: Sample | None = None) -> Sample:
    u, state = sent.result.usage, sent.state
    names = tuple(state.visible_names(agent.registry))
    prefix_changed = previous is not None and sent.prefix != previous.prefix_hash
    lost = (previous is not None and not prefix_changed and previous.prompt_tokens is not None
            and u.cached_tokens is not None and u.cached_tokens < previous.prompt_tokens - CACHE_SLACK)
    return Sample(arm, phase, trial, turn, u.ttft_s, (u.prompt_ms / 1000.0) if u.prompt_ms is not None else None,
                  u.prompt_tokens, u.cached_tokens, len(names), state.tools_hash, bool(state.changed),
                  sent.select_ms, names, sent.prefix, prefix_changed, lost)


@dataclass
class _Conversation:
    """One arm's scripted conversation in progress."""

    nonce: str
    earlier: list[str] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    last: Sample | None = None


def _first_turns(arms: Mapping[str, Any], order: Sequence[str], trials: int, questions: Sequence[str],
                 max_tokens: int, say: Callable[[str], None]) -> list[Sample]:
    """The cold first-turn phase: a nonce in each request, so nothing is cached."""
    samples = []
    for trial in range(trials):
        q = questions[trial % len(questions)] if questions else SCRIPT[0].user
        for arm in order:
            agent = arms[arm]
            agent.reset()
            s = _sample(arm, "first", trial, 1, agent, _request(agent, [], [], q, uuid.uuid4().hex[:12], max_tokens))
            samples.append(s)
            say(f"first turn, trial {trial + 1}/{trials}, loader {arm}: {_fmt_s(s.ttft_s)} "
                f"({s.prompt_tokens} prompt tokens, {s.tools_shown} tools)")
    return samples


def _restored_first_turns(arms: Mapping[str, Any], order: Sequence[str], trials: int, questions: Sequence[str],
                          max_tokens: int, say: Callable[[str], None],
                          restore: Callable[[str, Any], bool]) -> list[Sample]:
    """The ``first_restored`` and ``first_kept`` phases, arms alternating (module docstring)."""
    samples = []
    for trial in range(trials):
        q = questions[trial % len(questions)] if questions else SCRIPT[0].user
        for phase in ("first_restored", "first_kept"):
            for arm in order:
                agent = arms[arm]
                agent.reset()
                if phase == "first_restored" and not restore(arm, agent):
                    continue
                s = _sample(arm, phase, trial, 1, agent, _request(agent, [], [], q, "", max_tokens))
                samples.append(s)
                say(f"first turn ({phase.removeprefix('first_')}), trial {trial + 1}/{trials}, loader {arm}: "
                    f"{_fmt_s(s.ttft_s)} (prefilled {s.prefilled_tokens} of {s.prompt_tokens} prompt tokens)")
    return samples


def run_ttft(arms: Mapping[str, Any], *, trials: int = 3, questions: Sequence[str] = QUESTIONS,
             script: Sequence[ScriptTurn] = SCRIPT, max_tokens: int = 8, warmup: bool = True,
             first_turns: bool = True, interleave: str = "turn",
             progress: Callable[[str], None] | None = None,
             restore: Callable[[str, Any], bool] | None = None) -> list[Sample]:
    """Measure the arms (``{"off": agent, "on": agent}``, optionally ``"rewrite"``, ``"gaia"``); every sample.

    The agents must share one server. Each phase alternates the arms (see the
    module docstring for ``interleave``); each conversation starts from
    ``agent.reset()``. ``first_turns=False`` skips the cold first-turn phase. ``restore(arm, agent)``
    (True when it worked) makes the server's slot hold the arm's saved shared prefix; given, the
    ``first_restored`` and ``first_kept`` phases run after the cold one.
    """
    if not set(ARMS) <= set(arms) or not set(arms) <= set(ARMS + EXTRA_ARMS):
        raise ValueError(f"arms must be {ARMS}, optionally with {EXTRA_ARMS}")
    if interleave not in INTERLEAVE:
        raise ValueError(f"interleave must be one of {INTERLEAVE}, got {interleave!r}")
    order = [a for a in ARMS + EXTRA_ARMS if a in arms]
    if trials < 1:
        raise ValueError("trials must be >= 1")
    say = progress or (lambda _msg: None)
    samples: list[Sample] = []
    if warmup:
        for arm in order:
            arms[arm].reset()
            _request(arms[arm], [], [], questions[0] if questions else SCRIPT[0].user, uuid.uuid4().hex[:12],
                     max_tokens)
    if first_turns:
        samples += _first_turns(arms, order, trials, questions, max_tokens, say)
    if first_turns and restore is not None:
        samples += _restored_first_turns(arms, order, trials, questions, max_tokens, say, restore)
    for trial in range(trials if script else 0):
        convos: dict[str, _Conversation] = {}
        if interleave == "turn":
            steps = [(arm, i) for i in range(len(script)) for arm in order]
        else:
            steps = [(arm, i) for arm in order for i in range(len(script))]
        for arm, i in steps:
            agent, turn = arms[arm], script[i]
            if arm not in convos:
                agent.reset()
                convos[arm] = _Conversation(uuid.uuid4().hex[:12])
            c = convos[arm]
            sent = _request(agent, c.earlier, c.history, turn.user, c.nonce, max_tokens)
            s = _sample(arm, "script", trial, i + 1, agent, sent, c.last)
            c.last = s
            samples.append(s)
            say(f"script trial {trial + 1}/{trials}, loader {arm}, turn {i + 1}: {_fmt_s(s.ttft_s)} "
                f"(cached {s.cached_tokens}/{s.prompt_tokens}{', tools changed' if s.changed else ''}"
                f"{', prefix changed' if s.prefix_changed else ''}{', CACHE LOST' if s.cache_lost else ''})")
            for name, _args, _result in turn.calls:  # as the executor does, so LRU sees the use
                agent.selector.record_tool_use(name)
            c.earlier.append(turn.user)
            c.history.append({"role": "user", "content": sent.content})
            c.history.extend(_script_history(turn, i))
    return samples


def _fmt_s(v: float | None) -> str:
    return f"{v:.2f} s" if v is not None else "n/a"


def _stats(samples: Sequence[Sample], attr: str) -> tuple[float | None, float | None]:
    values = [getattr(s, attr) for s in samples]
    return _r(_median(values)), _r(quantile([v for v in values if v is not None], 0.9))


def _churn(on: Sequence[Sample], turn: int) -> dict[str, list[str]]:
    """Tools added to / dropped from the prompt at ``turn`` in the first conversation (selection is deterministic)."""
    first_trial = min((s.trial for s in on), default=0)
    by_turn = {s.turn: set(s.tools) for s in on if s.trial == first_trial}
    if turn not in by_turn or turn - 1 not in by_turn:
        return {"on_added": [], "on_dropped": []}
    return {"on_added": sorted(by_turn[turn] - by_turn[turn - 1]),
            "on_dropped": sorted(by_turn[turn - 1] - by_turn[turn])}


def _per_trial(samples: Sequence[Sample], flag: str) -> dict[int, int]:
    """How many turns of each scripted conversation had ``flag`` set."""
    counts: dict[int, int] = {}
    for s in samples:
        counts[s.trial] = counts.get(s.trial, 0) + int(getattr(s, flag))
    return counts


def _worst(per_trial: Mapping[int, int]) -> int | None:
    return max(per_trial.values()) if per_trial else None


def _side(group: Mapping[str, Sequence[Sample]], present: Sequence[str], attr: str) -> dict[str, Any]:
    """Median and p90 of ``attr`` for each arm, and each arm's ratio over off."""
    off_med, off_p90 = _stats(group["off"], attr)
    on_med, on_p90 = _stats(group["on"], attr)
    out = {"off_s": off_med, "on_s": on_med, "ratio": _ratio(on_med, off_med),
           "off_p90_s": off_p90, "on_p90_s": on_p90}
    for extra in present[len(ARMS):]:
        med, p90 = _stats(group[extra], attr)
        out.update({f"{extra}_s": med, f"{extra}_ratio": _ratio(med, off_med), f"{extra}_p90_s": p90})
    return out


def _turn_row(script: Mapping[str, Sequence[Sample]], present: Sequence[str], t: int) -> dict[str, Any]:
    """One scripted turn over all conversations: medians per arm, changes, and the tools' churn."""
    row: dict[str, Any] = {"turn": t}
    for a in present:
        group = [s for s in script[a] if s.turn == t]
        row[f"{a}_s"] = _r(_median([s.ttft_s for s in group]))
        row[f"{a}_prompt_tokens"] = _median([s.prompt_tokens for s in group])
        row[f"{a}_cached_tokens"] = _median([s.cached_tokens for s in group])
    row["on_tools_changed"] = sum(s.changed for s in script["on"] if s.turn == t)
    for a in present:
        row[f"{a}_prefix_changed"] = sum(s.prefix_changed for s in script[a] if s.turn == t)
    row["on_tools_shown"] = _median([s.tools_shown for s in script["on"] if s.turn == t])
    row.update(_churn(script["on"], t))
    return row


def _shared_prefix_firsts(samples: Sequence[Sample], present: Sequence[str]) -> dict[str, Any]:
    """The ``first_turn_restored`` and ``first_turn_kept`` reports, for the phases that ran in both arms."""
    out: dict[str, Any] = {}
    for phase in ("first_restored", "first_kept"):
        group = {a: [s for s in samples if s.phase == phase and s.arm == a] for a in present}
        if group["on"] and group["off"]:
            out[phase.replace("first", "first_turn")] = {
                **_side(group, present, "ttft_s"), "n": len(group["on"]),
                "prefill": _side(group, present, "prefill_s"),
                "prompt_tokens": {a: _median([s.prompt_tokens for s in group[a]]) for a in present},
                "prefilled_tokens": {a: _median([s.prefilled_tokens for s in group[a]]) for a in present},
                "prefilled_share": {a: _r(_median([s.prefilled_tokens / s.prompt_tokens for s in group[a]
                                                   if s.prompt_tokens and s.prefilled_tokens is not None]), 3)
                                    for a in present}}
    return out


def summarize(samples: Sequence[Sample]) -> dict[str, Any]:
    """The report of one render path: medians, p90s, server token counts, tool-block changes.

    ``ratio`` is on/off; with a ``rewrite`` (``gaia``) arm, ``rewrite_ratio`` (``gaia_ratio``) is that
    arm over off. ``tool_set_changes_on`` and ``prefix_changes`` (per arm) are the most any one
    conversation of the script had, turn 1 not counted; ``cache_lost`` (per arm) counts the later turns,
    over all conversations, whose unchanged prefix the server did not restore (a broken measurement).
    """
    present = [a for a in ARMS + EXTRA_ARMS if a in ARMS or any(s.arm == a for s in samples)]
    first = {a: [s for s in samples if s.phase == "first" and s.arm == a] for a in present}
    script = {a: [s for s in samples if s.phase == "script" and s.arm == a] for a in present}
    later = {a: [s for s in script[a] if s.turn > 1] for a in present}

    first_turn = {**_side(first, present, "ttft_s"), "n": len(first["on"]),
                  "prefill": _side(first, present, "prefill_s"),
                  "select_ms_on": _r(_median([s.select_ms for s in first["on"]]), 3)}
    extra_first = _shared_prefix_firsts(samples, present)
    turns = sorted({s.turn for s in script["on"] + script["off"]})
    per_turn = [_turn_row(script, present, t) for t in turns]
    changes_by_trial = _per_trial(script["on"], "changed")
    prefix_changes = {a: _worst(_per_trial(script[a], "prefix_changed")) for a in present}
    later_turns = {**_side(later, present, "ttft_s"),
                   "tool_set_changes_on": _worst(changes_by_trial),
                   "prefix_changes_on": prefix_changes["on"], "prefix_changes": prefix_changes,
                   "cache_lost": {a: sum(s.cache_lost for s in later[a]) for a in present},
                   "turns_per_conversation": len(turns), "conversations": len(changes_by_trial),
                   "prefill": _side(later, present, "prefill_s"), "per_turn": per_turn}
    return {
        "first_turn": first_turn,
        **extra_first,
        "later_turns": later_turns,
        "prompt_tokens": {a: _median([s.prompt_tokens for s in first[a]]) for a in present},
        "prefilled_tokens": {
            "first_turn": {a: _median([s.prefilled_tokens for s in first[a]]) for a in present},
            "later_turns": {a: _median([s.prefilled_tokens for s in later[a]]) for a in present},
            "later_turns_total": {a: sum(s.prefilled_tokens or 0 for s in later[a]) for a in present},
        },
        "cached_tokens": {
            "first_turn": {a: _median([s.cached_tokens for s in first[a]]) for a in present},
            "later_turns": {a: _median([s.cached_tokens for s in later[a]]) for a in present},
        },
        "tools_shown": {a: _median([s.tools_shown for s in first[a]]) for a in present},
    }


def samples_to_dicts(samples: Sequence[Sample]) -> list[dict[str, Any]]:
    return [{**asdict(s), "prefilled_tokens": s.prefilled_tokens} for s in samples]
