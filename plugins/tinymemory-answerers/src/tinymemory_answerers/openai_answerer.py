"""The answerer ``openai``: an answer written by any OpenAI-compatible chat model, grounded
on the passages recall found, its citations checked.

Configured by the table ``[plugins.answerers.openai]``: the keys of
:func:`tinymemory_embeddings.openai_api.read_settings` (``base_url``,
``model``, default ``gpt-4o-mini``, ``api_key_variable``, ``timeout``,
``retries``, ...) and its own: ``context_tokens`` (the prompt's budget, 3000
estimated tokens by default: the passages are cut to fit), ``answer_tokens``
(the answer's ``max_tokens``, 400 by default) and ``temperature`` (0 by
default). The table is read on first use, never when answerers are listed.

One ``/v1/chat/completions`` request per recall, no tools offered, nothing
streamed. The reply's text is only text: its ``[n]`` markers are checked
against the passages sent and renumbered (:func:`~.grounding.cited`); an
answer citing no passage it was given, an empty or malformed reply, a
refused key, a timeout or an unreachable server gives the extractive answer
instead, its ``model`` saying so: ``extractive (fallback: openai gave no
valid citation)``, and a warning is logged. A recall with no hits asks no
model. A configuration that cannot work (a key bound for another machine
over plain ``http``) is ``ConfigError``, not a fallback.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

import tinymemory as tm
from tinymemory.plugin import ExtractiveAnswerer
from tinymemory_embeddings.openai_api import (
    MalformedReply,
    OpenAIConfigured,
    OpenAISettings,
    TimedOut,
    read_settings,
    whole,
)

from .grounding import PROMPT_MARGIN, cited, estimate_tokens, fit_passages, messages

__all__ = ["DEFAULT_MODEL", "AnswererSettings", "OpenAIAnswerer", "settings_from_table"]

#: The model asked when the table names none.
DEFAULT_MODEL = "gpt-4o-mini"
#: Where the configuration file holds the answerer's settings.
TABLE = "[plugins.answerers.openai]"
_OWN_KEYS = ("context_tokens", "answer_tokens", "temperature")

log = logging.getLogger("tinymemory_answerers.openai")


@attrs.frozen(kw_only=True)
class AnswererSettings:
    """What ``[plugins.answerers.openai]`` says: where the model is, and the answerer's own."""

    api: OpenAISettings
    #: The prompt's budget in estimated tokens; the passages are cut to fit.
    context_tokens: int = 3000
    #: The answer's ``max_tokens``.
    answer_tokens: int = 400
    temperature: float = 0.0


class OpenAIAnswerer(OpenAIConfigured[AnswererSettings]):
    """The answerer ``openai``; ``settings`` as ``[plugins.answerers.openai]`` gives them,
    read on first use, unless passed here."""

    PLUGIN = "answerers"
    name = "openai"

    def read(self, table: Mapping[str, Any]) -> AnswererSettings:
        """:func:`settings_from_table`."""
        return settings_from_table(table)

    @property
    def model(self) -> str:
        """What a written answer's ``model`` says: ``openai:<model>``."""
        return f"openai:{self.settings.api.model}"

    def answer(self, request: tm.RecallRequest, hits: Sequence[tm.Hit]) -> tm.RecallAnswer:
        """The model's answer from ``hits``, citing only them; the extractive one, saying why,
        when the model gives nothing usable."""
        if not hits:
            return ExtractiveAnswerer().answer(request, hits)
        prompt = messages(request.question, [], request.instructions)
        room = math.floor(self.settings.context_tokens * (1 - PROMPT_MARGIN))
        room -= sum(estimate_tokens(message["content"]) for message in prompt)
        passages = fit_passages([hit.text for hit in hits], room)
        if not passages:
            return _fallback(request, hits, "the question left no room for passages")
        client = self.client()  # a key bound for cleartext is ConfigError, raised
        try:
            reply = client.post("chat/completions", self._payload(request, passages))
        except (tm.Unauthorized, tm.Unavailable, tm.EngineError) as error:
            log.warning("answerer `openai` fell back to extractive: %s", error.message)
            return _fallback(request, hits, _why(error))
        text = _content(reply)
        if text is None:
            return _fallback(request, hits, "openai gave a malformed reply")
        if not text.strip():
            return _fallback(request, hits, "openai gave an empty answer")
        checked = cited(text, len(passages))
        if not checked.sources:
            return _fallback(request, hits, "openai gave no valid citation")
        citations = [
            tm.Citation(
                id=hits[n].id,
                kind=hits[n].kind,
                snippet=passages[n],
                meta=hits[n].meta,
                score=hits[n].score,
            )
            for n in checked.sources
        ]
        return tm.RecallAnswer(answer=checked.text, citations=citations, model=self.model)

    def _payload(self, request: tm.RecallRequest, passages: list[str]) -> dict[str, Any]:
        return {
            "model": self.settings.api.model,
            "messages": messages(request.question, passages, request.instructions),
            "max_tokens": self.settings.answer_tokens,
            "temperature": self.settings.temperature,
            "stream": False,
        }


def _fallback(request: tm.RecallRequest, hits: Sequence[tm.Hit], why: str) -> tm.RecallAnswer:
    """The extractive answer, its ``model`` saying why it stands in."""
    extractive = ExtractiveAnswerer().answer(request, hits)
    return tm.RecallAnswer(
        answer=extractive.answer,
        citations=extractive.citations,
        model=f"{extractive.model} (fallback: {why})",
    )


def _why(error: tm.TinyMemoryError) -> str:
    """Why the model's answer is missing, in a few words (the log has the whole message)."""
    reasons: list[tuple[type[tm.TinyMemoryError], str]] = [
        (TimedOut, "openai timed out"),
        (tm.Unauthorized, "openai refused the key"),
        (tm.Unavailable, "openai was unavailable"),
        (MalformedReply, "openai gave a malformed reply"),
    ]
    return next((why for kind, why in reasons if isinstance(error, kind)), "openai failed")


def _content(reply: Any) -> str | None:
    """The text of the reply's first choice (text parts joined), or None when it has none."""
    try:
        content = reply["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list) and all(isinstance(part, Mapping) for part in content):
        return "".join(str(part.get("text", "")) for part in content if part.get("type") == "text")
    return None


def settings_from_table(table: Mapping[str, Any]) -> AnswererSettings:
    """The settings a ``[plugins.answerers.openai]`` table gives; ``ConfigError`` when it is
    malformed."""
    api = read_settings(table, where=TABLE, own_keys=_OWN_KEYS, default_model=DEFAULT_MODEL)
    temperature = table.get("temperature", 0.0)
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, int | float)
        or not 0 <= temperature <= 2
    ):
        raise tm.ConfigError(f"{TABLE}: `temperature` must be a number, 0 to 2")
    return AnswererSettings(
        api=api,
        context_tokens=whole(table, "context_tokens", 3000, TABLE, least=256, most=2_000_000),
        answer_tokens=whole(table, "answer_tokens", 400, TABLE, least=16, most=100_000),
        temperature=float(temperature),
    )
