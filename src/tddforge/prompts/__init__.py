"""Prompt templates: one Jinja2 file per agent, packaged as data.

Each template defines the blocks ``system`` and ``user``; ``render`` renders one
block with StrictUndefined, so a missing variable is an error rather than a
silently empty prompt (and JSON braces in prompts need no escaping, unlike
``str.format``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from tddforge.errors import TddforgeError


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The shared template environment."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("tddforge", "prompts"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def agent_names() -> list[str]:
    """Every agent that has a template (``_name.j2`` files are shared partials, not agents)."""
    names = environment().list_templates(extensions=["j2"])
    return sorted(n.removesuffix(".j2") for n in names if not n.startswith("_"))


def render(agent: str, part: str, **variables: Any) -> str:
    """Render block ``part`` (``system`` or ``user``) of ``<agent>.j2``."""
    template = environment().get_template(f"{agent}.j2")
    block = template.blocks.get(part)
    if block is None:
        raise TddforgeError(f"prompt template {agent}.j2 has no block {part!r}")
    context = template.new_context(variables)
    try:
        return "".join(block(context)).strip() + "\n"
    except jinja2.UndefinedError as exc:
        raise TddforgeError(f"prompt {agent}.{part}: {exc.message}") from exc
