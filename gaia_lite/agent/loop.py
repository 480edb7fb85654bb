"""The agent loop: one user turn in, a stream of events out.

    input -> select tools (loader) -> system prompt -> model -> tool calls
          -> execute against the FULL registry -> ... -> answer

``Agent.run(query)`` is a generator of ``gaia_lite.events`` values; it never
prints and never reads stdin (approval and user questions are injected
callables). Each model call is one ``_step``; the reply mode (``replies``)
says how calls are read from a reply, so native ``tool_calls`` and calls
written into the text travel the same way on the wire. What happens to a
reply (run its calls, ask again, end the turn with it or with an answer
built from the tool results) is the judge's verdict (judge/).
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generator, Iterator

from gaia_lite.errors import Cancelled, GaiaError, ModelError
from gaia_lite.events import (
    Event, ModelCallFinished, Notice, TextDelta, ToolCallFinished, ToolCallStarted, ToolsLoaded, TurnFailed,
    TurnStarted,
)
from gaia_lite.llm.client import ChatClient
from gaia_lite.messages import ChatResult, Message, ToolCall, new_call_id
from gaia_lite.registry.bridge import unwrap_call
from gaia_lite.registry.execute import ToolExecutor
from gaia_lite.registry.ports import MemoryPort
from gaia_lite.registry.registry import ToolRegistry

from .books import CallBook, Steer, TurnStats
from .facts import asked_to_keep, asks_about_user, asks_in_first_person, in_user_words
from .fallback import answer_from_result, for_people, plain_name
from .evidence import Lookups
from .judge import Accept, Evidence, FromResults, RunCalls, Stage, Verdict, judge
from .named import NamedInWords, in_words_once, named_in_message
from .opening import Opening, opening
from .results import compact_result
from .prefix import make_layout
from .prompt import RESPONSE_FORMAT, worked_block
from .replies import FreeReplies, OwnLinesView, ReplyMode
from .reply import Reply, without_own_lines, without_tool_names
from .selection import SelectionState, ToolSelector
from .held_call import HeldCall, example_first, held_call, list_first, pointed_look, read_first
from .window import TokenMeter, fit_history, is_context_overflow, split_turns

if TYPE_CHECKING:  # type-only: skills sit beside the agent and are passed in
    from gaia_lite.loader.worked import WorkedPick
    from gaia_lite.skills.recall import SkillService

__all__ = ["Agent", "AgentOptions", "origin_of"]

log = logging.getLogger("gaia_lite.agent")

# Small text-path models tend to echo tool results as JSON; one short line after
# each result steers them to either answer in prose or call the next tool.
TEXT_PATH_NEXT = "\n(Now answer the user in plain sentences, or call another tool if needed.)"
# A reply that copies the after-result line stops there (the request's ``stop``): its start this long is
# ours alone ("(If this answers"), and every token of the copy is decode time the user waits through.
STOP_AT_COPY = 16
STOP_CALLING = "Stop calling tools now and answer my request with what you already have, in plain text."
GAVE_UP = "I could not finish this with the tools available."
# Saved facts shown beside a user message: MiniLM cosine of a question to the fact that answers it
# was 0.72-0.88 ("who is my dentist?" / "my dentist is Dr. Okafor"), to unrelated facts below 0.3.
SAVED_FACTS_HEADER = "Saved memories that may help (from earlier conversations):"
SAVED_FACTS_LIMIT = 3
SAVED_FACTS_MIN = 0.45
# A question about the user ("what's my locker code again?", "how do I like my summaries?", "What did I tell
# you about my diet?"; facts.asks_about_user) is shown its closest saved facts whatever their cosine:
# such a question is far from the fact it asks for (MiniLM: 0.31-0.39 for "what did I tell you ..." pairs, and
# "how do I like my summaries?" / "I like my summaries as bullet points" fell under the 0.30 bar judge2 had
# for them), so the 0.5B read notes.txt instead. A few lines at most, none on other turns or with an empty
# memory.
SAVED_FACTS_ABOUT_USER = 3
# A question in the first person with none of those words (facts.asks_in_first_person) is shown the saved facts
# at least this close: "what diet do i follow?" / "I'm vegetarian" 0.33 and "is there anything i can't eat?" /
# "I'm allergic to peanuts" 0.44 fell under SAVED_FACTS_MIN, and the 1.5B said it knew nothing (probe45,
# probe46); "how do I make pancakes", "am i free on friday?" and "what did I do yesterday?" were at most 0.20
# from any of seven facts.
SAVED_FACTS_FIRST_PERSON = 0.30
# Under this cosine the closest fact is not said to answer the question when an answer is built from it: the
# facts that answered "what did I tell you ..." questions measured 0.31-0.39, the others at most 0.25.
SAVED_FACT_ANSWERS = 0.30
# A question this close to a saved fact asks about what the user told, whatever its words: "Do I prefer tea or
# coffee?" beside "I prefer tea over coffee" (0.89) and "What appointment do I have on 12 May?" beside "My
# appointment with Dr. Alvarez is on 12 May" (0.68) have none of the words facts.asks_about_user reads, and the
# 0.5B answered both "I don't have any saved memories that may help" with the fact beside them (test split).
# General questions on a fact's topic stay under it: "Are peanuts a kind of nut?" beside "I am allergic to
# peanuts" 0.66, "What is a vegetarian diet?" 0.61, "How do licence plates work in Germany?" 0.60
SAVED_FACT_ASKED = 0.67


def origin_of(answer: str, reply: str) -> str:
    """Where an accepted answer came from: the model's reply, whole or with our own copied lines taken out
    ("model"), that reply with what the agent added ("amended": a guard's lines after it), or the agent's
    own words ("built")."""
    said, given = reply.strip(), answer.strip()
    if not said or not given:
        return "built" if given else "model"
    if given in said:
        return "model"
    return "amended" if said in given else "built"


@dataclass
class AgentOptions:
    native_tools: bool
    max_steps: int = 50  # model calls per turn, the forced final answer included
    max_tokens: int = 1024
    temperature: float = 0.1
    workdir: Path = field(default_factory=Path.cwd)
    session_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    prompt_layout: str = "stable"  # "stable" keeps the KV-cache prefix; "rewrite" is GAIA's (see prefix.py)
    context_tokens: int | None = None  # the model's window; None = unknown, send the whole history (window.py)
    judge_skip: frozenset[str] = frozenset()  # the judge's guards turned off (GAIA_JUDGE_SKIP), to measure each
    held_calls: bool = True  # a plain request about one file the message names holds the first reply to its call
    # the sampler's seed, sent with every request (None: the server's own); eval arms share one so they differ
    # only where their inputs do
    seed: int | None = None


@dataclass(frozen=True)
class _Recalled:
    """This turn's learned procedures: SKILL-tier tools, prompt blocks, procedure names."""

    tools: list[str] | None = None
    blocks: tuple[str, ...] = ()
    names: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Request:
    messages: list[Message]
    tools: list[dict[str, Any]] | None
    extra: dict[str, Any]
    opening: str = ""  # the reply's start, sent as the last (assistant) message: the model continues it


class Agent:
    def __init__(self, client: ChatClient, registry: ToolRegistry, executor: ToolExecutor,
                 selector: ToolSelector, options: AgentOptions, *, memory: MemoryPort | None = None,
                 skills: SkillService | None = None, replies: ReplyMode | None = None,
                 notices: tuple[str, ...] = ()) -> None:
        self.client = client
        self.registry = registry
        self.executor = executor
        self.selector = selector
        self.options = options
        self.memory = memory
        self.skills = skills
        self.replies = replies or FreeReplies(registry.names, hold_all=not options.native_tools)
        self._notices = list(notices)  # start-up warnings (e.g. the free-parser fallback), shown once
        self.history: list[Message] = []
        self.user_messages: list[str] = []
        self._table: Path | None = None  # the table the last turn queried: a follow-up may ask it again
        self._read: Path | None = None  # the text file the last turn read or edited: a follow-up may change it
        self.turn = 0
        self.layout = make_layout(options.prompt_layout, registry, options.workdir, native=options.native_tools)
        self.meter = TokenMeter()

    # ------------------------------------------------------------------ prompt
    def system_prompt(self, state: SelectionState) -> str:
        text = self.layout.system(state)
        fmt = self.replies.response_format_text  # the same text every time, so the prefix stays stable
        return text.replace(RESPONSE_FORMAT, fmt) if fmt else text

    def tool_schemas(self, state: SelectionState) -> list[dict[str, Any]] | None:
        return self.layout.tools(state)

    def turn_message(self, state: SelectionState, query: str, facts: tuple[str, ...] = (),
                     blocks: tuple[str, ...] = (), table: str = "") -> str:
        """The user message a turn puts in the history: tools disclosed now, the worked examples, the
        message, the table it names as a query reads it, the saved facts beside it, then the recalled
        procedures (the evals send the same)."""
        # a tool this conversation already called has its own real call in the history: no example needed
        called = self._called_tools() if state.examples else set()
        worked = worked_block([p for p in state.examples if p.example.tool not in called], self.replies.call_key)
        parts = [*([worked] if worked else []), query, *([table] if table else []), *facts]
        return self.layout.begin_turn(state, "\n\n".join(parts), blocks)

    def _called_tools(self) -> set[str]:
        """The tools the conversation's history shows a call of (a bridged call by the tool it stands for)."""
        names = set()
        for msg in self.history:
            for wire in msg.get("tool_calls") or ():
                fn = wire.get("function") or {}
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except ValueError:
                    args = {}
                names.add(unwrap_call(ToolCall("", str(fn.get("name", "")), args if isinstance(args, dict) else {})).name)
        return names

    # ------------------------------------------------------------------ public API
    def reset(self) -> None:
        """Forget the conversation AND the loader session (GAIA's /reset kept history)."""
        self.history.clear()
        self.user_messages.clear()
        self._table = self._read = None
        self.turn = 0
        self.layout.reset()
        self.selector.reset()

    def new_conversation(self) -> None:
        """A new conversation with the same user: ``reset`` plus a new session id, so memory files the
        next turns as another conversation (facts and past conversations stay)."""
        self.reset()
        self.options.session_id = uuid.uuid4().hex[:12]

    def close(self) -> None:
        self.selector.close()

    def load(self, bundle: str) -> ToolsLoaded | str:
        """``/load``: add a bundle or tool outside a turn. Returns the event or an error line."""
        return self.selector.load_bundle(bundle)

    def run(self, query: str) -> Iterator[Event]:
        """Run one user turn. Errors end the turn with TurnFailed; history stays consistent."""
        self._repair_history()
        self.turn += 1
        turn = self.turn
        yield TurnStarted(turn, query)
        while self._notices:
            yield Notice("warning", self._notices.pop(0))
        try:
            yield from self._run_turn(turn, query)
        except (GaiaError, KeyboardInterrupt) as exc:  # GaiaError includes Cancelled
            self._repair_history()
            failure = exc if isinstance(exc, GaiaError) else Cancelled()
            yield TurnFailed(turn, str(failure), recoverable=True, exit_code=failure.exit_code)

    # ------------------------------------------------------------------ the turn
    def _run_turn(self, turn: int, query: str) -> Generator[Event, None, None]:
        """Select this turn's tools, then call the model until it answers, running the tools it calls.
        The last call ``max_steps`` allows, or the one after a call was refused too often, is told to
        answer without tools, and its reply ends the turn."""
        recalled = self._recall_skills(query)
        state = self.selector.select(self.user_messages, query, skill_tools=recalled.tools)
        yield state.event(turn, self.registry)
        yield from state.notices
        self.user_messages.append(query)
        self.executor.ctx.request.message = query  # what the tools may read of the turn (TurnRequest)
        answers = [m["content"] for m in self.history if m["role"] == "assistant" and not m.get("tool_calls")]
        # the user's own words, not the turns' messages (a table shown beside one holds its first rows)
        self.executor.ctx.request.earlier = "\n".join([*self.user_messages[:-1], *map(str, answers)])
        self.executor.ctx.request.asked_before = "\n".join(self.user_messages[:-1])
        facts, closest, saved = self._saved_facts(query)
        stats, book = self._turn_stats(query, facts, closest), CallBook()
        in_words = in_words_once(query, self.executor.ctx)  # one look at the files it names in words, if needed
        held = held_call(query, self.executor.ctx, self.registry.names(), in_words, self._table, self._read) \
            if self.options.held_calls else None
        # held to the call, the model reads what it needs in that step's request; else a table beside the message.
        # What the message plainly asks of a file outweighs how little it is like any tool ("and beans?" after a
        # table was queried opened free, and was answered from the first turn's rows); saved facts beside it do not
        stats.held = held if held and not facts and self._held_opening(held) else None
        if stats.held is not None:
            stats.opening = Opening.TOOL_FIRST
        self.history.append({"role": "user", "content": self.turn_message(
            state, query, facts, recalled.blocks, held.beside if held and not stats.held else "")})
        stats.saved, stats.closest = saved, closest
        stats.named = () if asked_to_keep(query) else named_in_message(query, self.executor.ctx, in_words)
        if stats.held is None and self.options.held_calls:
            yield from self._read_first(query, in_words, stats, book, state.sure)
        answer: str | None = None
        steer = self._first_steer(stats)
        while answer is None:
            if book.stop:  # the model kept repeating refused calls: end with what the tools returned
                answer = yield from self._give_up(stats)
                break
            forced = stats.must_answer or stats.steps + 1 >= self.options.max_steps
            reply = yield from self._step(stats, steer, forced)
            verdict = self._judge(reply, steer.stage(forced), stats)
            steer = steer.after(verdict, reply.text)
            answer = yield from self._act(reply, verdict, stats, book)
        self._remember_turn(query, answer, stats)
        self._table, self._read = self._queried_table(stats), self._read_file(stats)
        log.info("TOOL_CALLS %s", json.dumps({"turn": self.selector.loader_turn(), "session_turn": turn,
                                               "called": stats.called}))
        yield stats.finished(turn, answer, tuple(self.selector.state.visible_names(self.registry)), recalled.names)

    def _queried_table(self, stats: TurnStats) -> Path | None:
        """The table this turn's last successful ``analyze_data_file`` call read (its result's ``file``: the
        argument may have been a bare name the tool found elsewhere), else the one its last failed call named: the
        turn was about that table all the same ("expenses.csv: what columns does it have?" got a query with no such
        column, then "Now go ahead and find which category has the highest total." went to query_documents). None
        without such a call."""
        from gaia_lite.tools.table_brief import QUERIED_SUFFIXES

        calls = [r for r in stats.results if r.name == "analyze_data_file"]
        done = [r for r in calls if r.ok] or calls
        raw = (done[-1].payload.get("file") or done[-1].arguments.get("file_path")) if done else None
        path = self._existing_file(raw)
        return path if path is not None and path.suffix.lower() in QUERIED_SUFFIXES else None

    def _existing_file(self, raw: object) -> Path | None:
        """The existing file ``raw`` (a path a call took or returned) names inside the allowed folders, else None."""
        from gaia_lite.tools.sandbox import resolved_or_none

        path = resolved_or_none(self.executor.ctx, raw) if isinstance(raw, str) and raw.strip() else None
        return path if path is not None and path.is_file() else None

    def _read_first(self, query: str, in_words: NamedInWords, stats: TurnStats, book: CallBook,
                    sure: WorkedPick | None) -> Generator[Event, None, None]:
        """The one small text file a question names, read before the model's first reply (held_call.read_first), else
        the one folder it names by its path's words, listed (held_call.list_first), else the call of the worked
        example that serves it as it stands (held_call.example_first): the model answers from it, or calls on. The
        call is the agent's own, shown and recorded as any call."""
        names = self.registry.names()
        path = read_first(query, self.executor.ctx, names, in_words)
        folder = None if path else list_first(query, self.executor.ctx, names, in_words.folders)
        if path is not None:
            name, arguments = "read_file", {"file_path": path}
        elif folder is not None:
            name, arguments = "browse_directory", {"directory_path": folder}
        elif (example := example_first(query, sure, names, in_words)) is not None:
            name, arguments = example
        else:
            return
        yield from self._agent_call(name, arguments, book, stats)

    def _agent_call(self, name: str, arguments: dict[str, Any], book: CallBook,
                    stats: TurnStats) -> Generator[Event, None, None]:
        """A call the agent makes itself, shown and recorded as any call; the next reply chooses: answer, or call."""
        call = ToolCall(new_call_id(), name, arguments, source="agent")
        self.history.append({"role": "assistant", "content": None, "tool_calls": [call.wire()]})
        yield from self._call_tool(call, book, stats)
        stats.opening = Opening.OPEN

    def _first_steer(self, stats: TurnStats) -> Steer:
        """The steer of a turn's first model call: held to a call (no answer yet) when the question's words point to
        a file here that the conversation has not looked at (held_call.pointed_look), where the reply mode can hold
        a reply so; else free to answer."""
        if stats.held is not None or stats.results or stats.facts or stats.opening is Opening.OPEN \
                or not self.options.held_calls or not self.replies.forces_calls:
            return Steer()
        seen = "\n".join(m["content"] for m in self.history if m["role"] == "tool" and isinstance(m.get("content"), str))
        if pointed_look(self.user_messages[-1], self.executor.ctx, self.registry.names(), seen) is None:
            return Steer()
        # unlike any tool, but about a file here: "whats the fine if someone leaves the laser cutter running
        # unattended?" was held to an answer, and the 1.5B gave one of its own (probe55)
        stats.opening = Opening.TOOL_FIRST
        return Steer(calls_only=True)

    def _read_file(self, stats: TurnStats) -> Path | None:
        """The text file this turn's last successful call read or edited (read_file, edit_file), or None: "what temp
        is the heater set to?" read aquarium/controller.yaml, and "bump it up to 26 please" changes it."""
        done = [r for r in stats.results if r.ok and r.name in ("read_file", "edit_file")]
        return self._existing_file(done[-1].payload.get("file_path") if done else None)

    def _turn_stats(self, query: str, facts: tuple[str, ...], closest: float) -> TurnStats:
        """A new turn's record: how its first reply may begin, and the saved facts shown."""
        start = opening(query, tool_names=self.registry.names(), holds_calls=self.replies.forces_calls,
                        facts_shown=bool(facts), closest_fact=closest,
                        best_tool=lambda: self.selector.best_match(query),
                        later_turn=any(m["role"] == "tool" for m in self.history))
        return TurnStats(opening=start, facts=facts)

    def _held_step(self, stats: TurnStats, *, first: bool) -> tuple[str, HeldCall | None]:
        """A turn held to a call (held_call.py): what this step asks off the record, and the call it is held to."""
        if stats.held is None:
            return "", None
        if first:
            return stats.held.request, stats.held
        return (stats.held.answer_request(stats.last_result) if stats.steps == 1 else ""), None

    def _held_opening(self, held: HeldCall) -> tuple[str, dict[str, Any]] | None:
        """The opening and request fields that hold a reply to ``held``'s call, where the reply mode can."""
        return self.replies.call_opening(held.tool, {"file_path": held.file_path}, held.writes, held.start,
                                         held.options)

    def _judge(self, reply: Reply, stage: Stage, stats: TurnStats) -> Verdict:
        """The judge's verdict on ``reply``, with the guard that gave it recorded for the turn."""
        verdict = judge(reply, self._evidence(stats), stage, can_hold=self.replies.forces_calls)
        if not isinstance(verdict, RunCalls) and verdict.guard:
            stats.guards.append(verdict.guard)
        return verdict

    def _act(self, reply: Reply, verdict: Verdict, stats: TurnStats,
             book: CallBook) -> Generator[Event, None, str | None]:
        """Do what the judge said with ``reply``: the turn's answer, or None to call the model again. The
        model is asked to redo a reply once per turn, off the record (the reply and the request stay out
        of the history); a mode that can hold the next reply to a call does that instead, with no words the
        model could echo; the next request carries either (``Steer``). Calls are not run after the model
        was told to answer."""
        match verdict:
            case RunCalls(calls=calls):
                self.history.append(reply.assistant_message())
                for call in calls:
                    yield from self._call_tool(call, book, stats)
                return None
            case FromResults():
                kept = yield from self._keep_asked_fact(stats)
                stats.origin = "built"
                return (yield from self._answer(reply, kept or self._from_results(stats), stats))
            case Accept(answer=answer):
                kept = yield from self._keep_asked_fact(stats)
                stats.origin = "built" if kept else origin_of(answer, reply.text)
                return (yield from self._answer(reply, kept or answer, stats))
            case _:  # asked again, or held to a call or an answer: the steer takes it to the next model call
                return None

    def _evidence(self, stats: TurnStats) -> Evidence:
        seen = tuple(m["content"] for m in self.history if m["role"] == "tool" and isinstance(m.get("content"), str))
        looks = Lookups(self.executor.ctx, tuple(self.user_messages))  # each made once, when a guard asks
        facts = stats.facts if self._about_user(stats) else ()  # a refusal beside them is declined_fact's
        return Evidence(tuple(self.registry.names()), tuple(stats.results), stats.last_result,
                        tuple(self.user_messages), facts, self._own_lines(), seen, stats.named,
                        invented=looks.invented, skip=self.options.judge_skip)

    def _after_result(self) -> str:
        """The line the text path writes after each tool result."""
        return self.replies.after_result or TEXT_PATH_NEXT

    def _own_lines(self) -> tuple[str, ...]:
        """The lines the agent writes after tool results and the reply format's JSON lines: a small model
        copies them into an answer, and they are never part of it."""
        return (TEXT_PATH_NEXT.strip(), (self.replies.after_result or "").strip(), *self._format_lines())

    def _format_lines(self) -> tuple[str, ...]:
        """The reply format's lines that show a JSON reply: copied into an answer, whole or cut off where the
        answer's own JSON string ends ("To answer: {" from a 46-line handbook read, 0.5B, dev run), they are
        no part of it."""
        return tuple(ln.strip() for ln in (self.replies.response_format_text or "").splitlines() if "{" in ln)

    def _step(self, stats: TurnStats, steer: Steer, forced: bool) -> Generator[Event, None, Reply]:
        """One model call: build the request (as the judge's verdicts so far steer it), stream the reply, read it."""
        while True:
            first = stats.steps == 0 and not steer.transient and not steer.calls_only
            has_result = stats.last_result is not None or stats.opening is Opening.OPEN
            ask, held = self._held_step(stats, first=first) if not (steer.transient or forced) else ("", None)
            request = yield from self._request(forced, steer.transient, calls_only=steer.calls_only,
                                               has_result=has_result, direct=first and stats.opening is Opening.ANSWER,
                                               held=held, ask=ask)
            try:
                result = yield from self._stream(request, stats)
                break
            except ModelError as exc:
                if self._drop_constraint(request, exc):
                    yield Notice("warning", f"the server refused the reply constraint ({str(exc)[:160]}); "
                                            "reading tool calls from free text for the rest of this session")
                    continue
                # The estimate was too low (or the window unknown): drop half the earlier turns, once.
                if stats.overflow_retried or not is_context_overflow(str(exc)) or not self._drop_older_half():
                    raise
            stats.overflow_retried = True
            yield Notice("warning", "the conversation did not fit the model's context; dropped the older half "
                                    "of it (it stays searchable in memory) and retried")
        stats.model_called(result.usage)
        self.meter.observe(TokenMeter.chars(request.messages, request.tools), result.usage.prompt_tokens)
        reply = self.replies.parse(result)
        u = result.usage
        yield ModelCallFinished(stats.steps, u.ttft_s, u.total_s, u.prompt_tokens, u.cached_tokens,
                                u.completion_tokens, len(reply.calls))
        return reply

    def _request(self, forced: bool, transient: tuple[Message, ...] = (), *,
                 calls_only: bool = False, has_result: bool = False, direct: bool = False,
                 held: HeldCall | None = None, ask: str = "") -> Generator[Event, None, _Request]:
        """This step's request: the prompt for the current selection (no tools when the model must
        answer, told so with ``STOP_CALLING``), fitted to the model's window.
        ``held``: the call the reply is held to; ``ask``: a request sent off the record."""
        state = self.selector.state  # a load_tools call earlier in the turn may have changed it
        system, tools = self._prompt(state, forced)
        if (yield from self._fit_window(system, tools)):  # turns were dropped: the prompt is recomposed
            system, tools = self._prompt(state, forced)
        messages: list[Message] = [{"role": "system", "content": system}, *self.history, *transient]
        if forced:
            messages.append({"role": "user", "content": STOP_CALLING})
        # ``direct``: the reply is held to an answer by its schema alone (no words added, same prompt)
        kind = {"forced": forced or direct, "calls_only": calls_only and not forced, "has_result": has_result}
        extra, opening = self.replies.request_extra(tools, **kind), self.replies.reply_opening(**kind)
        holding = self._held_opening(held) if held is not None else None
        if holding is not None:
            opening, extra = holding
        if ask:
            messages.append({"role": "user", "content": ask})
        if not self.options.native_tools:
            extra = {**extra, "stop": [self._after_result().strip()[:STOP_AT_COPY]]}
        if opening:
            messages.append({"role": "assistant", "content": opening})
        return _Request(messages, tools, extra, opening)

    def _prompt(self, state: SelectionState, forced: bool) -> tuple[str, list[dict[str, Any]] | None]:
        return self.system_prompt(state), (None if forced else self.tool_schemas(state))

    def _seeded(self, extra: dict[str, Any]) -> dict[str, Any]:
        return extra if self.options.seed is None else {**extra, "seed": self.options.seed}

    def _stream(self, request: _Request, stats: TurnStats) -> Generator[Event, None, ChatResult]:
        """Stream one model call. The reply mode's view decides which text is shown and when, so a
        call (JSON, or prose around one) never flashes up as an answer."""
        gen = self.client.stream_chat(request.messages, tools=request.tools, max_tokens=self.options.max_tokens,
                                      temperature=self.options.temperature, cancel=self.executor.ctx.cancel,
                                      **self._seeded(request.extra))
        view = OwnLinesView(self.replies.view(), self._own_lines())
        stats.shown = ""
        # llama-server sends the opening back as the start of the reply; a server that sends only what follows
        # it gets it put back here (what follows it never starts with "{")
        pending = request.opening
        while True:
            try:
                delta = next(gen)
            except StopIteration as stop:
                result: ChatResult = stop.value
                break
            if pending and delta:
                delta, pending = (delta if delta.startswith("{") else pending + delta), ""
            shown = view.feed(delta)
            if shown:
                stats.shown += shown
                yield TextDelta(shown)
        if request.opening and not result.tool_calls and not result.content.startswith("{"):
            result = replace(result, content=request.opening + result.content)
        rest = view.finish(result)
        if rest:
            stats.shown += rest
            yield TextDelta(rest)
        return result

    def _answer(self, reply: Reply, answer: str, stats: TurnStats) -> Generator[Event, None, str]:
        """End the turn with ``answer``, stored in the history. It is shown here unless the reply's view
        showed it; a view that showed a reply which is not the answer gets the answer after it."""
        # nothing of our own instructions reaches the user: a line the agent writes after results, copied
        answer = without_own_lines(answer, self._own_lines()) or answer
        if stats.origin != "model":  # lines the agent took from results read as an answer, not as a result
            answer = for_people(answer, self.options.workdir) or answer
        shown = stats.shown.rstrip()
        if not shown:
            yield TextDelta(answer)
        elif answer.startswith(shown):  # the view showed the answer, or its start
            if answer[len(shown):]:
                yield TextDelta(answer[len(shown):])
        elif answer != reply.text.strip():
            yield TextDelta("\n\n" + answer)
        self.history.append({"role": "assistant", "content": answer})
        return answer

    def _keep_asked_fact(self, stats: TurnStats) -> Generator[Event, None, str | None]:
        """A fact the user asked to keep ("keep in mind that ...", "note that ...") that no ``remember``
        call of this turn saved is saved here, in the user's words, and its confirmation is the answer.
        The 0.5B model answered such a turn without the call (or read a file), and the fact was lost;
        a model that makes the call itself is left alone. None when there is nothing to do."""
        fact = asked_to_keep(self.user_messages[-1]) if self.user_messages else None
        if fact is None or "remember" not in self.registry.names() \
                or any(r.ok and r.name == "remember" for r in stats.results):
            return None
        call = ToolCall(f"keep-{uuid.uuid4().hex[:8]}", "remember", {"fact": fact})
        yield ToolCallStarted(call.id, call.name, call.arguments, "agent")
        result = self.executor.execute(call.name, call.arguments)
        stats.tool_ran(result)
        yield ToolCallFinished(call.id, result.name or call.name, result.arguments, result.shown_status,
                               result.payload, result.duration_s, False, result.status.value)
        said = result.payload.get("message")
        return said if result.ok and isinstance(said, str) and said else None

    def _from_results(self, stats: TurnStats) -> str:
        """An answer made of what the tools returned this turn, or of the saved facts shown for a question
        about the user (never invented)."""
        told = self._from_saved_facts(stats)
        if told is not None:
            return told
        if stats.last_result is None:
            return GAVE_UP
        result = stats.last_result
        tool, payload = result.name or result.requested, result.payload
        if not result.ok:
            return self._no_tool_names(f"I could not finish this: {plain_name(tool)} failed "
                                       f"({payload.get('error', payload.get('status'))}).")
        return self._no_tool_names(answer_from_result(tool, payload, self.options.workdir))

    def _from_saved_facts(self, stats: TurnStats) -> str | None:
        """The closest saved fact shown, when the question asks about the user and no tool succeeded this
        turn: "what's my locker code again?" ended with a failed read of notes.txt or "I can't assist with
        that" (0.5B), while "My locker code is 4471" sat beside it. None otherwise."""
        if not stats.saved or any(r.ok for r in stats.results) or not self._about_user(stats):
            return None
        if stats.closest < SAVED_FACT_ANSWERS:
            return f"I found nothing you told me about that. The closest thing you told me: {stats.saved[0]}"
        return f"From what you told me earlier: {stats.saved[0]}"

    def _about_user(self, stats: TurnStats) -> bool:
        """Does the turn's question ask about what the user told: in its words, or by a saved fact this close?"""
        return bool(stats.saved) and (asks_about_user(self.user_messages[-1]) or stats.closest >= SAVED_FACT_ASKED)

    def _no_tool_names(self, text: str) -> str:
        """``text`` with each tool's name as words: a tool's hint ("find it with search_file") copied into
        an answer reads as a call described."""
        return without_tool_names(text, self.registry.names(), plain_name)

    def _give_up(self, stats: TurnStats) -> Generator[Event, None, str]:
        """End a looping turn without another model call, honestly, with what the tools returned."""
        answer = "I could not finish this: the same tool call kept repeating."
        stats.origin = "built"
        if stats.last_result is not None and stats.last_result.ok:
            answer += " " + self._no_tool_names(answer_from_result(stats.last_result.name or stats.last_result.requested,
                                                                   stats.last_result.payload, self.options.workdir))
        yield TextDelta(answer)
        self.history.append({"role": "assistant", "content": answer})
        return answer

    def _drop_constraint(self, request: _Request, exc: ModelError) -> bool:
        """A server that took the capability probe but refuses this request's schema or grammar: go on
        with the free parser (True) rather than fail every turn."""
        if not ({"response_format", "grammar"} & set(request.extra)) or is_context_overflow(str(exc)):
            return False
        log.warning("constrained request refused, falling back to free tool calls: %s", exc)
        self.replies = FreeReplies(self.registry.names, hold_all=not self.options.native_tools)
        return True

    def _call_tool(self, wire: ToolCall, book: CallBook, stats: TurnStats) -> Generator[Event, None, None]:
        """Run one call (unless the book refuses a repeat) and put its result in the history.

        A ``call_tool`` bridge call is seen as the call it stands for (events, books, escape
        hatches); the history keeps the model's own words, and the result answers its call id."""
        call = self._in_user_words(unwrap_call(wire))
        yield ToolCallStarted(call.id, call.name, call.arguments, call.source)
        result = book.refusal(call)
        escape = False
        if result is None:
            escape = self.selector.is_escape(call.name)  # before running: load_tools changes the selection
            result = self.executor.execute(call.name, call.arguments)
            escape = escape and result.invoked  # counted exactly when the loader counted it
            book.ran(call, result)
            stats.tool_ran(result)
        yield ToolCallFinished(call.id, result.name or call.name, result.arguments, result.shown_status,
                               result.payload, result.duration_s, escape, result.status.value)
        content = compact_result(result.payload)
        if result.loaded is not None:
            yield result.loaded
            disclosed = self.layout.after_load(self.selector.state)  # the tools this load added
            if disclosed:
                content += "\n\n" + disclosed
        if not self.options.native_tools:
            content += self._after_result()
        self.history.append({"role": "tool", "tool_call_id": call.id, "content": content})

    # ------------------------------------------------------------------ helpers
    def _in_user_words(self, call: ToolCall) -> ToolCall:
        """A ``remember`` whose fact is a piece of the user's sentence keeps the whole sentence (facts.py)."""
        fact = call.arguments.get("fact") if call.name == "remember" else None
        if not isinstance(fact, str) or not self.user_messages:
            return call
        kept = in_user_words(fact, self.user_messages[-1])
        return call if kept == fact else replace(call, arguments={**call.arguments, "fact": kept})

    def _recall_skills(self, query: str) -> _Recalled:
        if self.skills is None:
            return _Recalled()
        try:
            recalled = self.skills.recall_for_turn(query)
        except Exception as exc:  # skills must never break a turn
            log.warning("skill recall failed: %s", exc)
            return _Recalled()
        blocks = (recalled.prompt_block,) if recalled.prompt_block else ()
        return _Recalled(recalled.tools or None, blocks, recalled.names)

    def _saved_facts(self, query: str) -> tuple[tuple[str, ...], float, tuple[str, ...]]:
        """The saved facts closest to ``query``, as a block to put beside it, and the best one's cosine.
        A small model does not think of ``recall`` for "what is my plate number?" (the 0.5B model read
        files instead); shown the fact, it answers. The block rides with the user message, so the cached
        prefix is untouched. Also the facts' own texts, best first."""
        if self.memory is None:
            return (), 0.0, ()
        try:
            if asks_about_user(query):
                facts = self.memory.relevant_facts(query, limit=SAVED_FACTS_ABOUT_USER, min_similarity=-1.0)
            else:
                bar = SAVED_FACTS_FIRST_PERSON if asks_in_first_person(query) else SAVED_FACTS_MIN
                facts = self.memory.relevant_facts(query, limit=SAVED_FACTS_LIMIT, min_similarity=bar)
        except Exception as exc:  # memory must never break a turn
            log.warning("saved-fact lookup failed: %s", exc)
            return (), 0.0, ()
        if not facts:
            return (), 0.0, ()
        # the reply mode's own after-result line: a constrained reply then answers from them as it would
        # from a tool result
        after = (self.replies.after_result or "").strip()
        block = "\n".join([SAVED_FACTS_HEADER, *(f"- {f.content}" for f in facts), *([after] if after else [])])
        return (block,), max(f.score or 0.0 for f in facts), tuple(f.content for f in facts)

    def _remember_turn(self, query: str, answer: str, stats: TurnStats) -> None:
        if self.memory is not None:
            try:
                self.memory.add_turn(self.options.session_id, "user", query)
                self.memory.add_turn(self.options.session_id, "assistant", answer)
            except Exception as exc:  # storage trouble must not lose the answer
                log.warning("could not store the turn in memory: %s", exc)
        if self.skills is not None:
            try:
                self.skills.record_turn(query, stats.span, bool(answer.strip()),
                                        [(r.name, r.arguments) for r in stats.results if r.ok and r.name])
            except Exception as exc:
                log.warning("could not record the tool span: %s", exc)

    def _fit_window(self, system: str, tools: list[dict[str, Any]] | None) -> Generator[Event, None, bool]:
        """Drop the oldest turns when the next request would not fit the model's context (True if it did)."""
        window = self.options.context_tokens
        if not window:
            return False
        budget = window - self.options.max_tokens - 64
        trim = fit_history({"role": "system", "content": system}, self.history, tools, budget=budget,
                           meter=self.meter)
        if not trim.dropped_turns:
            return False
        self.history[:] = trim.history
        self.layout.reset()  # tools disclosed in the dropped turns must be shown again
        yield Notice("info", f"dropped the {trim.dropped_turns} oldest turn(s) to fit the model's "
                             f"{window:,}-token context; they stay searchable in memory")
        return True

    def _drop_older_half(self) -> int:
        """Drop the older half of the earlier turns (never the current one); returns how many."""
        turns = split_turns(self.history)
        n = len(turns) // 2  # half of the len - 1 earlier turns, rounded up
        if n <= 0:
            return 0
        self.history[:] = [m for t in turns[n:] for m in t]
        self.layout.reset()
        return n

    def _repair_history(self) -> None:
        """Make every assistant tool call have a tool result (after Ctrl-C or an error)."""
        answered = {m.get("tool_call_id") for m in self.history if m["role"] == "tool"}
        repaired: list[Message] = []
        for msg in self.history:
            repaired.append(msg)
            for tc in msg.get("tool_calls") or []:
                if tc["id"] not in answered:
                    repaired.append({"role": "tool", "tool_call_id": tc["id"],
                                     "content": json.dumps({"status": "cancelled"})})
                    answered.add(tc["id"])
        if repaired and repaired[-1]["role"] == "tool":
            repaired.append({"role": "assistant", "content": "(cancelled)"})
        self.history[:] = repaired
