"""Credentials never reach a published submission (issue 36, item 3).

The key filter needed separators around its keyword and never read values, so
``openaiApiKey``, ``Authorization``, ``accessToken``, ``private_key``, ``passphrase``,
``sessionid``, a nested ``extra_body.Authorization``, a password inside ``base_url`` and a
token inside a ``links`` URL all passed.  Keys are now read word by word (camelCase and
separated, at any depth) and values are read too: a URL with user-info or a
credential-named query parameter, and the shapes of well-known tokens, are refused, and
the message never repeats the secret.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from benchmark.board.submissions import required_queries, validate_submission
from benchmark.cli.main import main
from tests.helpers.submission_checks import problems

TASK = "webtrack-2009-2012"
CARD = {
    "name": "tiny-model",
    "org": "acme",
    "license": "apache-2.0",
    "open_weights": True,
    "links": ["https://huggingface.co/acme/tiny-model"],
    "contact": "dev@example.org",
    "generation": {"max_gen_toks": 256, "temperature": 0.0},
}


def make(tmp_path: Path, card: dict[str, object] | None = None, **row: object) -> Path:
    """A closed-book submission; the second row gets ``row``'s fields."""
    folder = tmp_path / "acme__tiny-model"
    folder.mkdir()
    (folder / "model.yaml").write_text(yaml.safe_dump(card or CARD, sort_keys=False), encoding="utf-8")
    _, required = required_queries(TASK)
    rows = [
        {"query_id": q, "answer": f"About {q}.", "model": "acme/tiny-model", **(row if i == 1 else {})}
        for i, q in enumerate(required)
    ]
    (folder / f"{TASK}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "key",
    # the keys, and two only camelCase words find (hf·token, custom·headers)
    [
        "openaiApiKey",
        "Authorization",
        "accessToken",
        "private_key",
        "passphrase",
        "sessionid",
        "hfToken",
        "customHeaders",
    ],
)
def test_credential_keys_in_any_spelling_are_refused(tmp_path: Path, key: str) -> None:
    found = problems(make(tmp_path, model_args={"model": "m", key: "s3cr3t-value"}))
    assert found == [
        f"acme__tiny-model/{TASK}.jsonl, line 2, field 'model_args.{key}': looks like a credential; "
        "remove it (submissions and results are published as they are)"
    ]


def test_a_nested_authorization_header_in_the_card_is_refused(tmp_path: Path) -> None:
    card = {**CARD, "generation": {"backend": "openai", "extra_body": {"Authorization": "Bearer x"}}}
    found = problems(make(tmp_path, card=card))
    assert found == [
        "acme__tiny-model/model.yaml, line 8, field 'generation.extra_body.Authorization': looks like a "
        "credential; remove it (submissions and results are published as they are)"
    ]


def test_a_password_inside_base_url_is_refused_without_repeating_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make(tmp_path, model_args={"base_url": "https://me:hunter2@llm.example.org/v1"})
    assert main(["validate", str(folder)]) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert (
        f"{TASK}.jsonl, line 2, field 'model_args.base_url': holds a URL with user-info (user:password@host)"
        in out
    )
    assert "hunter2" not in out


def test_a_token_inside_a_links_url_is_refused(tmp_path: Path) -> None:
    card = {**CARD, "links": ["https://huggingface.co/acme/tiny-model", "https://example.org/m?token=abc123"]}
    found = problems(make(tmp_path, card=card))
    assert found == [
        "acme__tiny-model/model.yaml, line 5, field 'links[1]': holds a URL whose parameter 'token' looks "
        "like a credential; remove it (submissions and results are published as they are)"
    ]
    assert not any("abc123" in p for p in found)


@pytest.mark.parametrize(
    "value",
    [
        "https://example.org/v1?api_key=abc",
        "https://example.org/v1?key=AIzaSomething",
        "https://blob.example.net/m.bin?sv=2024&sig=abc",
        "https://example.org/cb#access_token=abc",
        "https://token@example.org/v1",
        "sk-proj-abcdefghijklmnopqrstuvwxyz0123",
        "Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc",
        "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
    ],
)
def test_values_that_carry_a_credential_are_refused(tmp_path: Path, value: str) -> None:
    found = problems(make(tmp_path, generation={"note": value}))
    assert len(found) == 1 and "field 'generation.note': holds a" in found[0], found
    assert value not in found[0]


def test_settings_that_only_sound_alike_are_accepted(tmp_path: Path) -> None:
    """``max_tokens``, ``tokenizer`` and plain URLs are settings, not secrets."""
    card = {
        **CARD,
        "links": ["https://huggingface.co/acme/tiny-model?library=transformers", "https://pypi.org/p/x/"],
        "description": "Served behind Bearer authentication-headers; see https://example.org/docs?page=2.",
    }
    model_args = {
        "max_tokens": 256,
        "tokenizer": "gpt2",
        "max_new_tokens": 64,
        "base_url": "http://127.0.0.1:8000/v1/chat/completions",
        "author": "acme",
        "key_words": ["tower"],
    }
    sub = validate_submission(make(tmp_path, card=card, model_args=model_args))
    assert sub.outputs[TASK][1].model_args == model_args


def test_an_answer_may_quote_a_url_with_a_query(tmp_path: Path) -> None:
    """Answers are data, not configuration: a URL an answer quotes is text."""
    answer = "See https://example.org/search?token=abc for the list."
    sub = validate_submission(make(tmp_path, answer=answer))
    assert sub.outputs[TASK][1].answer == answer
