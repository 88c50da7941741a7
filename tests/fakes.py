"""Scripted stand-ins for the edges that cost money or time: the model."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from edgar_rag.answer.answerer import AnswerSettings
from edgar_rag.domain import Generation, Prompt

Reply = str | Callable[[Prompt], str]


@dataclass
class ScriptedGenerator:
    """Replies in order (a string, or a function of the prompt); keeps every prompt it was given."""

    replies: list[Reply]
    prompts: list[Prompt] = field(default_factory=list)
    name: str = "scripted"

    def generate(self, prompt: Prompt) -> Generation:
        self.prompts.append(prompt)
        reply = self.replies.pop(0)
        text = reply(prompt) if callable(reply) else reply
        return Generation(text=text, model=self.name, prompt_tokens=100, completion_tokens=10)


def marker_of(prompt: Prompt, needle: str) -> int:
    """The marker of the first passage in the prompt whose text contains ``needle``."""
    user = prompt.messages[-1].content
    for match in re.finditer(
        r"^\[(\d+)\] [^\n]*\n(.*?)(?=^\[\d+\] |</passages>)", user, re.M | re.S
    ):
        if needle in match.group(2):
            return int(match.group(1))
    raise AssertionError(f"no passage prints {needle!r}")


WHOLE_PASSAGES = AnswerSettings(
    search_k=20,
    passages_in_prompt=20,
    passage_chars=2000,
    narrative_passages=20,
    narrative_passage_chars=2000,
)
"""Twenty whole passages in the prompt, for any kind of question: a scripted reply can cite
the passage printing its figure wherever search ranks it."""
