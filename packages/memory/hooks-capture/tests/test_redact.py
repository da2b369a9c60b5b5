"""Every redaction rule on a secret it must hide, and a list of look-alikes it must leave alone."""

from __future__ import annotations

import pytest
from ctxops_hooks_capture.redact import LABELS, redact, redact_value

SECRETS = {
    "private-key": (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
        "-----END OPENSSH PRIVATE KEY-----"
    ),
    "anthropic-key": "sk-ant-api03-q8Vd2LmXr4Tz9KpW7nBs1YfH3cJ6gA0e",
    "openai-key": "sk-proj-SECRETSECRET123",
    "github-token": "ghp_" + "q8Vd2LmXr4Tz9KpW7nBs1YfH3cJ6gA0eUw5R",
    "gitlab-token": "glpat-" + "qW7e3RtY9uIo2PaS5dFg",
    "aws-access-key": "AKIA" + "Q7ZR4WJ2M5HXK3TN",
    "google-api-key": "AIza" + "SyD-q8Vd2LmXr4Tz9KpW7nBs1YfH3cJ6gA0",
    "slack-token": "xoxb-" + "481902736514-q8Vd2LmXr4Tz",
    "stripe-key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "huggingface-token": "hf_" + "q8Vd2LmXr4Tz9KpW7nBs1YfH3cJ6gA0eUw",
    "npm-token": "npm_" + "q8Vd2LmXr4Tz9KpW7nBs1YfH3cJ6gA0eUw5R",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("label", sorted(SECRETS))
def test_each_provider_pattern(label: str) -> None:
    secret = SECRETS[label]
    out = redact(f"before {secret} after")
    assert secret not in out
    assert f"[REDACTED:{label}]" in out
    assert out.startswith("before ") and out.endswith(" after")


def test_labels_are_unique_and_named() -> None:
    assert len(LABELS) == len(set(LABELS))
    assert all(label and label == label.lower() for label in LABELS)


@pytest.mark.parametrize(
    ("text", "kept", "hidden"),
    [
        ("curl -H 'Authorization: Bearer abcdef0123456789abcdef' https://api", "Bearer ", "abcdef0123456789abcdef"),
        ("git clone https://alice:s3cr3tpass@github.com/org/repo.git", "https://alice:", "s3cr3tpass"),
        ("psql postgres://app:hunter2hunter@db:5432/orders", "postgres://app:", "hunter2hunter"),
        ("deploy --password hunter2 --env prod", "--password ", "hunter2"),
        ("login --token=q7Xk2mZp9LwR", "--token=", "q7Xk2mZp9LwR"),
        ("mysql -u root -pTopSecret99 orders", "mysql -u root -p", "TopSecret99"),
        ("export OPENAI_API_KEY=k3m9x2q7w4z8p1r", "OPENAI_API_KEY=", "k3m9x2q7w4z8p1r"),
        ('DB_PASSWORD="correct horse"', "DB_PASSWORD=", "correct"),
        ("AWS_SECRET_ACCESS_KEY=wJ4lrXUtnFqMI/K7MDENG/bPxRfiCYz9w2LKj0", "AWS_SECRET_ACCESS_KEY=", "wJ4lrXUtnFqMI"),
        ("password: hunter22", "password: ", "hunter22"),
        ("client_secret = 'Zx9_long_value'", "client_secret = ", "Zx9_long_value"),
    ],
)
def test_assignments_flags_and_urls_keep_the_name(text: str, kept: str, hidden: str) -> None:
    out = redact(text)
    assert kept in out
    assert hidden not in out
    assert "[REDACTED:" in out


@pytest.mark.parametrize(
    "text",
    [
        "mkdir -p build/output",
        "max_tokens=4096",
        "MAX_TOKENS=4096",
        "PASSWORD_MIN_LENGTH=12",
        'git commit -m "rename password field in the signup form"',
        "def check_password(password: str) -> bool:",
        "token = get_token(user)",
        "password=$DB_PASSWORD",
        "api_key=${API_KEY}",
        "token: <your token here>",
        "pass: true",
        "git@github.com:org/repo.git",
        "https://user@example.com/path",
        "ANTHROPIC_BASE_URL=http://127.0.0.1:8080",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "id 01M8KPTJMHJ0R0ACN3C2RS5KKT and uuid 2a1b4a76-0e6f-497e-9504-9b56aa21c9cb",
        "pip install scikit-learn task-runner sk-learn",
        "the tokenizer splits tokens; passwords are hashed with bcrypt",
        "Authorization header is missing",
        "ls -la --color=auto",
    ],
)
def test_lookalikes_are_not_redacted(text: str) -> None:
    assert redact(text) == text


def test_redaction_is_idempotent() -> None:
    once = redact("export GITHUB_TOKEN=" + SECRETS["github-token"] + " && curl -H 'Authorization: Bearer x" + "y" * 20)
    assert redact(once) == once


def test_redact_value_hides_secret_keys_and_nested_strings() -> None:
    value = {"password": "hunter2hunter", "nested": [{"cmd": "echo " + SECRETS["anthropic-key"]}], "count": 3}
    out = redact_value(value)
    assert out["password"] == "[REDACTED:secret]"
    assert "sk-ant" not in out["nested"][0]["cmd"]
    assert out["count"] == 3


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("令牌是ghp_" + "T4kq9Xw2Lm7Rz0Pb3Vn8Yc6Hd1Fs5Gj2Ku4Q", "T4kq9Xw2Lm7R"),
        ("password：Hunter2Hunter2", "Hunter2Hunter2"),
        ("密码是 Hunter2Hunter2，别告诉别人", "Hunter2Hunter2"),
        ('{"db":{"password":"Hunter2Hunter2"}}', "Hunter2Hunter2"),
        ('os.environ["DB_PASSWORD"]="Hunter2Hunter2"', "Hunter2Hunter2"),
        ("redis://:Hunter2Hunter2@cache:6379", "Hunter2Hunter2"),
        ("postgres://app:ab/cd12xy@db/orders", "ab/cd12xy"),
        ("curl -u admin:Hunter2Hunter2 https://x", "Hunter2Hunter2"),
        ("Cookie: sessionid=abc123def456; csrftoken=zz9", "abc123def456"),
        ("database:\n  password: |\n    multi-line-secret-1\n    line-2\nnext: 1", "multi-line-secret-1"),
        ("<password>Hunter2Hunter2</password>", "Hunter2Hunter2"),
    ],
)
def test_context_rules(text: str, hidden: str) -> None:
    out = redact(text)
    assert hidden not in out and "[REDACTED:" in out
    assert redact(out) == out


def test_redact_value_hides_secret_keys_whatever_the_shape() -> None:
    value = {
        "Result": {"SecretAccessKey": "wJalr9UtnFEMI7K7MDENG" * 2, "SessionToken": {"v": 1}},
        "client_token": 123456,
    }
    out = redact_value(value)
    assert out["Result"]["SecretAccessKey"] == "[REDACTED:secret]"
    assert out["Result"]["SessionToken"] == "[REDACTED:secret]"
    assert redact_value({"Credentials": {"AccessKeyId": "x"}}) == {"Credentials": "[REDACTED:secret]"}
    assert out["client_token"] == "[REDACTED:secret]"
    assert redact_value({"session_id": "abc", "max_tokens": 5, "password": ""}) == {
        "session_id": "abc",
        "max_tokens": 5,
        "password": "",
    }


def test_a_private_key_split_across_list_items_is_hidden_as_a_block() -> None:
    lines = [
        "+-----BEGIN RSA PRIVATE KEY-----",
        "+MIIEowIBAAKCAQEA1",
        "+Zm9vYmFy",
        "+-----END RSA PRIVATE KEY-----",
        "+x = 1",
    ]
    out = redact_value({"structuredPatch": [{"lines": lines}]})["structuredPatch"][0]["lines"]
    assert not any("MIIE" in line or "Zm9v" in line for line in out)
    assert out[-1] == "+x = 1" and len(out) == len(lines)
    # the list cut after the BEGIN line: everything after it is hidden
    cut = redact_value(lines[:3])
    assert not any("MIIE" in line or "Zm9v" in line for line in cut)


def test_bounded_windows_drop_a_token_cut_in_half() -> None:
    token = "ghp_" + "q8Vd2LmXr4Tz9KpW7nBs1YfH3cJ6gA0eUw5R"
    text = "a " * 4000 + token + " b" * 4000
    out = redact_value({"x": text}, max_string=8000)["x"]
    assert "A1b2C3d4" not in out and "O5p6Q7r8" not in out
    assert "characters omitted" in out
