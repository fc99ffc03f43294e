"""Secrets: names that look secret, known secret values, redaction and masking."""


from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any


# ------------------------------------------------------------------------ secrets
def is_secret_name(name: str) -> bool:
    """Return whether an argument or variable name looks like it carries a credential."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(name)).lower()
    words = re.sub(r"[^a-z0-9]+", "_", words).strip("_")
    return bool(_SECRET_NAME.search(words)) and not _NOT_SECRET.search(words)


def redact_args(value: Any) -> Any:
    """Return a copy of arguments with the values of secret-looking keys replaced, recursively."""
    if isinstance(value, Mapping):
        return {
            key: (REDACTED if is_secret_name(str(key)) and item not in (None, "") else
                  redact_args(item))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [redact_args(item) for item in value]
    return value


class SecretRegistry:
    """Secret values known to this process, scrubbed from everything a tool returns.

    Values shorter than ``MIN_SECRET_CHARS`` are ignored (scrubbing "1" would wreck data).
    """

    def __init__(self) -> None:
        self._values: set[str] = set()
        self._lock = threading.Lock()
        self._pattern: re.Pattern[str] | None = None

    def add(self, value: Any) -> None:
        """Register one secret value."""
        if isinstance(value, str) and len(value) >= MIN_SECRET_CHARS:
            with self._lock:
                if value not in self._values:
                    self._values.add(value)
                    self._pattern = None

    def add_mapping(self, mapping: Mapping[str, Any], *, only_secret_names: bool = True) -> None:
        """Register the values of a mapping (by default only those under secret-looking names)."""
        for key, value in mapping.items():
            if not only_secret_names or is_secret_name(str(key)):
                self.add(value)
                if isinstance(value, str) and value.lower().startswith("bearer "):
                    self.add(value[7:])

    def scrub(self, value: Any) -> Any:
        """Return ``value`` with every registered secret replaced by ``[redacted]``, recursively."""
        pattern = self._compiled()
        if pattern is None:
            return value
        return _scrub(value, pattern)

    def __contains__(self, value: object) -> bool:
        return value in self._values

    def values(self) -> set[str]:
        """A copy of the registered values."""
        with self._lock:
            return set(self._values)

    def _compiled(self) -> re.Pattern[str] | None:
        with self._lock:
            if not self._values:
                return None
            if self._pattern is None:
                ordered = sorted(self._values, key=len, reverse=True)
                self._pattern = re.compile("|".join(re.escape(v) for v in ordered))
            return self._pattern


def _scrub(value: Any, pattern: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        return pattern.sub(REDACTED, value)
    if isinstance(value, Mapping):
        return {_scrub(key, pattern): _scrub(item, pattern) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(item, pattern) for item in value]
    return value


SECRETS = SecretRegistry()
"""The process-wide registry: MCP configs and the executor add to it."""


def register_environment_secrets(environ: Mapping[str, str] | None = None) -> None:
    """Register the values of secret-looking process environment variables (OPENAI_API_KEY...)."""
    SECRETS.add_mapping(os.environ if environ is None else environ)


def secret_values_in(args: Mapping[str, Any]) -> Iterable[str]:
    """Yield the string values of secret-named arguments (to register before a call)."""
    for key, value in args.items():
        if is_secret_name(str(key)) and isinstance(value, str):
            yield value
        elif isinstance(value, Mapping):
            yield from secret_values_in(value)


# Credentials typed into text: well-known token formats, and a value said right after a
# credential word ("password: Hunter2!x", "api key is sk-..."). The value of the second kind
# must hold a digit or a symbol, so "the password reset flow" is not a secret.
_TOKEN_FORMATS = (
    r"sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}",
    r"gh[pousr]_[A-Za-z0-9]{30,}",
    r"github_pat_[A-Za-z0-9_]{30,}",
    r"xox[abposr]-[A-Za-z0-9\-]{10,}",
    r"AKIA[0-9A-Z]{16}",
    r"AIza[0-9A-Za-z_\-]{35}",
    r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
)
_CREDENTIAL_WORD = (
    r"(?i:\b(?:password|passwd|passphrase|pwd|api[ _\-]?key|secret(?:[ _\-]?key)?|"
    r"client[ _\-]?secret|access[ _\-]?(?:key|token)|auth(?:orization)?[ _\-]?token|token|"
    r"bearer)\b)"
)
_SAID_VALUE = r"(?:[ \t]*(?:is|=|:)[ \t]*|[ \t]+)[\"']?(?P<value>[^\s\"',;]{8,})"
_TEXT_SECRET = re.compile(
    "|".join(f"(?P<t{i}>{p})" for i, p in enumerate(_TOKEN_FORMATS))
    + f"|{_CREDENTIAL_WORD}{_SAID_VALUE}"
)


# The same patterns over raw bytes: a string inside a serialized object is stored as its
# UTF-8 bytes, so a match in any string is also a match here (ASCII semantics only widen it).
# No match here means no string needs scanning: the cheap test on every checkpoint.
_BYTES_SECRET = re.compile(_TEXT_SECRET.pattern.encode("utf-8"))


# Every match of _TEXT_SECRET contains one of these (lowercased); searching for them is
# memchr-fast, and the regex then only runs in a small window around each hit.
# A credential word counts only when a separator follows it ("token_ledger" is not one).
_TRIGGERS = (
    b"sk-", b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_", b"github_pat_", b"xox", b"akia",
    b"aiza", b"eyj",
    *(word + sep for word in (b"password", b"passwd", b"passphrase", b"pwd", b"key",
                              b"secret", b"token", b"bearer")
      for sep in (b" ", b":", b"=", b"\t")),
)
_WINDOW = 400


def may_hold_typed_secret(data: bytes) -> bool:
    """Whether serialized ``data`` may contain a credential written in text (a prefilter)."""
    lowered = data.lower()
    for trigger in _TRIGGERS:
        at = lowered.find(trigger)
        while at != -1:
            if _BYTES_SECRET.search(data, max(0, at - 32), at + _WINDOW) is not None:
                return True
            at = lowered.find(trigger, at + 1)
    return False


def secrets_in_text(text: str) -> list[str]:
    """Return credential-looking values written in free text (a request, a message).

    Args:
        text: Any text.

    Returns:
        The values, in order, without duplicates.
    """
    found: list[str] = []
    for match in _TEXT_SECRET.finditer(text):
        value = match.group("value")
        if value is None:
            value = match.group(0)
        elif not re.search(r"[0-9\W_]", value) or value == REDACTED or not value.strip("*"):
            continue  # plain words, or already redacted / masked
        if len(value) >= MIN_SECRET_CHARS and value not in found:
            found.append(value)
    return found


def mask_secret_text(text: str) -> str:
    """Overwrite known and credential-looking secrets in ``text`` with ``*`` (same length)."""
    for value in sorted(set(secrets_in_text(text)) | SECRETS.values(), key=len, reverse=True):
        if value in text:
            text = text.replace(value, "*" * len(value))
    return text


def _strings(value: Any, out: list[str], depth: int = 0) -> None:
    if depth > 30:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _strings(key, out, depth + 1)
            _strings(item, out, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _strings(item, out, depth + 1)
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        _strings(vars(value), out, depth + 1)  # chat messages, dataclasses, Send packets


def secrets_in_values(value: Any) -> list[str]:
    """Credential-looking values written in any string inside ``value`` (walked recursively)."""
    found: list[str] = []
    _strings(value, found)
    # One scan over all strings; a newline keeps a match inside one string.
    return secrets_in_text("\n".join(found))


def mask_secret_bytes(data: bytes, values: Iterable[str]) -> bytes:
    """Overwrite exact secret ``values`` in serialized bytes with ``*`` of the same length.

    The same length in bytes keeps length-prefixed encodings (msgpack, pickle) valid, so this
    can run on a checkpoint after serialization, whatever the objects were. Only exact values
    found in the object's strings (or registered) are replaced, never a pattern over raw bytes.
    """
    for value in sorted(set(values), key=len, reverse=True):
        raw = value.encode("utf-8", errors="surrogatepass")
        if len(raw) >= MIN_SECRET_CHARS and raw in data:
            data = data.replace(raw, b"*" * len(raw))
    return data


MASKED_RUN = "********"
"""What a secret masked in a checkpoint looks like after a resume (a run of ``*``)."""


REDACTED = "[redacted]"
SECRET_ENV_PREFIX = "ZSPACE_SECRET_"
MIN_SECRET_CHARS = 8
# Parameter and variable names that carry credentials. Matched against the whole name split on
# '_', '-' and camel case, so "api_key", "X-Api-Key", "accessToken", "client_secret" and
# "password" match while "token_count" or "author" do not.
_SECRET_NAME = re.compile(
    r"(?:^|_)(?:api_?key|apikey|access_?key|secret(?:_?key)?|client_?secret|password|passwd|"
    r"passphrase|pwd|token|access_?token|refresh_?token|auth_?token|bearer|authorization|"
    r"private_?key|credentials?|cookie|session_?id|signature)(?:$|_)",
)
_NOT_SECRET = re.compile(r"(?:^|_)(?:count|limit|type|name|id_?hint|usage|len|length)$")


