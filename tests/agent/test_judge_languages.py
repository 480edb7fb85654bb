"""German and Spanish turns pass the judge: the English it reads (agent/lexicon.py) never trips a guard by accident.

Each turn is a message, the files it is about (real files in a temporary folder), the calls the model makes
and the results they return, and a plausible correct answer in the message's language. The calls must run
(``RunCalls``) and the answer must stand as given (``Accept``), with no guard catching anything on the way, and
``eval tasks`` must not count it as ungrounded (``eval/grounding.ungrounded_in``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gaia_lite.agent.evidence import Lookups
from gaia_lite.agent.judge import GUARDS, Accept, Evidence, Reply, RunCalls, Stage, judge
from gaia_lite.agent.named import named_in_message
from gaia_lite.eval.grounding import ungrounded_in
from gaia_lite.events import ToolCallFinished
from gaia_lite.messages import ToolCall
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import ToolResult, ToolStatus
from gaia_lite.tools.sandbox import Sandbox

TOOLS = ("read_file", "browse_directory", "search_file", "edit_file", "write_file", "remember", "query_documents")

FILES = {
    "notizen.md": "# Notizen\n- Milch kaufen\n- Zahnarzt am Dienstag um 15 Uhr\n- Miete überweisen: 850 Euro\n",
    "handbuch.md": "# Handbuch\n\nUrlaub: Im ersten Jahr gibt es 25 Urlaubstage, danach 28.\nHomeoffice: 2 Tage pro "
                   "Woche.\n",
    "bericht_q3.md": "# Bericht Q3\n\nDer Umsatz im dritten Quartal betrug 14,2 Millionen Euro, 11 % mehr als im "
                     "Vorjahr.\n",
    "config.ini": "[server]\nport = 8080\nhost = localhost\n",
    "notas.md": "# Notas\n- comprar leche\n- llamar al fontanero el lunes\n- pagar el alquiler: 850 euros\n",
    "manual.md": "# Manual del empleado\n\nVacaciones: 25 días el primer año, 28 a partir del segundo.\n",
    "docs/faq.md": "# Preguntas frecuentes\n",
    "docs/guia.md": "# Guía de instalación\n",
    "inventario.csv": "artículo,existencias\ntornillos,540\ntuercas,75\narandelas,12\n",
}


@dataclass(frozen=True)
class Turn:
    message: str
    calls: tuple[ToolCall, ...] = ()  # the model's first reply, when it calls tools
    payloads: tuple[dict, ...] = ()  # what each call returned
    answer: str = ""  # the model's answer after the results
    facts: tuple[str, ...] = ()  # saved facts shown beside the message
    earlier: tuple[str, ...] = field(default=())  # earlier messages of the conversation


def _read(path: str) -> tuple[ToolCall, dict]:
    content = FILES[path]
    return (ToolCall("c1", "read_file", {"file_path": path}),
            {"status": "success", "size_bytes": len(content.encode()), "lines": content.count("\n"), "content": content})


def _turn(message: str, answer: str, *reads: str, **kw) -> Turn:
    pairs = [_read(p) for p in reads]
    return Turn(message, tuple(c for c, _ in pairs), tuple(p for _, p in pairs), answer, **kw)


TURNS = [
    _turn("Fasse die Datei notizen.md zusammen.",
          "Die Datei notizen.md enthält drei Punkte: Milch kaufen, Zahnarzt am Dienstag um 15 Uhr und die Miete von "
          "850 Euro überweisen.", "notizen.md"),
    _turn("Wie viele Urlaubstage bekomme ich laut handbuch.md im ersten Jahr?",
          "Laut handbuch.md bekommst du im ersten Jahr 25 Urlaubstage, danach 28.", "handbuch.md"),
    _turn("Lies bericht_q3.md: wie hoch war der Umsatz im dritten Quartal?",
          "Der Umsatz im dritten Quartal betrug 14,2 Millionen Euro, 11 % mehr als im Vorjahr.", "bericht_q3.md"),
    Turn("Ändere in config.ini den Port von 8080 auf 9090.",
         (ToolCall("c1", "edit_file", {"file_path": "config.ini", "old_content": "port = 8080",
                                       "new_content": "port = 9090"}),),
         ({"status": "success", "message": "config.ini: 1 line changed"},),
         "Erledigt: In config.ini steht jetzt port = 9090 statt 8080."),
    Turn("Was ist die Hauptstadt von Italien?", answer="Die Hauptstadt von Italien ist Rom."),
    Turn("Wie lautet mein Schließfachcode noch mal?", answer="Dein Schließfachcode ist 4471.",
         facts=("Gespeicherte Erinnerungen:\n- Mein Schließfachcode ist 4471",)),
    _turn("Resume el archivo notas.md", "El archivo notas.md tiene tres tareas: comprar leche, llamar al fontanero el "
          "lunes y pagar 850 euros de alquiler.", "notas.md"),
    _turn("¿Cuántos días de vacaciones tengo según manual.md?",
          "Según manual.md, tienes 25 días de vacaciones el primer año y 28 a partir del segundo.", "manual.md"),
    Turn("¿Qué hay en la carpeta docs?", (ToolCall("c1", "browse_directory", {"directory_path": "docs"}),),
         ({"status": "success", "path": "docs", "entries": [{"name": "faq.md", "type": "file"},
                                                            {"name": "guia.md", "type": "file"}]},),
         "La carpeta docs contiene dos archivos: faq.md y guia.md."),
    _turn("inventario.csv: ¿qué artículo tiene menos existencias?",
          "Las arandelas: solo quedan 12 en inventario.csv.", "inventario.csv"),
    Turn("Recuerda que la matrícula de mi coche es KX-4821.",
         (ToolCall("c1", "remember", {"fact": "La matrícula de mi coche es KX-4821"}),),
         ({"status": "success", "message": "Lo recordaré: La matrícula de mi coche es KX-4821"},),
         "Hecho: recordaré que la matrícula de tu coche es KX-4821."),
    Turn("¿Cuál es la capital de Japón?", answer="La capital de Japón es Tokio."),
]


def _folder(tmp_path: Path) -> ToolContext:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return ToolContext(workdir=tmp_path, sandbox=Sandbox([tmp_path]), data_dir=tmp_path / ".data")


def _evidence(ctx: ToolContext, turn: Turn, results: tuple[ToolResult, ...]) -> Evidence:
    messages = (*turn.earlier, turn.message)
    seen = tuple(str(r.payload) for r in results)
    looks = Lookups(ctx, messages)
    last = next((r for r in reversed(results) if r.ok), results[-1] if results else None)
    return Evidence(TOOLS, results, last, user_messages=messages, facts=turn.facts, seen_results=seen,
                    named=named_in_message(turn.message, ctx), invented=looks.invented)


def _caught(reply: Reply, ev: Evidence) -> list[str]:
    return [g.name for g in GUARDS if (g.on_calls == bool(reply.calls)) and g.detect(reply, ev) is not None]


def _ungrounded(answer: str, ev: Evidence) -> str | None:
    calls = [ToolCallFinished(r.name, r.name, r.arguments, "success", r.payload, 0.01, outcome=r.status.value)
             for r in ev.results]
    return ungrounded_in(answer, calls, (), ev.user_messages, ev.facts)


@pytest.mark.parametrize("turn", TURNS, ids=lambda t: t.message[:40])
def test_a_german_or_spanish_turn_trips_no_guard(tmp_path: Path, turn: Turn) -> None:
    ctx = _folder(tmp_path)
    if turn.calls:
        before = _evidence(ctx, turn, ())
        assert _caught(Reply(turn.calls, ""), before) == []
        assert judge(Reply(turn.calls, ""), before, Stage.DRAFT) == RunCalls(turn.calls)
    results = tuple(ToolResult(c.name, c.name, c.arguments, p, ToolStatus.OK, 0.01)
                    for c, p in zip(turn.calls, turn.payloads))
    after = _evidence(ctx, turn, results)
    assert _caught(Reply((), turn.answer), after) == []
    assert _ungrounded(turn.answer, after) is None
    for stage in (Stage.DRAFT, Stage.FINAL):
        assert judge(Reply((), turn.answer), after, stage) == Accept(turn.answer)


def test_the_same_turns_in_english_are_still_caught_where_they_should_be(tmp_path: Path) -> None:
    """The turns above prove nothing if no guard would ever catch them: their English twins, made wrong, are."""
    ctx = _folder(tmp_path)
    refusal = Turn("What's my locker code again?", answer="I'm sorry, but I can't help with that.",
                   facts=("Saved memories:\n- My locker code is 4471",))
    assert _caught(Reply((), refusal.answer), _evidence(ctx, refusal, ())) == ["declined_fact"]
    wrong = _turn("Wie viele Urlaubstage bekomme ich laut handbuch.md im ersten Jahr?",
                  "Laut handbuch.md bekommst du im ersten Jahr 30 Urlaubstage.", "handbuch.md")
    results = tuple(ToolResult(c.name, c.name, c.arguments, p, ToolStatus.OK, 0.01)
                    for c, p in zip(wrong.calls, wrong.payloads))
    assert _caught(Reply((), wrong.answer), _evidence(ctx, wrong, results)) == []
    assert _ungrounded(wrong.answer, _evidence(ctx, wrong, results)) == "30"  # counted: no English needed


@pytest.mark.xfail(strict=True, reason="grounding reads two capitalised words in a row as a name, and German "
                                       "capitalises nouns: 'Millionen Dollar' is in no English file")
def test_a_german_answer_from_an_english_file_is_not_called_ungrounded(tmp_path: Path) -> None:
    ctx = _folder(tmp_path)
    (tmp_path / "acme_q3_report.md").write_text("# Acme Q3\n\nQ3 revenue was $14.2 million, up 11 % from Q3 2024.\n")
    report = {"status": "success", "content": (tmp_path / "acme_q3_report.md").read_text()}
    turn = Turn("Wie hoch war der Umsatz laut acme_q3_report.md?",
                (ToolCall("c1", "read_file", {"file_path": "acme_q3_report.md"}),), (report,),
                "Laut dem Bericht betrug der Umsatz im dritten Quartal 14,2 Millionen Dollar.")
    results = (ToolResult("read_file", "read_file", turn.calls[0].arguments, report, ToolStatus.OK, 0.01),)
    assert _ungrounded(turn.answer, _evidence(ctx, turn, results)) is None
