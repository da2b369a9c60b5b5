"""Provider token formats, written from each provider's own description of its keys and tokens.

Every pattern starts with a literal prefix (a cheap ``in`` test skips the rule when the prefix is absent),
uses bounded or possessive repetition only (linear time on any input), and is anchored with a look-behind
on ASCII word characters rather than ``\\b``, so a token glued to Chinese text (``令牌是ghp_...``) is found.
Publishable keys (Stripe ``pk_``, Mapbox ``pk.``) are public by design and are not listed.
"""

from __future__ import annotations

from ctxops_contracts.shared.regex import lazy

TYPE_CHECKING = False  # re is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    import re

_B = r"(?<![A-Za-z0-9_])"  # start boundary that CJK text next to the token does not defeat
_E = r"(?![A-Za-z0-9])"  # end boundary for fixed-length formats
_BP = r"(?<![A-Za-z0-9_./-])"  # for short prefixes that also occur in file names and URL paths (ico-, API-, xoxo-)

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

# (label, needles: any of these substrings must be present, pattern)
_TABLE: list[tuple[str, tuple[str, ...], str]] = [
    ("anthropic-key", ("sk-ant-",), _B + r"sk-ant-(?:api\d\d|admin\d\d|oat\d\d|sid\d\d)?-?[A-Za-z0-9_-]{20,}+"),
    ("openrouter-key", ("sk-or-",), _B + r"sk-or-v\d-[A-Za-z0-9]{32,}+"),
    (
        "openai-key",
        ("sk-",),
        _B + r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{10,}+"
        r"|" + _B + r"sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}"
        r"|" + _B + r"sk-[A-Za-z0-9]{32,}+" + _E,
    ),
    ("github-token", ("gh", "github_pat_"), _B + r"(?:gh[pousr]_[A-Za-z0-9]{30,}+|github_pat_[A-Za-z0-9_]{30,}+)"),
    (
        "gitlab-token",
        ("gl", "GR1348941"),
        _B + r"(?:glpat|glrt|gldt|glptt|glft|glimt|glagent|glsoat|glcbt|glffct|glwt|gloas)-[A-Za-z0-9_.-]{20,}+"
        r"|" + _B + r"GR1348941[A-Za-z0-9_-]{20,}+",
    ),
    (
        "aws-access-key",
        ("AKIA", "ASIA", "ABIA", "ACCA", "AROA", "AIDA", "AGPA", "ANPA", "ANVA", "APKA"),
        _B + r"(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA|AGPA|ANPA|ANVA|APKA)[0-9A-Z]{16}" + _E,
    ),
    ("google-api-key", ("AIza",), _B + r"AIza[0-9A-Za-z_-]{35}" + _E),
    ("google-oauth-secret", ("GOCSPX-",), _B + r"GOCSPX-[A-Za-z0-9_-]{24,}+"),
    ("google-oauth-token", ("ya29.", "1//0"), _B + r"(?:ya29\.[A-Za-z0-9_-]{30,}+|1//0[A-Za-z0-9_-]{40,}+)"),
    # Slack documents its tokens as opaque strings after the prefix: the rest of the unbroken token run is taken
    # (``xapp-…-ShAY/87H4…`` hidden only to its ``/`` left the key's tail readable).
    (
        "slack-token",
        ("xox", "xapp-"),
        _BP + r"(?:xox[abposre]|xoxe\.xox[bp]|xapp)-[A-Za-z0-9-]{10,}+(?:[/+_=.][A-Za-z0-9/+_=.-]{0,400}+)?+",
    ),
    # Weights & Biases API keys: 40 hex characters (W&B's docs: ``wandb login <key>``, ``WANDB_API_KEY``); hex
    # alone is a digest, so only right after the tool's name or its ``login`` command.
    (
        "wandb-key",
        ("wandb", "WANDB"),
        r"(?:(?<=(?i:wandb)[ \t])|(?<=(?i:wandb)[ \t]login[ \t]))[0-9a-f]{40}" + _E,
    ),
    (
        "slack-webhook",
        ("hooks.slack.com",),
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}+",
    ),
    (
        "discord-webhook",
        ("/api/webhooks/",),
        r"(?:discord(?:app)?\.com|discord\.gg)/api/webhooks/\d{5,}/[A-Za-z0-9_-]{20,}+",
    ),
    ("discord-bot-token", (".",), _B + r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}" + _E),
    # Telegram's Bot API docs: ``<bot id>:<35 characters>``; the ``AA`` often seen first is not part of the shape.
    # The 35 are random base64url, so they mix cases: ``<date>:release_notes_for_...`` (one case, words) is not one
    (
        "telegram-bot-token",
        (":",),
        _B + r"\d{8,10}:(?=[a-z0-9_-]{0,34}+[A-Z])(?=[A-Z0-9_-]{0,34}+[a-z])[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])",
    ),
    ("stripe-key", ("_live_", "_test_"), _B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}+"),
    ("stripe-webhook-secret", ("whsec_",), _B + r"whsec_[A-Za-z0-9+/=]{24,}+"),
    (
        "huggingface-token",
        ("hf_", "api_org_"),
        # a token of letters only (no digit is required) is taken at the documented 34 random letters, both cases,
        # so that a name such as ``hf_downloadmodelfromthehub`` is not
        _B + r"(?:hf_(?=[A-Za-z]{0,40}+[0-9])[A-Za-z0-9]{30,}+|api_org_[A-Za-z0-9]{30,}+"
        r"|hf_(?=[a-z]{0,33}+[A-Z])(?=[A-Z]{0,33}+[a-z])[A-Za-z]{34}(?![A-Za-z0-9]))",
    ),
    ("npm-token", ("npm_",), _B + r"npm_[A-Za-z0-9]{36}" + _E),
    ("pypi-token", ("pypi-",), _B + r"pypi-AgE[A-Za-z0-9_-]{40,}+"),
    # SendGrid's documented shape (SG. + 22 + . + 43) is found glued to a word too (``somSG.<key>where``)
    (
        "sendgrid-key",
        ("SG.",),
        _B + r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,}+|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
    ),
    # 42's intra API: an application's secret is ``s-s4t2ud-`` (or ``s-s4t2af-``) and 64 hex
    ("intra42-secret", ("s-s4t2",), _B + r"s-s4t2(?:ud|af)-[0-9a-f]{64}" + _E),
    ("mailgun-key", ("key-",), _B + r"key-[0-9a-f]{32}" + _E),
    ("mailchimp-key", ("-us",), _B + r"[0-9a-f]{32}-us\d{1,2}" + _E),
    ("twilio-key", ("SK",), _B + r"SK[0-9a-f]{32}" + _E),
    ("vault-token", ("hvs.", "hvb.", "hvr."), _B + r"hv[sbr]\.[A-Za-z0-9_-]{24,}+"),
    ("terraform-cloud-token", (".atlasv1.",), _B + r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}+"),
    ("digitalocean-token", ("_v1_",), _B + r"do[por]_v1_[a-f0-9]{64}" + _E),
    ("linear-key", ("lin_",), _B + r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}+"),
    ("groq-key", ("gsk_",), _B + r"gsk_[A-Za-z0-9]{40,}+"),
    ("sentry-token", ("sntry",), _B + r"(?:sntrys_[A-Za-z0-9+/=_-]{40,}+|sntryu_[a-f0-9]{64}" + _E + ")"),
    ("postman-key", ("PMAK-",), _B + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _E),
    ("databricks-token", ("dapi", "dkea"), _B + r"(?:dapi|dkea)[a-f0-9]{32}(?:-\d)?" + _E),
    ("age-secret-key", ("AGE-SECRET-KEY-1",), r"AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}"),
    ("shopify-token", ("shp",), _B + r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}" + _E),
    ("atlassian-token", ("ATATT", "ATCTT"), _B + r"AT[AC]TT3[A-Za-z0-9_=-]{40,}+"),
    ("bitbucket-app-password", ("ATBB",), _B + r"ATBB[A-Za-z0-9_=.-]{28,}+"),
    # Entra (Azure AD) client secrets: Microsoft's own pattern (security-utilities SEC101/156) bounds them by a
    # character outside [~.A-Za-z0-9_+/-]: inside a longer run of that alphabet (a Freenet key) it is not one. A
    # trailing `.` not followed by a token character is a sentence's full stop.
    (
        "azure-ad-client-secret",
        ("Q~",),
        r"(?<![A-Za-z0-9_~.+/-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~+/-]|\.[A-Za-z0-9_~+/-])",
    ),
    # Freenet's insert URI (its wiki, "Signed Subspace Key"): the private key that signs a site's editions, then
    # the crypto key, then `AQECAAE` (a request URI, `AQACAAE`, is the published address: kept elsewhere)
    (
        "freenet-insert-key",
        ("AQECAAE",),
        r"(?<![A-Za-z0-9_])[SU]SK@[A-Za-z0-9~-]{43},[A-Za-z0-9~-]{43},AQECAAE(?![A-Za-z0-9~-])",
    ),
    ("heroku-key", ("HRKU-",), _B + r"HRKU-[A-Za-z0-9_-]{30,}+"),
    ("notion-token", ("secret_", "ntn_"), _B + r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,}+)" + _E),
    ("airtable-token", ("pat",), _B + r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _E),
    ("figma-token", ("figd_",), _B + r"figd_[A-Za-z0-9_-]{30,}+"),
    ("grafana-token", ("glc_", "glsa_"), _B + r"(?:glc_[A-Za-z0-9+/]{32,}+={0,2}|glsa_[A-Za-z0-9]{32}_[a-f0-9]{8})"),
    ("newrelic-key", ("NRAK-", "NRII-", "NRJS-", "NRAA-"), _B + r"NR(?:AK|II|JS|AA)-[A-Za-z0-9]{19,}+"),
    ("doppler-token", ("dp.",), _B + r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,30}\.)?[A-Za-z0-9]{40,}+"),
    ("pulumi-token", ("pul-",), _B + r"pul-[a-f0-9]{40}" + _E),
    ("flyio-token", ("fm1", "fm2_", "fo1_"), _B + r"(?:fm[12][ar]?_|fo1_)[A-Za-z0-9+/=_-]{30,}+"),
    ("supabase-token", ("sbp_", "sb_secret_"), _B + r"(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,}+)"),
    ("replicate-token", ("r8_",), _B + r"r8_[A-Za-z0-9]{37}" + _E),
    ("perplexity-key", ("pplx-",), _B + r"pplx-[A-Za-z0-9]{40,}+"),
    ("xai-key", ("xai-",), _B + r"xai-[A-Za-z0-9]{60,}+"),
    ("fireworks-key", ("fw_",), _B + r"fw_[A-Za-z0-9]{20,}+"),
    ("langsmith-key", ("lsv2_",), _B + r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}" + _E),
    ("cloudflare-origin-ca-key", ("v1.0-",), _B + r"v1\.0-[a-f0-9]{24}-[a-f0-9]{100,}+"),
    ("square-token", ("sq0", "EAAA"), _B + r"(?:sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}+|EAAA[A-Za-z0-9_-]{60,}+)"),
    ("facebook-token", ("EAA",), _B + r"EAA[A-Za-z0-9]{90,}+"),
    ("planetscale-token", ("pscale_",), _B + r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}+"),
    ("dynatrace-token", ("dt0c01.",), _B + r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}" + _E),
    ("sourcegraph-token", ("sgp_",), _B + r"sgp_(?:[a-f0-9]{16}_)?[a-f0-9]{40}" + _E),
    ("prefect-key", ("pnu_",), _B + r"pnu_[A-Za-z0-9]{36}" + _E),
    ("contentful-token", ("CFPAT-",), _B + r"CFPAT-[A-Za-z0-9_-]{43}" + _E),
    ("easypost-key", ("EZAK", "EZTK"), _B + r"EZ[AT]K[a-z0-9]{54}" + _E),
    ("shippo-token", ("shippo_",), _B + r"shippo_(?:live|test)_[a-f0-9]{40}" + _E),
    ("flutterwave-key", ("FLWSECK",), _B + r"FLWSECK(?:_TEST)?-[a-h0-9]{32}-X"),
    ("alibaba-access-key", ("LTAI",), _B + r"LTAI[A-Za-z0-9]{12,22}" + _E),
    ("tailscale-key", ("tskey-",), _B + r"tskey-(?:api|auth|client|webhook|scim)-[A-Za-z0-9]{6,}+-[A-Za-z0-9]{10,}+"),
    ("onepassword-token", ("ops_ey",), _B + r"ops_eyJ[A-Za-z0-9+/=_-]{50,}+"),
    ("infracost-key", ("ico-",), _BP + r"ico-[A-Za-z0-9]{32}" + _E),
    ("scalingo-token", ("tk-us-",), _B + r"tk-us-[A-Za-z0-9_-]{48}" + _E),
    ("buildkite-token", ("bkua_",), _B + r"bkua_[a-f0-9]{40}" + _E),
    ("clojars-token", ("CLOJARS_",), _B + r"CLOJARS_[a-z0-9]{60}" + _E),
    ("rubygems-key", ("rubygems_",), _B + r"rubygems_[a-f0-9]{48}" + _E),
    ("dropbox-token", ("sl.",), _B + r"sl\.[A-Za-z0-9_-]{130,}+"),
    ("mapbox-secret-token", ("sk.eyJ",), _B + r"sk\.eyJ[A-Za-z0-9_-]{50,}+\.[A-Za-z0-9_-]{20,}+"),
    ("typeform-token", ("tfp_",), _B + r"tfp_[A-Za-z0-9_.=-]{50,}+"),
    ("duffel-token", ("duffel_",), _B + r"duffel_(?:test|live)_[A-Za-z0-9_=-]{40,}+"),
    ("readme-key", ("rdme_",), _B + r"rdme_[a-z0-9]{70}" + _E),
    ("netlify-token", ("nfp_",), _B + r"nfp_[A-Za-z0-9]{36,}+"),
    ("render-key", ("rnd_",), _B + r"rnd_[A-Za-z0-9]{32,}+"),
    ("docker-hub-token", ("dckr_",), _B + r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{24,}+"),
    ("frameio-token", ("fio-u-",), _B + r"fio-u-[A-Za-z0-9_=-]{64}" + _E),
    ("asana-token", ("/",), _B + r"[12]/\d{10,20}/\d{10,20}:[a-f0-9]{32}" + _E),
    # --- session 7 (issue 21): formats from each provider's documentation of its keys -------------------
    # Adobe I/O OAuth client secrets: "p8e-" and 32 alphanumerics.
    ("adobe-client-secret", ("p8e-",), _B + r"p8e-[A-Za-z0-9]{32}" + _E),
    # Brevo (Sendinblue) API and SMTP keys: xkeysib-/xsmtpsib-, 64 hex, "-", 16 alphanumerics.
    ("brevo-key", ("xkeysib-", "xsmtpsib-"), _B + r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}" + _E),
    # OpenShift OAuth access tokens: "sha256~" and 43 base64url characters.
    ("openshift-token", ("sha256~",), r"sha256~[A-Za-z0-9_-]{43}" + _E),
    # Amazon Bedrock API keys: long-lived "ABSK" + base64; short-term "bedrock-api-key-" + base64.
    (
        "bedrock-api-key",
        ("ABSK", "bedrock-api-key-"),
        _B + r"(?:ABSK[A-Za-z0-9+/]{100,}+={0,2}|bedrock-api-key-[A-Za-z0-9+/]{60,}+={0,2})",
    ),
    # LaunchDarkly SDK, mobile and API access keys: sdk-/mob-/api- and a lower-case UUID-shaped body.
    (
        "launchdarkly-key",
        ("sdk-", "mob-", "api-"),
        _B + r"(?:sdk|mob|api)-[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}" + _E,
    ),
    # Facebook app access tokens: "<app id>|<app secret>" (digits, a bar, 32 hex or a 27-character token).
    ("facebook-app-token", ("|",), r"(?<![0-9])[0-9]{13,17}\|(?:[a-f0-9]{32}|[A-Za-z0-9_-]{27})" + _E),
    # A JWT as base64 (Docker auths, Kubernetes secrets): base64("eyJ") is "ZXlK".
    ("jwt-base64", ("ZXlK",), _B + r"ZXlK[A-Za-z0-9+/_-]{60,}+={0,2}"),
    # Grafana API keys (legacy): base64 of {"k":"...
    ("grafana-api-key", ("eyJrIjoi",), _B + r"eyJrIjoi[A-Za-z0-9+/_-]{30,}+={0,2}"),
    # 1Password account secret keys: A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX (or the 6-5 split).
    (
        "onepassword-secret-key",
        ("A3-",),
        _B + r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}" + _E,
    ),
    # SettleMint application, personal and service access tokens: sm_aat_/sm_pat_/sm_sat_ and 16.
    ("settlemint-token", ("sm_",), _B + r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}" + _E),
    # Pinecone API keys "pcsk_"; Portainer "ptr_"; pganalyze "pgar_"/"pgaw_"; Apify "apify_api_";
    # Alchemy "alcht_"; PhotoRoom "sk_pr_"; TruffleHog Enterprise "thog-key-"/"thog-secret-".
    ("pinecone-key", ("pcsk_",), _B + r"pcsk_[A-Za-z0-9_]{40,}+"),
    ("portainer-token", ("ptr_",), _B + r"ptr_[A-Za-z0-9+/=_-]{30,}+"),
    ("pganalyze-key", ("pga",), _B + r"pga[rw]_[A-Za-z0-9]{20,}+"),
    ("apify-token", ("apify_api_",), _B + r"apify_api_[A-Za-z0-9]{30,}+"),
    ("alchemy-token", ("alcht_",), _B + r"alcht_[A-Za-z0-9]{20,}+"),
    ("photoroom-key", ("sk_pr_",), _B + r"sk_pr_[A-Za-z0-9_]{20,}+"),
    ("trufflehog-enterprise-key", ("thog-",), _B + r"thog-(?:key|secret)-[a-f0-9]{16,}+"),
    # AWS AppSync API keys: "da2-" and 26 lower-case alphanumerics.
    ("appsync-key", ("da2-",), _B + r"da2-[a-z0-9]{26}" + _E),
    # Harness PATs and SATs: pat./sat.<account>.<24 hex>.<20 alphanumerics>.
    ("harness-token", ("pat.", "sat."), _B + r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20}" + _E),
    # Zoho OAuth tokens: 1000.<32 hex>.<32 hex>.
    ("zoho-token", ("1000.",), _B + r"1000\.[a-f0-9]{32}\.[a-f0-9]{32}" + _E),
    # Yandex Cloud IAM tokens (t1.), API keys (AQVN...) and static access keys (YC...).
    (
        "yandex-token",
        ("t1.", "AQVN", "YC"),
        _B
        + r"(?:t1\.[A-Za-z0-9_-]{10,}+={0,2}\.[A-Za-z0-9_-]{60,}+={0,2}|AQVN[A-Za-z0-9_-]{35,38}|YC[A-Za-z0-9_-]{38})"
        + _E,
    ),
    # (Mailgun webhook signing keys, 32 hex and two groups of 8, have no literal to gate on: a pattern that
    # starts at every hex letter of every text cost the hook path more than it was worth; context finds them.)
    # Twitter/X access tokens: the user id, "-", 20 to 40 alphanumerics.
    ("twitter-access-token", ("-",), _B + r"[0-9]{15,25}-[A-Za-z0-9]{20,40}" + _E),
    # GoCardless live access tokens; Lob live/test API keys.
    ("gocardless-token", ("live_",), _B + r"live_[A-Za-z0-9_=-]{40}" + _E),
    ("lob-key", ("live_", "test_"), _B + r"(?:live|test)_(?:pub_)?[a-f0-9]{31,35}" + _E),
    # JFrog: API keys "AKCp" + 69; reference tokens base64("reftkn") = "cmVmdGtu".
    ("jfrog-token", ("AKCp", "cmVmdGtu"), _B + r"(?:AKCp[A-Za-z0-9]{60,}+|cmVmdGtu[A-Za-z0-9]{56,}+)"),
    # PlanetScale passwords (pscale_pw_) may hold = and -; Dropbox short-lived "sl." tokens (above).
    ("planetscale-password", ("pscale_pw_",), _B + r"pscale_pw_[A-Za-z0-9_.=-]{32,}+"),
    # Settle: "tfp_"/"tfr_" etc. covered above; Octopus Deploy API keys: "API-" and 25+ upper-case.
    ("octopus-key", ("API-",), _BP + r"API-[A-Z0-9]{25,}+" + _E),
    # Kraken, Coinbase-style base64 secrets are caught by context; Linear/Slack config tokens:
    ("slack-config-token", ("xoxe",), _B + r"xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{100,}+"),
    # Doppler service account and CLI tokens "dp.sa."/"dp.ct." (above); Scaleway secret keys are UUIDs.
    # Hugging Face, GitHub (above). GitLab session cookies:
    ("gitlab-session", ("_gitlab_session=",), r"(?<=_gitlab_session=)[a-z0-9]{32}" + _E),
    # Azure Entra refresh tokens, Microsoft Teams: covered by context. Sentry DSNs carry a key in userinfo.
    # --- session 11 (issue 21, continued): formats from the providers' documentation --------------------
    # SonarQube tokens: sqp_ (project analysis), squ_ (user), sqa_ (global analysis) and 40 hex.
    ("sonarqube-token", ("sqp_", "squ_", "sqa_"), _B + r"sq[pua]_[a-f0-9]{40}" + _E),
    # Segment public API tokens: "sgp_" and 64 alphanumerics (Sourcegraph's sgp_ is hex, above).
    ("segment-token", ("sgp_",), _B + r"sgp_[A-Za-z0-9]{64}" + _E),
    # MongoDB Atlas service account client secrets: "mdb_sa_sk_" and 40 characters.
    ("mongodb-atlas-secret", ("mdb_sa_sk_",), _B + r"mdb_sa_sk_[A-Za-z0-9_-]{30,}+"),
    # New Relic license (ingest) keys: 40 characters ending "NRAL"; EU-region keys start "eu01xx".
    ("newrelic-license-key", ("NRAL",), _B + r"(?:eu01xx[a-f0-9]{30}|[a-f0-9]{36})NRAL" + _E),
    # Pagar.me API keys: ak_live_/ak_test_ and 30 alphanumerics.
    ("pagarme-key", ("ak_live_", "ak_test_"), _B + r"ak_(?:live|test)_[A-Za-z0-9]{30}" + _E),
    # crypt(3) password hashes (/etc/shadow, htpasswd): MD5 $1$<salt ≤8>$<22>, bcrypt $2a/b/y$<cost>$<53>,
    # SHA-256/512 $5$/$6$[rounds=N$]<salt ≤16>$<43 or 86>: a hash is cracked offline, so it is a secret.
    (
        "password-hash",
        ("$1$", "$2a$", "$2b$", "$2y$", "$5$", "$6$"),
        r"(?<![A-Za-z0-9$])\$(?:1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}|2[aby]\$[0-9]{2}\$[./A-Za-z0-9]{53}"
        r"|[56]\$(?:rounds=[0-9]{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43}(?:[./A-Za-z0-9]{43})?)"
        r"(?![./A-Za-z0-9])",
    ),
    # Starts only where a run of token characters starts ('-' included): 'eyJ-eyJ-…' is scanned once.
    ("jwt", ("eyJ",), r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8,}+"),
    # A JWE (RFC 7516, compact form): header, encrypted key (empty for ``dir``), IV, ciphertext, tag
    (
        "jwe",
        ("eyJ",),
        r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{0,4000}+\.[A-Za-z0-9_-]{16,}+"
        r"\.[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{16,}+",
    ),
    # --- session 18 (issue 21): formats from the providers' documentation ------------------------------
    # Django's startproject writes 'django-insecure-' + get_random_secret_key(): 50 of a-z, 0-9 and !@#$%^&*(-_=+)
    (
        "django-secret-key",
        ("django-insecure-",),
        _B + r"django-insecure-(?=[a-z0-9_-]{0,49}+[!@#$%^&*(=+)0-9])[a-z0-9!@#$%^&*(\-_=+)]{50}(?![A-Za-z0-9])",
    ),
    # Amazon MWS auth tokens: amzn.mws.<uuid>; Riot Games development API keys: RGAPI-<uuid>
    ("mws-auth-token", ("amzn.mws.",), _B + r"amzn\.mws\." + _UUID + _E),
    ("riot-api-key", ("RGAPI-",), _B + r"RGAPI-" + _UUID + _E),
    # Vault before 1.10: batch tokens are ``b.`` and a long base64url body (``hvb.`` since, above); the body
    # holds a digit and both cases, so ``b.<dotted.name>`` and prose are not one
    (
        "vault-batch-token",
        ("b.",),
        r"(?<![A-Za-z0-9_.-])b\.(?=[A-Za-z_-]{0,99}+[0-9])(?=[a-z0-9_-]{0,99}+[A-Z])[A-Za-z0-9_-]{100,}+",
    ),
    # Infura: the API key is the endpoint's last segment, https://<network>.infura.io/v3/<32 hex> (ws/v3 too)
    ("infura-key", ("infura.io/",), r"(?:(?<=\.infura\.io/v3/)|(?<=\.infura\.io/ws/v3/))[0-9a-f]{32}" + _E),
    # OpenWeather: the API key is the ``appid`` query parameter, 32 hex (WeChat's public appid is wx + 16)
    ("openweather-key", ("appid=",), r"(?<=[?&]appid=)[0-9a-f]{32}" + _E),
    ("zapier-webhook", ("hooks.zapier.com",), r"hooks\.zapier\.com/hooks/catch/\d+/[A-Za-z0-9]{5,}+"),
    (
        "teams-webhook",
        (".webhook.office.com",),
        r"(?<![a-z0-9-])[a-z0-9-]++\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/_-]{40,}+",
    ),
    (
        "azure-storage-key",
        ("AccountKey=", "SharedAccessKey="),
        r"(?<=AccountKey=)[A-Za-z0-9+/]{40,}+={0,2}|(?<=SharedAccessKey=)[A-Za-z0-9+/]{30,}+={0,2}",
    ),
]

FORMATS: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = [
    (label, needles, lazy(pattern)) for label, needles, pattern in _TABLE
]
