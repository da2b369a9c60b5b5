"""The secret corpus: formats the redactor must hide, and look-alikes it must leave alone.

Token values are generated from a fixed seed in each provider's documented shape, so none is a live
credential and the corpus stays the same from run to run. Each secret entry is (format, text as an
agent would see it, the secret part that must never reach disk). docs/memory.md lists the formats.
"""

from __future__ import annotations

import base64
import random
import string

_rng = random.Random(14)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"


def r(n: int, alphabet: str = ALNUM) -> str:
    """``n`` random characters; every value holds at least one digit and one letter, as real tokens do."""
    while True:
        value = "".join(_rng.choice(alphabet) for _ in range(n))
        if n < 4 or (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)) or alphabet == "0123456789":
            return value


def _pem(kind: str) -> tuple[str, str]:
    body = "\n".join(r(64, ALNUM + "+/") for _ in range(5))
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----", body.splitlines()[2]


def _putty() -> tuple[str, str]:
    line = r(64, ALNUM + "+/")
    text = (
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: dev\nPublic-Lines: 2\n"
        f"AAAAC3NzaC1lZDI1NTE5AAAAI{r(40)}\nPrivate-Lines: 1\n{line}\nPrivate-MAC: {r(64, HEX)}"
    )
    return text, line


# --- provider formats (the token is the secret) --------------------------------------------------------
_TOKENS: list[tuple[str, str]] = [
    ("anthropic api key", "sk-ant-api03-" + r(93, B64URL) + "AA"),
    ("anthropic admin key", "sk-ant-admin01-" + r(93, B64URL) + "AA"),
    ("openai project key", "sk-proj-" + r(156, B64URL)),
    ("openai service account key", "sk-svcacct-" + r(64, B64URL)),
    ("openai admin key", "sk-admin-" + r(64, B64URL)),
    ("openai legacy key", "sk-" + r(20) + "T3BlbkFJ" + r(20)),
    ("openai-compatible sk- key (DeepSeek)", "sk-" + r(32, HEX)),
    ("openrouter key", "sk-or-v1-" + r(64, HEX)),
    ("github classic PAT", "ghp_" + r(36)),
    ("github OAuth token", "gho_" + r(36)),
    ("github user-to-server token", "ghu_" + r(36)),
    ("github server-to-server token", "ghs_" + r(36)),
    ("github refresh token", "ghr_" + r(76)),
    ("github fine-grained PAT", "github_pat_" + r(22) + "_" + r(59)),
    ("gitlab PAT", "glpat-" + r(20, B64URL)),
    ("gitlab runner token", "glrt-" + r(20, B64URL)),
    ("gitlab deploy token", "gldt-" + r(20, B64URL)),
    ("gitlab pipeline trigger token", "glptt-" + r(40, HEX)),
    ("gitlab feed token", "glft-" + r(20, B64URL)),
    ("gitlab runner registration token", "GR1348941" + r(20, B64URL)),
    ("aws access key id", "AKIA" + r(16, string.ascii_uppercase + "234567")),
    ("aws temporary access key id", "ASIA" + r(16, string.ascii_uppercase + "234567")),
    ("google api key", "AIza" + r(35, B64URL)),
    ("google oauth client secret", "GOCSPX-" + r(28, B64URL)),
    ("google oauth access token", "ya29.a0" + r(120, B64URL)),
    ("google oauth refresh token", "1//0" + r(60, B64URL)),
    ("slack bot token", "xoxb-" + r(12, "0123456789") + "-" + r(13, "0123456789") + "-" + r(24)),
    ("slack user token", "xoxp-" + r(12, "0123456789") + "-" + r(12, "0123456789") + "-" + r(32, HEX)),
    ("slack app token", "xapp-1-A" + r(10) + "-" + r(13, "0123456789") + "-" + r(64, HEX)),
    ("slack config token", "xoxe.xoxp-1-" + r(140)),
    ("slack webhook url", "https://hooks.slack.com/services/T" + r(10) + "/B" + r(10) + "/" + r(24)),
    ("discord webhook url", "https://discord.com/api/webhooks/" + r(18, "0123456789") + "/" + r(68, B64URL)),
    ("discord bot token", "M" + r(25, B64URL) + "." + r(6, B64URL) + "." + r(38, B64URL)),
    ("telegram bot token", r(10, "0123456789") + ":AA" + r(33, B64URL)),
    ("stripe secret key", "sk_live_" + r(99)),
    ("stripe test secret key", "sk_test_" + r(99)),
    ("stripe restricted key", "rk_live_" + r(99)),
    ("stripe webhook secret", "whsec_" + r(32)),
    ("hugging face token", "hf_" + r(34)),
    ("hugging face org token", "api_org_" + r(34)),
    ("npm token", "npm_" + r(36)),
    ("pypi token", "pypi-AgEIcHlwaS5vcmc" + r(70, B64URL)),
    ("sendgrid key", "SG." + r(22, B64URL) + "." + r(43, B64URL)),
    ("mailgun key", "key-" + r(32, HEX)),
    ("mailchimp key", r(32, HEX) + "-us14"),
    ("twilio api key", "SK" + r(32, HEX)),
    ("vault service token", "hvs." + r(90, B64URL)),
    ("vault batch token", "hvb." + r(130, B64URL)),
    ("terraform cloud token", r(14) + ".atlasv1." + r(67, B64URL)),
    ("digitalocean PAT", "dop_v1_" + r(64, HEX)),
    ("digitalocean oauth token", "doo_v1_" + r(64, HEX)),
    ("linear api key", "lin_api_" + r(40)),
    ("groq key", "gsk_" + r(52)),
    ("sentry org token", "sntrys_" + r(90, ALNUM + "+/=")),
    ("sentry user token", "sntryu_" + r(64, HEX)),
    ("postman key", "PMAK-" + r(24, HEX) + "-" + r(34, HEX)),
    ("databricks token", "dapi" + r(32, HEX)),
    ("age secret key", "AGE-SECRET-KEY-1" + r(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".upper())),
    ("shopify access token", "shpat_" + r(32, HEX)),
    ("shopify shared secret", "shpss_" + r(32, HEX)),
    ("atlassian api token", "ATATT3xFfGF0" + r(180, B64URL + "=")),
    ("bitbucket app password", "ATBB" + r(32)),
    ("azure ad client secret", r(3) + "8Q~" + r(34, ALNUM + "_~.-")),
    ("heroku key", "HRKU-AA" + r(58, B64URL)),
    ("notion integration token", "secret_" + r(43)),
    ("notion token (ntn_)", "ntn_" + r(46)),
    ("airtable PAT", "pat" + r(14) + "." + r(64, HEX)),
    ("figma token", "figd_" + r(40, B64URL)),
    ("grafana cloud token", "glc_" + r(60, ALNUM + "+/") + "=="),
    ("grafana service account token", "glsa_" + r(32) + "_" + r(8, HEX)),
    ("new relic user key", "NRAK-" + r(27, string.ascii_uppercase + string.digits)),
    ("doppler personal token", "dp.pt." + r(43)),
    ("doppler service token", "dp.st.prd." + r(43)),
    ("pulumi token", "pul-" + r(40, HEX)),
    ("fly.io token", "fm2_" + r(120, ALNUM + "+/=")),
    ("supabase token", "sbp_" + r(40, HEX)),
    ("replicate token", "r8_" + r(37)),
    ("perplexity key", "pplx-" + r(48)),
    ("xai key", "xai-" + r(80)),
    ("fireworks key", "fw_" + r(24)),
    ("langsmith key", "lsv2_pt_" + r(32, HEX) + "_" + r(10, HEX)),
    ("cloudflare origin ca key", "v1.0-" + r(24, HEX) + "-" + r(146, HEX)),
    ("square access token", "EAAA" + r(60, B64URL)),
    ("square oauth secret", "sq0csp-" + r(43, B64URL)),
    ("facebook access token", "EAACEdEose0cBA" + r(100)),
    ("planetscale token", "pscale_tkn_" + r(43, B64URL)),
    (
        "dynatrace token",
        "dt0c01." + r(24, string.ascii_uppercase + string.digits) + "." + r(64, string.ascii_uppercase + string.digits),
    ),
    ("sourcegraph token", "sgp_" + r(16, HEX) + "_" + r(40, HEX)),
    ("prefect key", "pnu_" + r(36)),
    ("contentful token", "CFPAT-" + r(43, B64URL)),
    ("easypost key", "EZAK" + r(54, string.ascii_lowercase + string.digits)),
    ("shippo token", "shippo_live_" + r(40, HEX)),
    ("flutterwave key", "FLWSECK_TEST-" + r(32, "abcdefgh0123456789") + "-X"),
    ("alibaba access key", "LTAI" + r(20)),
    ("tailscale key", "tskey-auth-k" + r(10) + "-" + r(30)),
    ("1password service account token", "ops_eyJ" + r(120, B64URL)),
    ("infracost key", "ico-" + r(32)),
    ("buildkite token", "bkua_" + r(40, HEX)),
    ("rubygems key", "rubygems_" + r(48, HEX)),
    ("dropbox token", "sl." + r(140, B64URL)),
    ("mapbox secret token", "sk.eyJ1Ijoi" + r(60, B64URL) + "." + r(22, B64URL)),
    ("typeform token", "tfp_" + r(59, B64URL)),
    ("duffel token", "duffel_live_" + r(43, B64URL)),
    ("netlify token", "nfp_" + r(36)),
    ("render key", "rnd_" + r(32)),
    ("docker hub PAT", "dckr_pat_" + r(27, B64URL)),
    ("asana PAT", "2/" + r(16, "0123456789") + "/" + r(16, "0123456789") + ":" + r(32, HEX)),
    ("zapier webhook url", "https://hooks.zapier.com/hooks/catch/" + r(7, "0123456789") + "/" + r(7).lower()),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi" + r(40, B64URL) + "." + r(43, B64URL),
    ),
]

_PW = "Tr0ub4dor&3x"  # a password as people type them: letters, digits, a symbol


def _contextual() -> list[tuple[str, str, str]]:
    pw = lambda: r(14) + "!"  # noqa: E731 - a fresh password per entry
    cases: list[tuple[str, str, str]] = []

    def add(name: str, template: str, secret: str) -> None:
        cases.append((name, template.replace("{S}", secret), secret))

    add("json password key", '{"db": {"host": "db", "password": "{S}"}}', pw())
    add("json nested SecretAccessKey (STS)", '{"Credentials": {"SecretAccessKey": "{S}", "AccessKeyId": "x"}}', r(40))
    add("json SessionToken (STS)", '{"Credentials": {"SessionToken": "{S}"}}', r(300, ALNUM + "/+"))
    add("vault client_token", '{"auth": {"client_token": "{S}", "policies": ["default"]}}', "s." + r(24))
    add(
        "docker config auth",
        '{"auths": {"https://index.docker.io/v1/": {"auth": "{S}"}}}',
        base64.b64encode(b"me:" + r(16).encode()).decode(),
    )
    add("python environ subscript", 'os.environ["DB_PASSWORD"] = "{S}"', pw())
    add("python kwarg", 'connect(host="db", password="{S}")', pw())
    add("dict literal single quotes", "config = {'api_key': '{S}'}", r(32))
    add(".env line", "DATABASE_PASSWORD={S}", pw())
    add(".env export", "export STRIPE_SECRET={S}", r(24))
    add("PGPASSWORD env", "PGPASSWORD={S} psql -h db -U app", pw())
    add("SECRET_KEY_BASE", "SECRET_KEY_BASE={S}", r(128, HEX))
    add("ENCRYPTION_KEY", "ENCRYPTION_KEY={S}", r(44, ALNUM + "+/"))
    add("APP_KEY (Laravel)", "APP_KEY=base64:{S}", r(43, ALNUM + "+/") + "=")
    add("DD_APP_KEY", "DD_APP_KEY={S}", r(40, HEX))
    add("MYSQL_PWD", "MYSQL_PWD={S} mysql -u root", pw())
    add("yaml password quoted", 'database:\n  password: "{S}"\n  user: app', pw())
    add("yaml token bare", "github:\n  token: {S}\n", r(40))
    add("yaml block scalar", "secret: |\n  {S}\n  second-line\nother: 1", r(48))
    add("toml token", 'token = "{S}"', r(40))
    add("hcl terraform token", 'provider "cloudflare" {\n  api_token = "{S}"\n}', r(40, B64URL))
    add("ini password spaced", "[db]\npassword = {S}\n", pw())
    add("ini password with spaces", "[db]\npassword = correct horse {S}\n", r(10))
    add("properties file", "spring.datasource.password={S}", pw())
    add("xml element", "<datasource><user>app</user><password>{S}</password></datasource>", pw())
    add("go := assignment", 'apiKey := "{S}"', r(32))
    add("ruby hash rocket", ':secret_key => "{S}"', r(32))
    add("js object", "const cfg = { clientSecret: '{S}' };", r(32))
    add("cli --password flag", "deploy --password {S} --env prod", pw())
    add("cli --password= flag", "deploy --password={S}", pw())
    add("cli --token flag", "gh api --token {S} /user", r(40))
    add("cli --api-key flag", "tool --api-key={S}", r(32))
    add("cli --client-secret flag", "az login --client-secret {S}", r(34))
    add("keytool -storepass", "keytool -list -keystore k.jks -storepass {S}", pw())
    add("curl -u user:password", "curl -u admin:{S} https://api.example.com", pw())
    add("curl --user", "curl --user deploy:{S} https://x.example.com", pw())
    add("curl bearer header", "curl -H 'Authorization: Bearer {S}' https://api.example.com", r(40))
    add(
        "curl basic header",
        "curl -H 'Authorization: Basic {S}' https://x",
        base64.b64encode(b"u:" + r(12).encode()).decode(),
    )
    add("x-api-key header", "curl -H 'X-Api-Key: {S}' https://x", r(32))
    add("github token header", "Authorization: token {S}", r(40, HEX))
    add("cookie header", "Cookie: sessionid={S}; csrftoken=abc", r(32).lower())
    add("set-cookie header", "Set-Cookie: session={S}; Path=/; HttpOnly", r(40))
    add("docker login -p", "docker login -u me -p {S} registry.example.com", pw())
    add("echo | docker login --password-stdin", "echo {S} | docker login -u me --password-stdin", pw())
    add("redis-cli -a", "redis-cli -h cache -a {S} ping", pw())
    add("twine -p", "twine upload -u __token__ -p {S} dist/*", pw())
    add("htpasswd -b", "htpasswd -b /etc/nginx/.htpasswd admin {S}", pw())
    add("mysql -p glued", "mysql -u root -p{S} orders", pw())
    add("sshpass -p", "sshpass -p {S} ssh deploy@host", pw())
    add("aws configure set", "aws configure set aws_secret_access_key {S}", r(40))
    add("npm config set authToken", "npm config set //registry.npmjs.org/:_authToken {S}", r(36))
    add(".npmrc _authToken", "//registry.npmjs.org/:_authToken={S}", r(36))
    add("openssl -passin pass:", "openssl rsa -in k.pem -passin pass:{S}", pw())
    add("zip -P", "zip -P {S} backup.zip data.sql", pw())
    add("smbclient -U user%pass", "smbclient //nas/share -U admin%{S}", pw())
    add("gh secret set --body", "gh secret set DEPLOY_KEY --body {S}", r(32))
    add("kubectl from-literal", "kubectl create secret generic db --from-literal=password={S}", pw())
    add("helm --set password", "helm install app ./chart --set db.password={S}", pw())
    add("url credentials", "git clone https://alice:{S}@github.com/org/repo.git", pw())
    add("postgres url", "DATABASE_URL=postgres://app:{S}@db:5432/orders", pw())
    add("redis url without user", "redis://:{S}@cache:6379/0", pw())
    add("url password with slash", "mongodb://root:{S}@mongo:27017", r(8) + "/" + r(8))
    add(
        "azure storage connection string",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={S};EndpointSuffix=core.windows.net",
        r(86, ALNUM + "+/") + "==",
    )
    add("azure SAS sig", "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2026&sig={S}", r(43, ALNUM + "%"))
    add(
        "aws presigned X-Amz-Signature",
        "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4&X-Amz-Signature={S}",
        r(64, HEX),
    )
    add("query auth=", "https://api.example.com/v1/items?auth={S}&page=2", r(32))
    add("query access_token=", "https://graph.example.com/me?access_token={S}", r(48))
    add("full-width colon", "password：{S}", pw())
    add("chinese 密码是", "数据库密码是 {S}，别告诉别人", pw())
    add("chinese 密码： glued", "密码：{S}谢谢", pw())
    add("chinese 令牌 glued to github token", "令牌是{S}", "ghp_" + r(36))
    add("chinese 密钥 =", "密钥={S}", r(32))
    add("english prose password is", "the staging password is {S}", pw())
    add("english prose api key is", "my api key is {S}", r(32))
    add("high-entropy near secret word", "use this key for staging: {S}", r(40, ALNUM + "+/"))
    add("high-entropy hex near token word", "token for the webhook -> {S}", r(48, HEX))
    return cases


def secrets() -> list[tuple[str, str, str]]:
    """(format, text, secret): every format once."""
    out: list[tuple[str, str, str]] = []
    for kind in (
        "RSA PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "EC PRIVATE KEY",
        "PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "DSA PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ):
        text, line = _pem(kind)
        out.append((f"pem {kind.lower()}", text, line))
    text, line = _putty()
    out.append(("putty private key", text, line))
    out.extend((name, f"here it is: {token} (do not share)", token) for name, token in _TOKENS)
    out.extend(_contextual())
    return out


LOOKALIKES: list[str] = [
    "PWD=/home/dev/proj",
    "password: string;",
    "password = self.password",
    "token: expired",
    "The Basic AuthenticationMiddleware checks the header",
    "session_key = request.session.session_key",
    "pk_test_TYooMQauvdEDq54NiTphI7jx",
    "pk_live_51HqLyjWDarjtT1zdp7dcTYooMQauvdEDq54NiTphI7jx",
    "pk.eyJ1IjoibWFwYm94IiwiYSI6ImNpejY4M29iazA2Z2gycXA4N2pmbDZmangifQ.-g_vE53SD2WrJ6tFX7QHmA",
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
    "git push -u origin main",
    "docker run -u 1000:1000 alpine id",
    "mysql -u root -p orders",
    "npm install https://registry.example.com:8080/pkg@1.2.3",
    "the password is required",
    'author = "Jane Doe"',
    'keyboard = "us"',
    "primary_key=True",
    'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")',
    "ansible-playbook --ask-pass site.yml",
    "echo $PWD",
    "sha256:4b825dc642cb6eb9a060e54bf8d69288fbee4904b825dc642cb6eb9a060e54b",
    "integrity sha512-Q4gPGfmgCCpD6yY6SJe1KxdVS3kSHoYqsbq3r7i3hqqEWo5nyIkSxrMoeqkHxvjNX0jSh1qNrrrYM+ZMAE8CA==",
    "password = os.environ['DB_PASSWORD']",
    'token = os.getenv("GITHUB_TOKEN")',
    "password: ${{ secrets.DB_PASSWORD }}",
    "client_id = 'my-app'",
    "session_id=3f2a9c1e-1b2c-4d5e-8f90-aabbccddeeff",
    "foreign_key = models.ForeignKey(User, on_delete=models.CASCADE)",
    "cache_key = f'user:{user_id}'",
    "secret_santa = True",
    "The token bucket refills every second",
    "Use a password manager; never commit .env files",
    "密码强度至少十二位",
    "请输入密码",
    "令牌桶算法限制了请求速率",
    "检查 token 是否过期",
    "access_token_expires_in = 3600",
    "refresh_token_ttl: 30d",
    "password_reset_url = '/accounts/reset/'",
    "AuthTokenMiddleware handles it",
    "The key is in the drawer",
    "key: value",
    "sort key: created_at",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "https://host.example.com:8443/api/v1/items",
    "docker pull ghcr.io/org/app@sha256:4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "kubectl get secret db -o yaml",
    "--password-stdin is safer than -p",
    "token_count: 12345",
    "Bearer authentication is configured in settings",
    # code from the CPython standard library that an earlier version of the rules redacted
    "cache_token = current_token",
    'sig = "at least %d" % (atleast,)',
    "'Cookie': 'http.cookies',",
    "userid = passwd = acct = ''",
    "def unix_getpass(prompt='Password: ', stream=None):",
    'print("shlex: token=" + repr(raw))',
    "- password: password to use with username",
]
