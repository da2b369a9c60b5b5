import pytest

from api.errors import SignatureMismatch
from api.payments.signature import parse_signature_header, sign_payload, verify_signature

SECRET = "whsec_unit"
BODY = b'{"id":"evt_1"}'
NOW = 1_700_000_000


def test_valid_signature_returns_timestamp():
    header = sign_payload(SECRET, NOW, BODY)
    assert verify_signature(SECRET, BODY, header, now=NOW + 10, tolerance_seconds=300) == NOW


def test_tampered_body_is_rejected():
    header = sign_payload(SECRET, NOW, BODY)
    with pytest.raises(SignatureMismatch):
        verify_signature(SECRET, BODY + b" ", header, now=NOW, tolerance_seconds=300)


def test_wrong_secret_is_rejected():
    header = sign_payload("whsec_other", NOW, BODY)
    with pytest.raises(SignatureMismatch):
        verify_signature(SECRET, BODY, header, now=NOW, tolerance_seconds=300)


def test_replayed_old_signature_is_rejected():
    header = sign_payload(SECRET, NOW, BODY)
    with pytest.raises(SignatureMismatch, match="tolerance"):
        verify_signature(SECRET, BODY, header, now=NOW + 301, tolerance_seconds=300)


def test_rotated_secrets_any_digest_may_match():
    old = sign_payload("whsec_old", NOW, BODY).split(",")[1]
    header = sign_payload(SECRET, NOW, BODY) + "," + old
    assert verify_signature(SECRET, BODY, header, now=NOW, tolerance_seconds=300) == NOW


@pytest.mark.parametrize("header", [None, "", "v1=abc", "t=123", "t=abc,v1=00"])
def test_malformed_headers(header):
    with pytest.raises(SignatureMismatch):
        verify_signature(SECRET, BODY, header, now=NOW, tolerance_seconds=300)


def test_parse_ignores_unknown_schemes():
    assert parse_signature_header("t=5,v0=zz,v1=aa") == (5, ["aa"])
