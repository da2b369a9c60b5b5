"""Is a name (a JSON key, a variable, a flag, a query parameter) the name of a secret? Is a value a real one?

Names are split into words (``_ - . /``, camelCase) and judged by their last word, so ``DB_PASSWORD``,
``SecretAccessKey`` and ``_authToken`` are secrets while ``max_tokens``, ``password_reset_url`` and
``session_id`` are not. Values are judged by shape: placeholders, type names and code are not secrets.
"""

from __future__ import annotations

from ctxops_contracts.shared.regex import lazy

TYPE_CHECKING = False  # re is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    import re

# A last word that names a secret on its own.
_SECRET_WORDS = frozenset(
    {
        "password",
        "passwords",  # ``db_passwords: [...]``, ``<o2_passwords>``
        "passwd",
        "passphrase",
        "passcode",
        "pwd",
        "pword",  # short spellings of password
        "pw",
        "pass",
        "secret",
        "secrets",
        "token",
        "credential",
        "credentials",
        "cred",
        "creds",
        "cookie",
        "auth",
        "authorization",
        "signature",
        "sig",
        "apikey",
        "secretkey",
        "accesskey",
        "privatekey",
        "authtoken",
        "sessionid",
        "sessiontoken",
        "pat",
        "dsn",
        "sas",
    }
)
# ``*_key`` is a secret when the word before says which kind of key.
_KEY_KINDS = frozenset(
    {
        "api",
        "secret",
        "private",
        "access",
        "account",
        "app",
        "application",
        "encryption",
        "master",
        "signing",
        "auth",
        "client",
        "license",
        "licence",
        "service",
        "ssh",
        "session",
        "deploy",
        "webhook",
        "shared",
        "storage",
        "subscription",
        "admin",
        "consumer",
        "crypt",
        "cipher",
        "hmac",
        "jwt",
        "sas",
        "sendgrid",
        "stripe",
        "mailgun",
        "twilio",
        "openai",
        "anthropic",
        "gemini",
        "google",
        "write",
        "ingest",
        "instrumentation",
        "primary",
        "secondary",
    }
)
# ``SECRET_KEY_BASE``, ``password_confirmation``: a secret word followed by a word that only qualifies it.
_QUALIFIERS = frozenset(
    {
        "base",
        "value",
        "val",
        "str",
        "string",
        "data",
        "b64",
        "base64",
        "hex",
        "raw",
        "plain",
        "plaintext",
        "text",
        "enc",
        "encrypted",
        "confirm",
        "confirmation",
        "again",
        "repeat",
        "new",
        "old",
        "current",
        "override",
        # a deployment: providers issue one key per environment (Stripe's test and live keys, PayPal's sandbox)
        *("prod", "production", "dev", "development", "staging", "stage", "live", "sandbox", "test", "qa", "uat"),
    }
)
# Words that name a secret inside one glued word: ``PGPASSWORD``, ``APITOKEN`` (``bypass`` is not one).
_GLUED_SUFFIXES = (
    *("password", "passwd", "passphrase", "secret", "token", "apikey", "authtoken", "accesskey", "pwd"),
    *("accountkey", "masterkey", "signingkey", "privatekey", "secretkey"),  # ``storageaccountkey`` (Azure)
)
# ``pwd`` alone is a password as often as the shell's working directory: its value tells (a path is kept).
_NOT_SECRET_NAMES = frozenset({"oldpwd", "tokens", "bypass", "compass", "passport"})
# ``dbpass``, ``userpass`` (a JDBC query's ``userpass=``): "pass" glued to the one it belongs to. Only these
# owners: ``bypass``, ``compass``, ``overpass`` and a compiler's ``firstpass`` are no passwords.
_PASS_OWNERS = frozenset(
    {"db", "user", "root", "admin", "mysql", "pg", "sql", "smtp", "mail", "ftp", "ldap", "proxy", "login", "auth"}
    | {"key", "store", "keystore", "trust", "truststore", "redis", "rabbit", "amqp", "bind", "manager", "master"}
)
_STOCK_NAME_WORDS = _SECRET_WORDS | _KEY_KINDS | {"key", "keys"}
_CAMEL = lazy(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = lazy(r"[^A-Za-z0-9]+")


_WORDS: dict[str, list[str]] = {}  # names repeat (every ``self``, ``path``, ``value`` of a source file)


def words(name: str) -> list[str]:
    """The lower-case words of an identifier: ``awsSecretAccessKey`` -> aws, secret, access, key."""
    found = _WORDS.get(name)
    if found is None:
        found = [w.lower() for w in _SPLIT.split(_CAMEL.sub("_", name[-120:])) if w]
        if len(_WORDS) < 4096:
            _WORDS[name] = found
    return list(found)


def _numbered(parts: list[str]) -> list[str]:
    """``static_password01`` -> static, password; ``01_hardcoded_password``, ``password_2``: a number before,
    after or glued to the last word only counts the secrets, it does not change what they are."""
    parts = [p for p in parts if not p.isdigit()]
    if parts and parts[-1][-1:].isdigit() and parts[-1] not in _QUALIFIERS:  # ``b64``, ``base64`` as written
        parts[-1] = parts[-1].rstrip("0123456789")
    # a secret's word before the last one too: ``password2-string`` is a password, then a qualifier (``b64``,
    # ``s3`` stay: only a word that is a secret's without its number loses it)
    return [p.rstrip("0123456789") if p.rstrip("0123456789") in _STOCK_NAME_WORDS else p for p in parts]


def is_secret_name(name: str) -> bool:
    """True when ``name`` names a secret (``DB_PASSWORD``, ``x-api-key``, ``SecretAccessKey``, ``auth``)."""
    if _bundler_credentials(name):
        return True
    parts = _numbered(words(name))
    if not parts or is_public_name(name):
        return False
    if len(parts) == 1 and parts[0] in _NOT_SECRET_NAMES:
        return False
    last = parts[-1]
    if last in _QUALIFIERS and len(parts) > 1:
        return any(_names_secret(parts[:i]) for i in range(len(parts) - 1, 0, -1))
    return _names_secret(parts)


def _bundler_credentials(name: str) -> bool:
    """Bundler's docs: a gem source's credentials are ``BUNDLE_<HOST>`` (dots written ``__``), value
    ``user:password``; ``BUNDLE_BUILD__<gem>`` (build flags) and ``BUNDLE_MIRROR__<url>`` are not."""
    upper = name.upper()
    return upper.startswith("BUNDLE_") and "__" in upper[7:] and not upper[7:].startswith(("BUILD__", "MIRROR__"))


# Hex "magic words" (a debugger's fill, a class file's magic): written as samples, not drawn at random
_HEX_WORDS = frozenset({"deadbeef", "cafebabe", "feedface", "baadf00d", "deadc0de", "decafbad", "8badf00d"})


def _bundler_value(value: str) -> bool:
    """Bundler's credentials are ``user:password``: a secret unless a sample of a URL's userinfo (``xxxx:xxxx``,
    ``username:password``, hex magic words) or a reference (``SSM:/path``, ``${VAR}``, ``#{var}``)."""
    bare = value.strip("'\"")
    user, colon, password = bare.partition(":")
    if not colon or not user or len(password) < 4 or any(ch in bare for ch in "/{}$[ "):
        return False
    if user.lower() in _HEX_WORDS and password.lower() in _HEX_WORDS:
        return False
    if is_placeholder(password) or is_placeholder_token(password) or is_placeholder_token(user):
        return False
    return not sample_userinfo("", user, password)


def is_stock_secret_name(value: str) -> bool:
    """``value`` is a secret's name and nothing more (``password``, ``api_key``, ``client_secret``,
    ``SECRET_KEY_BASE``): every word a secret word or a kind of key, then qualifiers. ``ourTeamToken`` or
    ``myVaultPassphrase`` hold a word of their own: a value someone chose, not the name of a field."""
    parts = _numbered(words(value))
    while len(parts) > 1 and parts[-1] in _QUALIFIERS:
        parts.pop()  # ``SECRET_KEY_BASE``, ``password_plain``: qualifiers follow the name they qualify
    return is_secret_name(value) and all(part in _STOCK_NAME_WORDS for part in parts)


def is_public_name(name: str) -> bool:
    """``DOTENV_PUBLIC_KEY``, ``pubkey``, .NET's ``publicKeyToken``, OCSP's ``issuerKeyHash``: a value published
    by design, not a secret. Only a name ending in a public key: ``flutterwavePubKeyToken`` names a token."""
    parts = words(name)
    if parts == ["public", "key", "token"]:
        return True
    if parts[-3:] in (["issuer", "key", "hash"], ["issuer", "name", "hash"]):
        return True  # an OCSP CertID's digests of the issuer's public key and name (RFC 6960 4.1.1)
    return bool(parts) and (parts[-1] in ("pubkey", "publickey") or parts[-2:] in (["public", "key"], ["pub", "key"]))


def _names_secret(parts: list[str]) -> bool:
    last = parts[-1]
    if last in _SECRET_WORDS:
        return True
    if parts[-2:] == ["pass", "phrase"]:
        return True  # OpenSSL's "pass phrase" (openssl-passphrase-options), Ruby OpenSSL's ``pass_phrase``
    if parts[-2:] == ["reporter", "id"]:
        return True  # Code Climate's test reporter id: a token its docs say to keep secret, named an id
    if parts[-2:] == ["sonar", "login"]:
        return True  # SonarQube's ``sonar.login``: "the authentication token" (its docs; a login only before 7)
    if last in ("dockercfg", "dockerconfigjson"):
        return True  # the data keys of Kubernetes' registry-credential Secret types: a credentials file
    if last == "key" and len(parts) > 1 and parts[-2] in _KEY_KINDS:
        return True
    if last == "code" and len(parts) > 1 and parts[-2] in ("secret", "auth", "authorization"):
        return True  # RFC 6749 1.3.1: an authorization code is a credential; a secret code is a secret
    if last.endswith("pass") and last[:-4] in _PASS_OWNERS:
        return True
    return last not in _NOT_SECRET_NAMES and last.endswith(_GLUED_SUFFIXES)


# Values that are references or placeholders, not secrets.
# ``{USER}``, ``{password}``, ``{_github_pat(name)}``: a template's field, written as a name, not random letters
_TEMPLATE_FIELD = (
    r"_?+(?:[a-z][a-z_]*+|[A-Z][A-Z_]*+(?![a-z])|[A-Z][a-z_]++)(?:[A-Z][a-z_]++)*+(?:\([A-Za-z_.]{0,80}+\))?+"
)
_PLACEHOLDER = lazy(  # \A: used with .match only; anchored, it is linear when searched too
    r"\A(?:(?:\$|%\(|%[A-Za-z_]|<|&lt;|\{\{|\{\d{0,2}\}$|\{ ?"  # ``{ password }``: a template's field
    + _TEMPLATE_FIELD
    + r" ?\}$|@[A-Za-z_]{1,60}+@$|\*{3}|\.\.\.|…|\[REDACTED|x{3,}$|X{3,}$|#{3,}$|-{3,}$|_{3,}$)"
    r"|(?i:(?:true|false|null|nil|none|undefined|changeme|change[_-]?me|redacted|hidden|masked|example|your[_ -].*"
    r"|placeholder|todo|tbd|secret|password|token|required|optional|empty|unset|default|not[_ -]?set"
    r"|dummy|foo|bar|test|xxx+|\*+)$))"
)
# Type annotations: ``password: string;``, ``token: Optional[str] = None``.
_TYPE_WORD = lazy(
    r"(?i)(?:string|str|number|int|integer|float|bool|boolean|bytes|bytearray|any|unknown|object|char|text|varchar"
    r"|secretstr|secretbytes|optional|list|dict|array|void|never|date|datetime|uuid|url|email|field|column)"
    r"(?:$|[\[<(|?;,=]|\s*\|)"
)
# Code, not a value: ``self.password``, ``request.session.session_key``, ``config.token``.
# Each part a word (``self``, ``session_key``, ``SECRET_KEY``, ``ApiClient``), not random characters.
_WORD = r"(?:[a-z_][a-z_]*+(?:[A-Z][a-z_]++)*+[0-9]?+|[A-Z][A-Z_]*+[0-9]?+|(?:[A-Z][a-z]++)++[0-9]?+)"
_DOTTED = lazy(rf"(?<![A-Za-z0-9_.]){_WORD}(?:\.{_WORD})++")  # look-behind: a run is tried once, not at each letter
# A reference, not a value: an ARN (``arn:aws:iam::aws:policy/X``), a CSS id or a URL fragment
# (``#add-password``), a route of words (``cms/sites/passwords#update``, ``/en/enterprise-server@3.0/auth``).
_SLUG = r"[a-z]{2,}+(?:[-_.@][a-z0-9]++)*+"
_REFERENCE = lazy(  # look-behind: a run of letters is tried once, not at each letter
    rf"arn:[a-z-]{{2,20}}+:\S*+|#{_SLUG}|(?<![a-z0-9/@._-])/?+{_SLUG}(?:/{_SLUG})++(?:#{_SLUG})?+/?+"
)
# A URL with no user info, no query and a path of words (``mongodb://localhost:27017/database``): it names a
# place; the secret of a connection string is in its user info (the url-password rule) or its query.
_BARE_URL = lazy(rf"[a-z][a-z0-9+.-]{{1,20}}+://[A-Za-z0-9.-]{{1,100}}+(?::[0-9]{{1,5}}+)?+(?:/{_SLUG})*+/?+")
_HAS_DIGIT = lazy(r"[0-9]")
_HAS_SPECIAL = lazy(r"[^A-Za-z0-9\s_.-]")
_LOWER_ANY = lazy(r"[a-z]")
_UPPER_ANY = lazy(r"[A-Z]")
_CAMEL_WORDS = lazy(
    r"(?:[A-Z]?+[a-z]++)++|[A-Z][A-Z_]*+"
)  # possessive: linear on aaaa...B  # AuthenticationMiddleware, CONSTANT_NAME
_CFN_FUNCTIONS = ("!Ref ", "!GetAtt ", "!Sub ", "!ImportValue ", "!FindInMap ", "!Join ", "!Select ", "!If ")
_CONSTANT_NAME = lazy(r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*+(?:_[A-Z0-9]++)++")
_TEMPLATE_IN = lazy(r"\{[A-Za-z_][A-Za-z0-9_]{0,40}+\}")
# Code in a value: a method call (``"obj.aFunctionCall()"``).
_CALL = lazy(rf"(?<![A-Za-z0-9_.]){_WORD}(?:\.{_WORD})*+\([A-Za-z0-9_., ]{{0,80}}+\)")
_PLAIN_WORDS = lazy(r"\A[a-z]++(?: [a-z]++){2,}+")  # prose: "password to use with username"
_PASSWORD_CLASS = frozenset(
    {"password", "passwd", "passphrase", "passcode", "pwd", "pword", "pw", "pass", "secret", "secrets"}
)


# Values written to be committed, each by its tool's documentation: a 1Password secret reference
# (``op://<vault>/<item>/<field>``), a shell variable escaped for an outer shell (``\$VAR``), a Ruby or Octopus
# interpolation (``#{name}``), and ciphertext its tool marks, useless without a key kept elsewhere (Jasypt's
# ``ENC(...)``, Spring Cloud Config's ``{cipher}...``, Azure App Service's ``@Microsoft.KeyVault(...)``).
_REFERENCE_VALUE = lazy(
    r"\A(?:op://[^\s/]|\\\$[A-Za-z_{]|#\{[^{}\n]{1,100}+\}|ENC\([A-Za-z0-9+/=_-]{0,4000}+\)\Z"
    r"|\{cipher\}[A-Za-z0-9+/=_-]{0,4000}+\Z|@Microsoft\.KeyVault\([^()\n]{0,400}+\)\Z)"
)


# An instruction to fill a secret in: ``paste_token_here``, ``INSERT_SECRET_HERE``, ``api key here`` (the family of
# ``YOUR_API_KEY_HERE``). A secret's word must come just before ``here``: ``come_here`` is a password.
_FILL_IN_HERE = lazy(
    r"(?i)\A(?:(?:insert|enter|paste|put|add|your)[_ -])?(?:[a-z]{1,20}[_ -]){0,3}?"
    r"(?:key|token|secret|password|passwd|pass|pwd|credentials?|apikey)[_ -]here\Z"
)
# An auth scheme before the credentials (RFC 9110 11.4): ``Bearer %s``, ``token {}``.
_AUTH_SCHEME_VALUE = lazy(r"(?i)\A(?:bearer|basic|token|digest|bot|apikey|sso-key)[ \t]++(?=\S)")


def is_placeholder(value: str) -> bool:
    """True for values that stand in for a secret: ``$VAR``, ``${X}``, ``<token>``, ``***``, ``changeme``,
    stock words run together (``rootpasswd``), tokens that are documentation samples
    (``is_placeholder_token``), and references or marked ciphertext (``op://...``, ``ENC(...)``)."""
    return _is_placeholder(value, scheme_read=False)


def _is_placeholder(value: str, *, scheme_read: bool) -> bool:
    value = value.strip().strip("'\"“”「」")
    if value.endswith(("...", "…")):
        return True  # a sample cut short in documentation: ``ops_eyJzaWdu...``
    if _REFERENCE_VALUE.match(value):
        return True
    if value[-4:].lower() == "here" and _FILL_IN_HERE.match(value):  # (a test of 4 characters first: called often)
        return True
    scheme = _AUTH_SCHEME_VALUE.match(value) if not scheme_read and (" " in value or "\t" in value) else None
    if scheme is not None:  # an Authorization value: its credentials judged as any value (RFC 9110 11.4); one
        # scheme only (``Bearer Bearer ...`` repeated was a recursion per word: a RecursionError past ~1,000)
        return _is_placeholder(value[scheme.end() :], scheme_read=True)
    return bool(_PLACEHOLDER.match(value)) or is_placeholder_token(value, ascending=False) or _stock_words(value)


# Words a sample credential is made of: a role, the credential's own name, a documented default. Two or more
# of them and nothing else (``rootpasswd``, ``adminpassword``, ``test_secret``) stand in for a password the
# way ``changeme`` does; a real one adds something a reader could not guess.
_STOCK = frozenset(
    {"root", "admin", "administrator", "user", "username", "guest", "demo", "test", "dev", "local", "default"}
    | {"my", "your", "db", "pass", "passwd", "password", "pwd", "secret", "change", "me", "changeme", "token"}
)
_STOCK_LONGEST = max(len(w) for w in _STOCK)


def is_stock_word(value: str) -> bool:
    """One of the words a sample credential is made of (``user``, ``admin``, ``root``, ``test``, ...)."""
    return value.lower() in _STOCK


def _stock_words(value: str) -> bool:
    """``value`` is two or more stock words (``_STOCK``), run together or joined by ``_``/``-``. Linear: the
    split tries at most ``_STOCK_LONGEST`` ends at each position."""
    lowered = value.lower().replace("_", "").replace("-", "")
    size = len(lowered)
    if size < 6 or size > 40 or not lowered.isalpha() or not lowered.isascii():
        return False
    most = [0] + [-1] * size  # the most words a split of lowered[:i] into stock words has; -1: no split
    for end in range(1, size + 1):
        for start in range(max(0, end - _STOCK_LONGEST), end):
            if most[start] >= 0 and lowered[start:end] in _STOCK:
                most[end] = max(most[end], most[start] + 1)
    return most[size] >= 2


# Credentials their owners publish as examples: AWS's documented key pair, RFC 4122's example UUID, the MongoDB
# manual's connection-string password, the storage emulator's (Azurite's) account key, which Microsoft publishes
# for all to use.
_DOCUMENTED_SOURCE = (
    r"AKIAIOSFODNN7|wJalrXUtnFEMI|123e4567-e89b-|D1fficultP(?:%40|@)ssw0rd"
    r"|Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw"
)
_DOCUMENTED = lazy(_DOCUMENTED_SOURCE)


def holds_documented_key(value: str) -> bool:
    """``value`` holds a credential its owner publishes as an example (``_DOCUMENTED_SOURCE``)."""
    return _DOCUMENTED.search(value) is not None


# Inside a token: a documentation word, a run of x/X/*/0/#/. (6+) or of any one character (8+).
_SAMPLE_WORD = lazy(
    r"EXAMPLE|(?:HERE|Here)(?![a-z])|(?i:example|sample|placeholder|changeme|redacted|your[_-]?(?:api|token|key|secret))"
    r"|REPLACE_?+(?:ME|WITH)|(?i:your[_-]?password)"
    r"|" + _DOCUMENTED_SOURCE
)
# Written into a test token on purpose (``...q8fakeTz...FAKE...``, ``sk-x1y2invalid``): a sample where a
# token stands alone; under a secret's name the value is judged as a whole (``_mostly_sequential``).
_TEST_WORD = lazy(r"FAKE|(?i:invalid|dummy|bogus|not[_-]?+a[_-]?+real)")  # FAKE: 1 in ~400,000 random 40-character keys
_FILLER_RUN = lazy(r"([xX*0#.•])\1{5}|([^\s])\2{7}")
# A unit of 2-4 characters typed over and over (``ghp_abababab...``, ``asdfasdfasdf``): 12+ characters of it.
_PERIODIC_RUN = lazy(r"(\S\S)\1{5,}+|(\S{3})\2{3,}+|(\S{4})\3{2,}+")
_ASCENDING = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789"


def is_placeholder_token(value: str, *, ascending: bool = True) -> bool:
    """A token-shaped sample, not a key: ``AKIAIOSFODNN7EXAMPLE``, ``ghp_xxxx...``, ``glc_1111...``, a run of the
    alphabet (``...klmnopqrstuvwx...``). Random keys hold none of these (a run of 6 equal characters or 6 letters
    in alphabet order turns up in a random 40-character token about once in a million). ``ascending`` is off
    for values a person chose or assigned to a secret's name (a password ``abc123456`` is weak, not a sample;
    ``OPENAI_API_KEY=sk-test-FAKE...`` is judged whole): there only EXAMPLE-like words and filler runs count."""
    if _SAMPLE_WORD.search(value) or _FILLER_RUN.search(value):
        return True
    periodic = _PERIODIC_RUN.search(value)
    if periodic and (ascending or len(value) - len(periodic.group(0)) < 8):
        return True  # under a secret's name the value is judged whole: ``sk-test-FAKEFAKE...<random>`` is not
    if not ascending:
        return False
    if _interleaved_sequence(value):
        return True
    if _TEST_WORD.search(value) or value.lower().count("fake") >= 2:
        return True  # ``Wq4fakeZ8...Lm2fakeP``; one lower-case "fake" turns up in 1 random key of ~25,000
    return _ascending_run(value)


def _ascending_run(value: str) -> bool:
    """Six characters in a row through the alphabet or the digits, either way (``abcdef``, ``aBcDeF``, ``987654``)."""
    from itertools import pairwise  # a built-in module: no import cost

    lowered = value.lower()
    for step in (1, -1):
        run = 1
        for a, b in pairwise(lowered):
            if ord(b) == ord(a) + step and (a + b if step == 1 else b + a) in _ASCENDING:
                run += 1
                if run >= 6:
                    return True
            else:
                run = 1
    return False


_PREFIX_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz_-")


def is_sequence_sample(value: str) -> bool:
    """A token whose part after its lower-case prefix begins with six characters through the digits or the
    alphabet (``sk_live_1234567890...``, ``ghp_abcdef...``, ``dapi123456...``): typed, not generated (a random
    part begins so about once in 10^8). Elsewhere in a value a run is judged whole, as under any secret's name
    (``OPENAI_API_KEY=sk-test-FAKE...0123456789abcdef`` stays hidden)."""
    for at in range(min(len(value) - 5, 17)):
        if _ascending_run(value[at : at + 6]):
            return True
        if value[at] not in _PREFIX_CHARS:
            return False
    return False


def _interleaved_sequence(value: str) -> bool:
    """The letters alone run through the alphabet, 8 or more, either way, any case, each at most twice in a row:
    ``a1B2c3D4e5F6g7H8``, ``X9y8Z7a6B5c4D3e2``, ``aAbBcCdDeEfFgGhH``. A random token's letters do that about
    once in 10^9."""
    from itertools import pairwise  # a built-in module: no import cost

    letters = [ch for ch in value.lower() if "a" <= ch <= "z"]
    run, way = 1, 0
    for a, b in pairwise(letters):
        d = (ord(b) - ord(a)) % 26
        if d == 0:
            continue  # ``aA``: the same letter twice, the run goes on
        d = -1 if d == 25 else d
        if d in (1, -1) and d == way:
            run += 1
            if run >= 8:
                return True
        else:
            run, way = (2, d) if d in (1, -1) else (1, 0)
    return False


def _mostly_sequential(value: str) -> bool:
    """Runs of 6+ of the alphabet or the digits, either way and in any case, leave fewer than 8 characters."""
    lowered = value.lower()
    covered = [False] * len(lowered)
    for step in (1, -1):
        start = 0
        for i in range(1, len(lowered) + 1):
            a, b = lowered[i - 1], lowered[i] if i < len(lowered) else ""
            if b and ord(b) == ord(a) + step and (a + b if step == 1 else b + a) in _ASCENDING:
                continue
            if i - start >= 6:
                covered[start:i] = [True] * (i - start)
            start = i
    return covered.count(False) < 8


def is_password_class(name: str) -> bool:
    parts = _numbered(words(name))
    while len(parts) > 1 and parts[-1] in _QUALIFIERS:
        parts.pop()  # ``password_confirmation`` is a password, ``api_key_prod`` an API key
    return bool(parts) and (
        parts[-1] in _PASSWORD_CLASS
        or parts[-2:] == ["pass", "phrase"]
        or parts[-1].endswith(("password", "passwd", "passwords"))
        or (parts[-1].endswith("pass") and parts[-1][:-4] in _PASS_OWNERS)
        or (parts[-1].endswith("pwd") and parts[-1][:-3] in _PASS_OWNERS)  # ``adminpwd``, ``dbpwd``
    )


def looks_like_credential(value: str) -> bool:
    """A value random enough to be a key or token: 8+ characters with a digit, a symbol or mixed case."""
    value = value.strip()
    if len(value) < 8:
        return False
    if _HAS_DIGIT.search(value) or _HAS_SPECIAL.search(value):
        return True
    if random_lower_letters(value):
        return True
    # mixed case, unless it is only CamelCase words: ``AuthenticationMiddleware``, ``current_token``
    mixed = _LOWER_ANY.search(value) is not None and _UPPER_ANY.search(value) is not None
    return mixed and not all(_CAMEL_WORDS.fullmatch(part) for part in value.split("_") if part)


_CONSONANT_RUN = lazy(r"[b-df-hj-np-tv-xz]{6}")  # y counts as a vowel: ``rhythms``, ``syzygy``


_ONE_CASE_RUN = lazy(r"(?<![A-Z])[A-Z]{16,}+|(?<![a-z])[a-z]{16,}+")
_VOWELS = frozenset("aeiouy")


def spells_words(value: str) -> bool:
    """``value`` holds a run of 16+ letters of one case that reads as words run together, a name rather than
    a key (minified code's ``Kx_SHADERPRECISIONFORMAT2D4D``): 30%+ vowels and no 6 consonants in a
    row. Random letters are 23% vowels (y counted); a run of 16 letters of one case is rare in a random key
    (under one in 10^6 per position in base62); 24 random capitals pass the test one time in ten, and 0.5-0.7%
    of random base36 keys of 32-40 characters (measured over 20,000 each) now read as names."""
    for run in _ONE_CASE_RUN.findall(value):
        lowered = run.lower()
        vowels = sum(ch in _VOWELS for ch in lowered)
        if vowels * 10 >= len(run) * 3 and _CONSONANT_RUN.search(lowered) is None:
            return True
    return False


def random_lower_letters(value: str) -> bool:
    """12+ lower-case letters, no digit, that are not words: a run of 6 consonants (``qzkfwt``...).
    Words and identifiers of lower-case letters hold at most 4 or 5 in a row (``lengthwise``, ``strengths``);
    a random run of 16 letters holds 6 or more about half the time, and the rule costs nothing elsewhere."""
    return (
        len(value) >= 12
        and value.isascii()
        and value.isalpha()
        and value.islower()
        and (_CONSONANT_RUN.search(value) is not None)
    )


# Words in a name that mark its value as a sample written to fail (``wrongLength := "..."``,
# ``nonMatchingToken``, ``invalid_key``, ``fakeSecret``): a real secret is not named so.
_FAKE_WORDS = frozenset(
    {"wrong", "invalid", "fake", "dummy", "bogus", "mock", "nonmatching", "unmatched", "mismatched", "malformed"}
    | {"placeholder", "redacted", "truncated", "revoked", "expired"}
)  # not "example" or "sample": ``Example= <key>`` introduces a real key as often as a fake one


def is_fake_name(name: str) -> bool:
    """True when a word of ``name`` marks its value as a sample that is meant to fail (see ``_FAKE_WORDS``)."""
    parts = words(name)
    if any(part in _FAKE_WORDS for part in parts):
        return True
    if "non" not in parts and "not" not in parts:
        return False  # (most names: one C-level scan each, this is called for every name read)
    for i in range(len(parts) - 1):
        if parts[i] == "non" and parts[i + 1] in {"matching", "match", "valid"}:
            return True
        if parts[i] in {"not", "non"}:  # ``not_secret``, ``NOT_A_TOKEN``: the name says what its value is not
            following = parts[i + 2] if parts[i + 1] == "a" and i + 2 < len(parts) else parts[i + 1]
            if following in _NOT_WHAT:
                return True
    return False


_NOT_WHAT = frozenset({"secret", "password", "passwd", "token", "key", "apikey", "credential", "credentials"})


# Provider prefixes whose documented shape is exact: a token with the prefix that does not have the shape
# is not that provider's key (npm: ``npm_`` + 36 base62; Databricks: ``dapi`` + 32
# hex; Sourcegraph: ``sgp_`` [+ 16 hex or ``local`` + ``_``] + 40 hex, Segment: ``sgp_`` + 64 base62;
# JFrog: ``AKCp`` + 69 alphanumerics,
# reference tokens base64 ``reftkn`` + 56; SettleMint: ``sm_aat_``/``sm_pat_``/``sm_sat_`` + 16). Not GitHub:
# its documentation reserves the right to lengthen tokens, and its CRC32 check digits cannot be told apart
# from random ones without the exact encoding.
_SLACK_PREFIXES = ("xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxe-", "xapp-")  # not the legacy xoxa-/xoxr- (random)
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("npm_", lazy(r"npm_[A-Za-z0-9]{36}")),
    ("dapi", lazy(r"dapi[a-fA-F0-9]{32}(?:-[0-9])?")),
    ("sgp_", lazy(r"sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}|sgp_[A-Za-z0-9]{64}")),
    ("AKCp", lazy(r"AKCp[A-Za-z0-9]{69}")),
    ("cmVmdGtu", lazy(r"cmVmdGtu[A-Za-z0-9]{56}")),
    ("sm_aat_", lazy(r"sm_aat_[A-Za-z0-9]{16}")),
    ("sm_pat_", lazy(r"sm_pat_[A-Za-z0-9]{16}")),
    ("sm_sat_", lazy(r"sm_sat_[A-Za-z0-9]{16}")),
    # Slack's tokens: after the prefix a number (a team, app or config id, a version: ``xoxb-<team>-...``,
    # ``xapp-1-...``, ``xoxe-1-...``); ``xoxb-xoxb-my-bot-token`` (words after it) is a written sample
    *((prefix, lazy(prefix + r"[0-9][A-Za-z0-9/+_=.-]*+")) for prefix in _SLACK_PREFIXES),
)


def is_malformed_token(value: str) -> bool:
    """A token that starts with a provider's prefix but does not have the provider's documented shape
    (``sgp_`` and a non-hex character; ``sm_pat_`` and 10 characters, not 16): a look-alike, not a key."""
    value = value.strip().strip("'\"")
    if len(value) < 8 or not value[:1].isalpha():
        return False
    for prefix, shape in _SHAPES:
        if value.startswith(prefix):
            return shape.fullmatch(value) is None
    return False


# Maven's encrypted password (guide-encryption): ``mvn --encrypt-password`` prints ``{<base64>}`` for settings.xml's
# <password>/<passphrase>; its key is the master password kept in ~/.m2/settings-security.xml.
MAVEN_CIPHER = lazy(r"\{[A-Za-z0-9+/]{11,400}+={0,2}\}")


# PHP's concatenation operator ``.`` joins an expression (php.net, String Operators): after a closing quote a
# variable, a string, a parenthesis, or a name that is called, a class's, or joined again (``"token=".$t``,
# ``"k=".urlencode($k)``, ``"t=".TOKEN."&"``). A quoted value that opens with ``.`` and anything else
# (``".uYikE-os3cM23rz.i6Q"``) is a value.
_PHP_CONCAT = lazy(r"\.[ \t]*+(?:[$\"'(]|[A-Za-z_\\][A-Za-z0-9_\\]*+[ \t]*+(?:[(.;,)\]}]|::|->|$))")


def is_secret_value(name: str, value: str, *, quoted: bool, strict: bool = False) -> bool:
    """Whether ``value``, assigned to the secret-named ``name``, is worth hiding.

    Password-like names take any value of 4+ characters that is not a placeholder, a type or code; other
    names (token, key, auth, ...) and ``strict`` contexts (prose such as "the password is ...") need a
    value that looks like a credential, so ``token: expired`` stays.
    """
    text = value.strip()
    if _bundler_credentials(name):
        return _bundler_value(text)
    if len(text) < 4 or is_placeholder(text) or "[REDACTED" in text or is_fake_name(name):
        return False
    if is_malformed_token(text):
        return False
    if is_public_key_der(text):
        return False  # a DER public key: what the name calls it does not make it private
    if MAVEN_CIPHER.fullmatch(text) and is_password_class(name):
        return False  # ciphertext (the master's own ``{...}`` is only obfuscated: ``master`` is not a password's name)
    if not is_password_class(name) and is_sequence_sample(text.strip("'\"")):
        return False  # ``sk_live_1234567890...``: a sample by the format rules' own test; a key's name changes nothing
    if not is_password_class(name) and (_mostly_sequential(text.strip("'\"")) or _interleaved_sequence(text)):
        return False  # a token that is a run through the alphabet (``sk_abcdefghijklmnop...``) is a sample
    if quoted and (value[:1] in {" ", ",", "+", ")", ";"} or (value[:1] == "." and _PHP_CONCAT.match(value))):
        return False  # the quote closed a string around the name: ``"token=" + repr(x)``, ``"token=".$t``
    if _PLAIN_WORDS.fullmatch(text):
        return False  # prose after a name: "password: password to use with username"
    if _REFERENCE.fullmatch(text.strip("'\"")) or _BARE_URL.fullmatch(text.strip("'\"")):
        return False  # an ARN, a selector, a route: names a thing, holds no secret
    if _CALL.fullmatch(text.strip("'\"").rstrip(";")):
        return False  # a call: ``"obj.aFunctionCall()"``, ``= getPassword();``
    bare = text.strip("'\"")
    if (bare + " ").startswith(_CFN_FUNCTIONS):
        return False  # CloudFormation's intrinsic functions: ``!Ref 'MasterUserPassword'`` names a parameter
    if _CONSTANT_NAME.fullmatch(bare) and (words(bare) == words(name) or is_secret_name(bare)):
        return False  # a name as the value: ``TRAVEL_API_KEY: TRAVEL_API_KEY``, ``api_secret: AUTH_TOKEN``
    if "://" in bare and "{" in bare and "@" not in bare and _TEMPLATE_IN.search(bare):
        return False  # a URL template: ``s3://{bucket}/events/dt={date}``
    if not quoted:
        if _TYPE_WORD.match(text) or _DOTTED.fullmatch(text.rstrip(";,")):
            return False
        if words(text) == words(name):  # ``password = password``
            return False
    elif len(words(bare)) >= 3 and words(bare) == words(name):
        return False  # the name as its own value in another spelling: an HTML ``id`` beside its ``name``
    if sample_url(bare):
        return False  # ``mongodb://mongodb:mongodb@localhost``: a sample's credentials
    if is_public_token(bare):
        return False  # a Datadog client token: documented as safe to embed in web pages (RUM, browser logs)
    if words(name)[-1:] in (["pwd"], ["dir"], ["path"]) and (
        text.strip("'\"").startswith(("/", "~", "./", "../")) or text.strip("'\"")[1:3] in (":\\", ":/")
    ):
        return False  # ``PWD=/home/me``, ``"pwd": "C:\\work"``: the working directory
    if strict or not is_password_class(name):
        if quoted and " " in text:
            return False  # keys, tokens and signatures hold no spaces: ``sig = "at least %d"``
        if quoted and _DOTTED.fullmatch(text):
            return False  # a module or attribute path: ``'Cookie': 'http.cookies'``
        return (quoted and len(text) >= 6 and not strict) or looks_like_credential(text)
    return True


# A name that is only "key" (``Key=``, ``key:``, ``"key":``), or "id" words that name a secret id.
# Datadog's client tokens (``pub`` + 32 hex) are public by design: browser SDKs ship them in page source.
_DATADOG_CLIENT = lazy(r"pub[0-9a-f]{32}")


def _der_header(der: bytes, at: int) -> tuple[int, int, int] | None:
    """The tag, content start and content end of the DER element at ``at`` (None when it does not fit)."""
    if at + 2 > len(der):
        return None
    tag, size, at = der[at], der[at + 1], at + 2
    if size & 0x80:
        width = size & 0x7F
        if not 0 < width <= 3 or at + width > len(der):
            return None
        size, at = int.from_bytes(der[at : at + width], "big"), at + width
    return (tag, at, at + size) if at + size <= len(der) else None


def is_public_key_der(value: str) -> bool:
    """A DER SubjectPublicKeyInfo in base64 (RFC 5280 4.1.2.7: SEQUENCE { AlgorithmIdentifier { OID, ... },
    BIT STRING }, what ``openssl pkey -pubout -outform DER`` writes): a public key. Private keys (PKCS#8, SEC1,
    PKCS#1) open with an INTEGER version, not an AlgorithmIdentifier."""
    value = value.strip("'\"")
    if len(value) < 60 or not value.startswith("M") or len(value) > 4000:
        return False  # (a DER SEQUENCE in base64 begins with `M`: most callers stop here)
    import binascii  # (only here: a shared library to load, kept off the hook path's imports)

    try:
        der = binascii.a2b_base64(value, strict_mode=True)
    except (binascii.Error, ValueError):
        return False
    outer = _der_header(der, 0)
    if outer is None or outer[0] != 0x30 or outer[2] != len(der):
        return False
    algorithm = _der_header(der, outer[1])
    oid = _der_header(der, algorithm[1]) if algorithm is not None and algorithm[0] == 0x30 else None
    if oid is None or oid[0] != 0x06 or algorithm is None:
        return False
    key = _der_header(der, algorithm[2])
    return key is not None and key[0] == 0x03 and key[2] == outer[2]


# RFC 7515 4.1's registered header parameters, but `jwk` (a key, possibly a private one, RFC 7517) and `crit`'s
# extensions' members: a header holding only these names describes a signature and holds no secret.
_JOSE_PARAMS = frozenset({"alg", "typ", "cty", "kid", "enc", "zip", "x5t", "x5t#S256", "x5u", "jku", "crit"})


def is_jose_header(value: str) -> bool:
    """A JWS/JWE protected header alone (RFC 7515 4.1, RFC 7519 5): base64url JSON whose members are only the
    registered parameters, with `alg`. It is sent in the clear; the credential is the whole signed token."""
    if not value.startswith("eyJ") or len(value) > 600 or "." in value:
        return False
    import binascii  # (only here: a shared library to load, kept off the hook path's imports)
    import json

    try:
        raw = binascii.a2b_base64(value.replace("-", "+").replace("_", "/") + "=" * (-len(value) % 4))
        header = json.loads(raw)
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and "alg" in header and set(header) <= _JOSE_PARAMS


def is_public_token(value: str) -> bool:
    """A token its provider documents as public (Datadog's browser client tokens): nothing to hide."""
    return _DATADOG_CLIENT.fullmatch(value) is not None


def sample_userinfo(scheme: str, user: str, password: str) -> bool:
    """A URL's ``user:password`` that stands in for credentials: the user's name typed twice as a stock word or
    as the scheme's product (``user:user``, ``postgres://postgres:postgres``), stock words both
    (``admin:pass``), or a password under 4 characters (``user:abc``), which named values need too."""
    if password == user and (is_stock_word(password) or scheme.lower().startswith(password.lower())):
        return True
    return len(password) < 4 or (is_stock_word(user) and is_stock_word(password))


_URL_USERINFO = lazy(r"([a-zA-Z][a-zA-Z0-9+.-]{1,30}+)://([^\s:/@'\"<>]{1,100}+):([^\s:/@'\"<>]{1,200}+)@")


def sample_url(value: str) -> bool:
    """A URL whose credentials are a sample's (``sample_userinfo``)."""
    found = _URL_USERINFO.match(value)
    return found is not None and sample_userinfo(found.group(1), found.group(2), found.group(3))


_KEY_NAMES = frozenset({"key", "keys", "secretid", "secret_id", "apiid"})
_TOKEN_SHAPE = lazy(r"[A-Za-z0-9+/=_.~:*!@#$%^&-]{16,}+")
_HAS_LETTER = lazy(r"[A-Za-z]")


def is_key_name(name: str) -> bool:
    """A bare "key" or any ``*_key`` (``geocodio_key``, ``Key``): a secret only when its value is a random
    token (``is_random_token``), so ``key: app.kubernetes.io/name`` and ``cache_key = build-2024`` stay."""
    if not name.lower().endswith(("key", "keys", "id")):
        return False
    parts = words(name)
    if is_public_name(name):
        return False  # ``DOTENV_PUBLIC_KEY``: published by design
    return bool(parts) and (parts[-1] in _KEY_NAMES or (len(parts) == 1 and parts[0].endswith("key")))


def _random_case(value: str) -> bool:
    """Letters (``_``/``-`` between) whose case changes at least every 4th letter, not words in CamelCase or
    UPPER_SNAKE: ``LiUFmUqcxxJlqakHvcbDddqf``, not ``createdAtTimestampDescending``."""
    letters = value.replace("_", "").replace("-", "")
    if len(letters) < 16 or not letters.isalpha() or not letters.isascii():
        return False
    if all(_CAMEL_WORDS.fullmatch(part) for part in value.replace("-", "_").split("_") if part):
        return False
    return len(_CASE_CHANGE.findall(letters)) * 4 >= len(letters)


def is_random_token(value: str) -> bool:
    """16+ token characters, letters and digits, random enough (no run of words, no path, no placeholder)."""
    value = value.strip().strip("'\"")
    if not _TOKEN_SHAPE.fullmatch(value) or is_placeholder(value) or is_placeholder_token(value):
        return False
    if is_malformed_token(value) or is_public_key_der(value):
        return False
    if random_lower_letters(value):
        return True  # ``?key=<16 letters, no word>``
    if _random_case(value):
        return True  # one random key in ~50 of 22 base62 characters has no digit
    if _CAMEL_WORDS.fullmatch(value.rstrip("0123456789")):
        return False  # ``ConnectionString1``: words in CamelCase, numbered
    if not _HAS_DIGIT.search(value) or not _HAS_LETTER.search(value) or value.count("/") >= 2:
        return False
    if value.count(".") >= 2 and _DOTTED.fullmatch(value):
        return False
    return len(set(value)) >= 10


_PATH_TOKEN = lazy(r"[A-Za-z0-9_+=~-]{20,200}")
_HEXISH = lazy(r"[0-9a-fA-F_-]+")


# Files that build tools name by their content's digest (Rails' ``application-<sha256>.css``, webpack's
# ``[name]-[contenthash].js``, Phoenix's ``app-<md5>.js``): the hex part is a fingerprint, not a key.
ASSET_EXTENSIONS = frozenset(
    {"css", "js", "mjs", "map", "gif", "png", "jpg", "jpeg", "svg", "webp", "ico", "avif", "woff", "woff2", "ttf"}
)


def is_digest_slug(name: str) -> bool:
    """``<words>-<hex digest>``: a page's slug and its id (Notion's ``Title-<32 hex>``) or a fingerprinted
    asset's name. The digest is 16+ hex digits of one case; the words are letters only and not the name of a
    key (``key-<32 hex>`` is Mailgun's documented key)."""
    head, dash, digest = name.rpartition("-")
    if not dash or not head or len(digest) < 16 or len(head) > 80 or not is_hex(digest):
        return False
    if not all(piece.isascii() and piece.isalpha() for piece in head.replace("_", "-").split("-")):
        return False
    return not (is_secret_name(head) or is_key_name(head) or words(head)[-1:] in (["key"], ["keys"]))


def path_token(name: str, *, label: bool = True) -> bool:
    """A file or directory name that is a key: a ``random_word`` (``label``: the name alone, not a segment of
    a path in running text), or 20+ token characters, letters and digits, 12+ distinct, neither hex, a UUID
    nor words (``test_payment_provider_2``)."""
    if not label and is_digest_slug(name):
        return False  # in a URL: a page's slug and id, not a key
    if random_word(name, label=label):
        return True
    if not _PATH_TOKEN.fullmatch(name) or _HEXISH.fullmatch(name) or is_placeholder(name):
        return False
    if not _HAS_DIGIT.search(name) or not _HAS_LETTER.search(name) or len(set(name)) < 12:
        return False
    if name.count("_") + name.count("-") > 2:
        return False  # words joined: a slug (``ctxops-redaction-bench-1a0w8eb0``), not a token
    letters = sum(ch.isalpha() for ch in name)
    return sum(ch.isdigit() for ch in name) >= 2 and letters >= 6


# --- bare tokens in names and labels --------------------------------------------------------------------

_PIECE_SPLIT = lazy(r"[_.\-/+=~:]++")
_DIGIT_LETTER = lazy(r"[0-9][A-Za-z]")  # a digit followed by a letter: random, not ``provider2`` or ``v2``
_HEX_ONLY = lazy(r"[0-9a-f]++|[0-9A-F]++")
_UUID_SHAPE = lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_ULID = lazy(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")
_ID_REFERENCE = lazy(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-7][0-9A-HJKMNP-TV-Z]{25}"
)


def is_hex(value: str) -> bool:
    """Hex digits only, one case (a digest, a hex key)."""
    return bool(_HEX_ONLY.fullmatch(value))


def is_id_reference(value: str) -> bool:
    """Exactly a session id (UUID) or an event or memory id (ULID), as ctxops records a memory's source: kept.
    Anything around it (``ref:<uuid>``, a path) makes it a name, judged like any other."""
    return bool(_ID_REFERENCE.fullmatch(value))


_WORD_CHARS = lazy(r"[A-Za-z0-9+/=_.~:-]{12,8000}")


def random_word(word: str, *, label: bool = False) -> bool:
    """A bare word (no name, no context) that is a key rather than a name a person chose.

    True for pieces (split at ``_ . - / + = ~ :``) in which a digit is followed by a letter: one of 12+
    characters with two such turns (``68j9c7oysty8pq``), or such pieces adding up to 16+ characters
    (``8cpf3rjwy_dlihsu4-7z1afp0u``), the word holding 2+ digits and 4+ letters; 20+ letters in random case;
    32+ hex digits. ``test_payment_provider_2``, ``utf8mb4_unicode_ci``, ``ctxops-bench-1a0w8eb0``,
    ``v1alpha3``, ``base64encoded`` and ULIDs (ctxops's own ids) are kept. Hex pieces (ids, short digests in
    file and URL names) do not count, unless ``label``: a memory title, a tag or a file's own name, where a
    UUID or 16+ hex digits alone are hidden too (a label has no context that says "id" or "digest")."""
    if not _WORD_CHARS.fullmatch(word) or is_placeholder(word) or is_placeholder_token(word):
        return False
    if _UUID_SHAPE.fullmatch(word):
        return label
    if spells_words(word):
        return False  # words run together in capitals, as minified code names its constants
    if _ULID.fullmatch(word):
        return False  # ctxops's own event and memory ids
    if _HEX_ONLY.fullmatch(word):
        return len(word) >= 32 or (
            label and len(word) >= 16 and _HAS_DIGIT.search(word) is not None and _HAS_LETTER.search(word) is not None
        )
    digits = sum(ch.isdigit() for ch in word)
    letters = sum(ch.isalpha() for ch in word)
    if digits == 0 and letters == len(word):
        return _random_letters(word)
    if digits < 2 or letters < 4:
        return False
    pieces = [p for p in _PIECE_SPLIT.split(word) if p and (label or not _HEX_ONLY.fullmatch(p))]
    if any(len(p) >= 12 and len(_DIGIT_LETTER.findall(p)) >= 2 for p in pieces):
        return True
    return sum(len(p) for p in pieces if len(p) >= 4 and _DIGIT_LETTER.search(p)) >= 16


_UPPER_RUN = lazy(r"(?<![A-Z])[A-Z]{2,}+[a-z]")  # from a run's start only: the same finds, linear
_CASE_CHANGE = lazy(r"[a-z](?=[A-Z])|[A-Z](?=[a-z])")


def _random_letters(word: str) -> bool:
    """20+ letters in random case (``yvxpthLIcYpZweFpPOVeCOtt``): the case changes every few letters and
    runs of capitals start mid-word; identifiers (``HTTPServerURLHandler``, ``getElementById``) do not."""
    if len(word) < 20:
        return False
    return len(_UPPER_RUN.findall(word)) >= 2 and len(_CASE_CHANGE.findall(word)) * 4 >= len(word)


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def assigned_name(text: str, at: int) -> str:
    """The name a value starting at ``at`` is assigned to on its line (``wrongLength := "``, ``"key": '``,
    ``x = ``), or "" when none. String operations on at most 120 characters: no pattern to run."""
    begin = max(0, at - 120)
    head = text[begin:at]
    cut = head.rfind("\n")
    head = head[cut + 1 :].rstrip(" \t\"'`\\")
    for sep in (":=", "=>", "?=", "=", ":"):
        if head.endswith(sep):
            head = head[: -len(sep)].rstrip(" \t\"'\\]")
            break
    else:
        return ""
    end = len(head)
    start = end
    while start > 0 and head[start - 1] in _NAME_CHARS:
        start -= 1
    return head[start:end]
