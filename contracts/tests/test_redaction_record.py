"""Cross-field redaction (``redact_record``, ``hide_found``): a value hidden in one field is hidden in all.

Values are generated here (seeded), never taken from the outside corpora the engine is measured against.
"""

from __future__ import annotations

import random
import string
import time

from ctxops_contracts.redaction import SECRET, hide_found, redact_record, redact_value
from ctxops_contracts.redaction.record import matcher, propagates

_rng = random.Random(15)


def word(n: int = 10) -> str:
    """A chosen-password-like value: letters and digits, nothing that marks it as a key on its own."""
    return "".join(_rng.choice(string.ascii_lowercase) for _ in range(n - 3)) + str(_rng.randint(100, 999))


def flat(value: object) -> str:
    return repr(value)


def test_a_secret_in_content_is_hidden_in_the_file_path() -> None:
    secret = word()
    payload = {"tool_input": {"file_path": f"/repo/notes/{secret}.txt", "content": f"password = {secret}\n"}}
    assert secret in flat(redact_value(payload))  # the file name alone carries no sign of a secret
    safe = redact_record(payload)
    assert secret not in flat(safe)
    assert safe["tool_input"]["file_path"] == f"/repo/notes/{SECRET}.txt"


def test_a_secret_is_hidden_in_dict_keys_and_nested_lists() -> None:
    secret = word(12)
    payload = {
        "prompt": f"export DB_PASSWORD={secret}",
        secret: {"nested": [[f"s:{secret}", ["deep", f"{secret}/x"]]]},
        "other": {secret: 1, "b": 2},
    }
    safe = redact_record(payload)
    assert secret not in flat(safe)
    assert SECRET in safe and safe["other"] == {SECRET: 1, "b": 2}
    assert safe[SECRET]["nested"] == [[f"s:{SECRET}", ["deep", f"{SECRET}/x"]]]


def test_two_keys_that_held_secrets_stay_two_keys() -> None:
    one, two = word(), word()
    safe = redact_record({"a": f"password={one}", "b": f"token={two}", one: 1, two: 2})
    assert sorted(v for k, v in safe.items() if k.startswith(SECRET)) == [1, 2]


def test_a_secret_named_key_hides_its_value_elsewhere() -> None:
    secret = word()
    safe = redact_record({"password": secret, "title": f"rotate {secret} today"})
    assert safe == {"password": SECRET, "title": f"rotate {SECRET} today"}


def test_url_quoted_and_json_escaped_forms_are_hidden() -> None:
    secret = word(8) + "@#/x"
    quoted = "".join(c if c.isalnum() else f"%{ord(c):02X}" for c in secret)
    safe = redact_record({"cmd": f"password='{secret}'", "url": f"https://h/login?next={quoted}"})
    assert quoted not in flat(safe) and secret not in flat(safe)


def test_word_edges_are_respected() -> None:
    secret = word()
    safe = redact_record({"a": f"password = {secret}", "b": f"x{secret} {secret}9 {secret}_old {secret}.txt"})
    assert safe["b"] == f"x{secret} {secret}9 {SECRET}_old {SECRET}.txt"


def test_short_values_placeholders_and_words_stay() -> None:
    # the engine hides these where they are assigned; elsewhere they are words and stay
    for value in ("ab12x", "hunter", "letmein", "changeme", "password", "example", "secret_key", "<token>"):
        assert not propagates(value), value
    payload = {"a": "password = dragon", "b": "the dragon file", "c": "password = changeme", "d": "changeme later"}
    safe = redact_record(payload)
    assert safe["b"] == "the dragon file" and safe["d"] == "changeme later"
    assert propagates("kafka123") and propagates("hunter2x") and propagates("s3cr3t") and propagates("letmeinnow")


def test_markers_are_never_hunted() -> None:
    assert not propagates("REDACTED:secret") and not propagates("path-token")
    out = hide_found({"a": "[REDACTED:path-token] [REDACTED:secret]"}, ["path-token", "REDACTED", "secret]"])
    assert out == {"a": "[REDACTED:path-token] [REDACTED:secret]"}


def test_nothing_found_returns_the_same_walk() -> None:
    payload = {"prompt": "fix the failing test in notes/readme.txt", "n": 3, "ok": True, "none": None}
    assert redact_record(payload) == redact_value(payload) == payload


def test_longest_value_wins_at_a_position() -> None:
    short, long = "abc123x", "abc123xyz789"
    assert hide_found("k abc123xyz789 abc123x", [short, long]) == f"k {SECRET} {SECRET}"


def _payload(n: int) -> tuple[dict[str, object], list[str]]:
    """``n`` assigned secrets (one field each) and their bare values across paths and keys: ~100 bytes each.
    One field each: the engine's own in-text pass over one huge text with thousands of values is not what is
    measured here (docs/benchmarks.md, session 15)."""
    rng = random.Random(n)
    values = [
        f"{''.join(rng.choice(string.ascii_lowercase) for _ in range(5))}{rng.randint(100, 999)}{i}" for i in range(n)
    ]
    fields = {f"line{i}": f"password_{i} = {v}" for i, v in enumerate(values)}
    paths = {f"path{i}": f"notes/{v}/{v}.txt" for i, v in enumerate(values)}
    return {"fields": fields, "paths": paths, "keys": {v: i for i, v in enumerate(values)}}, values


def test_hide_found_is_linear_in_the_payload_and_the_values() -> None:
    small, small_values = _payload(1_000)
    large, large_values = _payload(10_000)
    assert len(flat(large)) >= 900_000
    timings = []
    for payload, values in ((small, small_values), (large, large_values)):
        started = time.process_time()
        out = hide_found(payload, values)
        timings.append(time.process_time() - started)
        written = flat(out)
        assert not any(v in written for v in values[:50])
    assert timings[1] <= 25 * timings[0] + 0.5, timings  # 10x the input: at most 25x the time (not 100x)
    assert timings[1] < 10.0, timings


def test_redact_record_on_a_megabyte_with_ten_thousand_secrets() -> None:
    payload, values = _payload(10_000)
    started = time.process_time()
    safe = redact_record(payload)
    took = time.process_time() - started
    fields = flat(safe["fields"])
    hidden = [v for v in values if v not in fields]
    assert len(hidden) >= 9_000  # the engine hides nearly all where assigned; each of those nowhere else
    written = flat(safe)
    leaked = [v for v in hidden if v in written]
    assert not leaked, leaked[:5]
    assert took < 30.0, took


def test_the_matcher_stays_linear_on_shared_prefixes() -> None:
    # values nested in each other (each a prefix of the next) and text that walks deep at every start
    values = ["a-" * i + "b" for i in range(3, 120)]
    pattern = matcher(values)
    assert pattern is not None
    timings = []
    for size in (100_000, 1_000_000):
        text = ("a-" * 200 + " ") * (size // 401)
        started = time.process_time()
        pattern.sub("", text)
        timings.append(time.process_time() - started)
    assert timings[1] <= 25 * timings[0] + 0.1, timings
    assert timings[1] < 3.0, timings


def test_a_session_id_in_a_transcript_path_is_not_propagated_to_the_session_id() -> None:
    # the engine hides a UUID as a file name; the payload's own session id must stay, or no session is tracked
    sid = "2a1b4a76-0e6f-497e-9504-9b56aa21c9cb"
    payload = {"session_id": sid, "transcript_path": f"/home/u/.claude/projects/p/{sid}.jsonl"}
    assert redact_record(payload)["session_id"] == sid


def test_the_last_segment_of_a_hidden_url_is_hidden_alone() -> None:
    secret = word(14)
    url = f"hooks.example.com/services/{secret}"
    assert hide_found({"file": f"notes/{secret}.txt", "host": "hooks.example.com"}, [url]) == {
        "file": f"notes/{SECRET}.txt",
        "host": "hooks.example.com",  # only the last segment: the host and the path's words stay
    }


def test_session_16_a_value_holding_a_secret_word_is_carried_but_a_bare_name_is_not() -> None:
    # ``password`` or ``api_key`` as a value must not blank that word everywhere; a value that merely holds
    # such a word (``myVaultPassphrase``) is a value someone chose, and it is carried like any other
    for name in ("password", "api_key", "client_secret", "SECRET_KEY_BASE", "password_plain", "access_token"):
        assert not propagates(name), name
    for chosen in ("myVaultPassphrase", "plainAdminSecret", "ourTeamToken"):
        assert propagates(chosen), chosen
        payload = {"content": f"<password>  {chosen}  </password>", "title": chosen, "file": f"{chosen}.txt"}
        safe = redact_record(payload)
        assert chosen not in str(safe), safe
    kept = redact_record({"content": "password: api_key", "title": "rotate the api_key"})
    assert kept["title"] == "rotate the api_key"
