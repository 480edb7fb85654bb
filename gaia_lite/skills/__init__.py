"""Learned skills (procedural memory) and the SKILL tier of tool selection.

    procedure.py   Procedure / ProcedureSpec data and the skill-file format
    store.py       ProcedureStore: the procedures and tool_spans tables in memory.db
    recall.py      SkillService: recall once per turn, record the turn's tool span
    synthesis.py   repeated successful spans -> procedures (off the hot path)
"""

from .procedure import (Procedure, ProcedureSpec, SkillFormatError, ToolStep, is_valid_name, parse_skill_file,
                        render_skill_file, slugify)
from .recall import RecalledProcedure, RecalledSkills, SkillService, format_prompt_block, span_succeeded
from .store import SKILL_MIGRATIONS, ProcedureStore, SkillStoreError, SpanRecord, load_skill_dir, seed_procedures
from .synthesis import (SynthesisConfig, SynthesisReport, parse_distillation, start_background_synthesis,
                        synthesis_due, synthesize)

__all__ = [
    "Procedure", "ProcedureSpec", "ToolStep", "SkillFormatError", "is_valid_name", "parse_skill_file",
    "render_skill_file", "slugify",
    "SkillService", "RecalledSkills", "RecalledProcedure", "format_prompt_block", "span_succeeded",
    "ProcedureStore", "SpanRecord", "SkillStoreError", "SKILL_MIGRATIONS", "seed_procedures", "load_skill_dir",
    "synthesize", "synthesis_due", "start_background_synthesis", "SynthesisConfig", "SynthesisReport",
    "parse_distillation",
]
