"""Credentials in what a user publishes: names that call a value a secret, values shaped like one.

Submissions and the settings results record are published as they are; one scan serves every
door that publishes text, so a name refused at one is refused at all.  A key names a
credential when one of its words does, or its words run together into one (``openaiapikey``),
after NFKC, dropping invisible characters and folding look-alike letters; tokenizer and
bookkeeping compounds (``pad_token_id``, ``cache_key``) are let through.  A value is one when it
is a URL with user-info or a credential-named parameter, or has a provider's credential shape.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from benchmark.core.errors import Problem

#: words that name a credential wherever they stand in a key
SECRET_WORDS = frozenset(
    {
        "key", "apikey", "pass", "password", "passwd", "pwd", "pw", "passphrase", "token", "secret",
        "secrets", "credential", "credentials", "auth", "authorization", "oauth", "bearer", "cookie",
        "cookies", "sessionid", "jwt", "pat", "signature", "privatekey", "header", "headers",
    }
)  # fmt: skip
#: what names a credential in a key's words run together (``openaiApiKey`` written ``openaiapikey``)
SECRET_RUNS = (
    "apikey", "accesskey", "secretkey", "privatekey", "subscriptionkey", "accountkey", "accesstoken",
    "authtoken", "refreshtoken", "idtoken", "sessionid", "sessionkey", "sessiontoken", "password", "passwd",
    "passphrase", "secret", "credential", "authorization", "bearer", "cookie",
)  # fmt: skip
#: words beside ``token`` / ``key`` that make the compound a tokenizer or bookkeeping term
_NOT_SECRET_WITH = {
    "token": frozenset({"bos", "eos", "pad", "unk", "sep", "cls", "mask", "special", "max", "min", "num", "new", "gen", "stop", "end", "start", "id", "ids", "type"}),
    "key": frozenset({"cache", "item", "sort", "hash", "primary", "foreign", "dict", "lookup", "group", "partition", "column", "field", "answer", "word", "words", "phrase", "phrases", "point", "points", "fact", "facts"}),
}  # fmt: skip
#: in a URL's query or fragment, these name a credential too (``?key=AIza…``, a signed URL's ``sig``)
URL_SECRET_WORDS = SECRET_WORDS | {"sig"}

#: values shaped like a provider's credential or a private key: the one table of shapes
TOKEN_SHAPES: dict[str, str] = {
    "an OpenAI or Anthropic key": r"\bsk-[A-Za-z0-9_\-]{20,}",
    "a Hugging Face token": r"\bhf_[A-Za-z0-9]{30,}",
    "a GitHub token": r"\bgh[pousr]_[A-Za-z0-9]{30,}|\bgithub_pat_\w{20,}",
    "a GitLab token": r"\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_\-]{20,}",
    "an AWS access key id": r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
    "a Google API key": r"\bAIza[0-9A-Za-z_\-]{35}",
    "a Google OAuth token": r"\bya29\.[0-9A-Za-z_\-]{20,}",
    "a Slack token": r"\bxox[abposr]-[A-Za-z0-9\-]{10,}",
    "a Stripe key": r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}",
    "an npm token": r"\bnpm_[A-Za-z0-9]{36}\b",
    "a JSON Web Token": r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]*",
    "a private key": r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----",
    "a bearer token": r"\bBearer\s+(?=[A-Za-z._~+/\-]*\d)[A-Za-z0-9._~+/\-]{16,}",
}
_SHAPES = [(what, re.compile(pattern)) for what, pattern in TOKEN_SHAPES.items()]

#: Cyrillic and Greek letters drawn like Latin ones, folded to the letter they imitate
_LOOK_ALIKES = str.maketrans(
    "аАвВеЕѕЅіІјЈкКмМнНоОрРсСтТуУхХһԁԛԚԝԜӏαΑβΒεΕζΖηΗιΙκΚμΜνΝοΟρΡτΤυΥχΧ",
    "aABBeEsSiIjJkKmMhHoOpPcCtTyYxXhdqQwWlaABBeEzZnHiIkKuMvNoOpPtTuYxX",
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'<>]+")


def key_words(name: str) -> list[str]:
    """A key's words, lower-cased, after NFKC, dropping invisible characters and folding
    look-alike letters: ``"OPENAI-KEY"`` and ``"openaiKey"`` are ``["openai", "key"]``."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf").translate(_LOOK_ALIKES)
    return [w.lower() for w in _WORD.findall(text)]


def is_secret_name(name: str, *, url_parameter: bool = False) -> bool:
    """Whether a key (or, with ``url_parameter``, a URL's query parameter) names a credential."""
    words = key_words(name)
    vocabulary = URL_SECRET_WORDS if url_parameter else SECRET_WORDS
    for w in words:
        if w in vocabulary and _NOT_SECRET_WITH.get(w, frozenset()).isdisjoint(words):
            return True
    flat = "".join(words)
    return any(run in flat for run in SECRET_RUNS)


def secret_value(text: str) -> str | None:
    """Why a value looks like it carries a credential (never repeating it), or ``None``."""
    for m in _URL.finditer(text):
        try:
            parts = urlsplit(m.group())
            params = [
                n for q in (parts.query, parts.fragment) for n, _ in parse_qsl(q, keep_blank_values=True)
            ]
        except ValueError:  # not a URL after all (a bracketed host that is no IPv6 address)
            continue
        if "@" in parts.netloc:
            return "a URL with user-info (user:password@host)"
        if named := [n for n in params if is_secret_name(n, url_parameter=True)]:
            return f"a URL whose parameter {named[0][:40]!r} looks like a credential"
    for what, shape in _SHAPES:
        if shape.search(text):
            return f"a value shaped like {what}"
    return None


def secrets_in(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """``(path, why)`` for every credential-named key and credential-shaped string in ``value``."""
    if isinstance(value, dict):
        for k, inner in value.items():
            here = f"{where}.{k}" if where else str(k)
            if is_secret_name(str(k)):
                yield here, "looks like a credential"
            yield from secrets_in(inner, here)
    elif isinstance(value, list | tuple):
        for i, inner in enumerate(value):
            yield from secrets_in(inner, f"{where}[{i}]")
    elif isinstance(value, str) and (why := secret_value(value)):
        yield where, f"holds {why}"


def secret_problems(value: Any, file: str, line: int | None = None, where: str = "") -> list[Problem]:
    """:func:`secrets_in` as problems: what is published would publish the secret too."""
    return [
        Problem(
            file, f"{why}; remove it (submissions and results are published as they are)", line, path or None
        )
        for path, why in secrets_in(value, where)
    ]


def public(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` without the entries whose key names a credential: what a run records of
    the arguments it was given (a key passed on the command line is used, never written)."""
    return {k: v for k, v in settings.items() if not is_secret_name(str(k))}
