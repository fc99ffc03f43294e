"""The sandbox's own clock: the system clock, a fixed moment, or the system clock shifted.

Every date the sandbox writes or checks (seed rows, `created_at`, coupon and membership
expiry) comes from one `SandboxClock`, so a sandbox can live at any date while the machine
keeps its own. Where the clock comes from, strongest first:

1. the instance: `Sandbox(db, clock=SandboxClock.fixed(...))`, or `python -m sandbox serve |
   reset --now ... | --offset-days ...`;
2. the environment of the process: `ZSPACE_SANDBOX_NOW=2029-11-24T09:00:00Z` (fixed) or
   `ZSPACE_SANDBOX_CLOCK_OFFSET_DAYS=1095` (shifted; negative goes back);
3. the database: a reset records the clock it seeded with, and a server started without a
   clock of its own (an MCP client passes only a few variables to its subprocess) follows it;
4. the system clock.
"""

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sandbox.errors import SandboxError

NOW_VARIABLE = "ZSPACE_SANDBOX_NOW"
OFFSET_VARIABLE = "ZSPACE_SANDBOX_CLOCK_OFFSET_DAYS"


class ClockSettingError(SandboxError):
    """A clock setting (flag, environment variable or stored value) cannot be read."""


def iso(moment: datetime) -> str:
    """Return a moment as the sandbox writes timestamps: ISO-8601 UTC to the second, with Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_moment(text: str, source: str = "now") -> datetime:
    """Read an ISO-8601 date or time; a time without a zone is UTC, a bare date is midnight UTC.

    Args:
        text: E.g. "2029-11-24T09:00:00Z", "2029-11-24T10:00:00+01:00" or "2029-11-24".
        source: Where the text came from, for the error message.

    Returns:
        An aware datetime.

    Raises:
        ClockSettingError: The text is not an ISO-8601 date or time.
    """
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ClockSettingError(
            f"{source}={text!r} is not an ISO-8601 time; write e.g. 2029-11-24T09:00:00Z"
        ) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def parse_offset_days(text: str, source: str = "offset-days") -> float:
    """Read a number of days (negative goes back in time).

    Raises:
        ClockSettingError: The text is not a finite number.
    """
    try:
        days = float(text.strip())
    except ValueError:
        days = math.nan
    if not math.isfinite(days):
        raise ClockSettingError(
            f"{source}={text!r} is not a number of days; write e.g. 1095 or -365"
        )
    return days


@dataclass(frozen=True)
class SandboxClock:
    """What time it is in a sandbox: fixed at `fixed_at`, else the system clock plus `offset`.

    Call it to get the current sandbox time. Build one with `system`, `fixed`,
    `shifted`, `from_environment` or `from_setting`.
    """

    fixed_at: datetime | None = None
    offset: timedelta = timedelta(0)

    def __call__(self) -> datetime:
        """Return the current sandbox time (aware, UTC)."""
        if self.fixed_at is not None:
            return self.fixed_at
        return datetime.now(UTC) + self.offset

    @classmethod
    def system(cls) -> "SandboxClock":
        """The machine's clock."""
        return cls()

    @classmethod
    def fixed(cls, moment: datetime | str) -> "SandboxClock":
        """A clock that always says `moment` (a datetime or ISO-8601 text)."""
        if isinstance(moment, str):
            return cls(fixed_at=parse_moment(moment))
        aware = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
        return cls(fixed_at=aware.astimezone(UTC))

    @classmethod
    def shifted(cls, days: float) -> "SandboxClock":
        """The machine's clock moved `days` ahead (negative: back)."""
        return cls(offset=timedelta(days=days))

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> "SandboxClock | None":
        """Return the clock the environment sets, or None when it sets none.

        Empty values count as unset, so a config can pass `${ZSPACE_SANDBOX_NOW:-}` through.

        Raises:
            ClockSettingError: Both variables are set, or one cannot be read.
        """
        environ = os.environ if environ is None else environ
        now = (environ.get(NOW_VARIABLE) or "").strip()
        offset = (environ.get(OFFSET_VARIABLE) or "").strip()
        if now and offset:
            raise ClockSettingError(
                f"set {NOW_VARIABLE} (a fixed time) or {OFFSET_VARIABLE} (a shift), not both"
            )
        if now:
            return cls(fixed_at=parse_moment(now, NOW_VARIABLE))
        if offset:
            return cls.shifted(parse_offset_days(offset, OFFSET_VARIABLE))
        return None

    @property
    def setting(self) -> str:
        """The clock as one line a database can store: "system", "fixed <time>", "offset <days>"."""
        if self.fixed_at is not None:
            return f"fixed {iso(self.fixed_at)}"
        days = self.offset / timedelta(days=1)
        if days == 0:
            return "system"
        return f"offset {days:g}"

    @classmethod
    def from_setting(cls, setting: str) -> "SandboxClock":
        """Read a clock written by `setting`.

        Raises:
            ClockSettingError: The line is not one `setting` writes.
        """
        kind, _, value = setting.strip().partition(" ")
        if kind == "system" and not value:
            return cls.system()
        if kind == "fixed":
            return cls(fixed_at=parse_moment(value, "stored clock"))
        if kind == "offset":
            return cls.shifted(parse_offset_days(value, "stored clock"))
        raise ClockSettingError(f"stored clock {setting!r} is not 'system', 'fixed' or 'offset'")

    def describe(self) -> str:
        """A short human description, e.g. "fixed at 2029-11-24T09:00:00Z"."""
        if self.fixed_at is not None:
            return f"fixed at {iso(self.fixed_at)}"
        days = self.offset / timedelta(days=1)
        if days == 0:
            return "the system clock"
        return f"the system clock {'+' if days > 0 else '-'} {abs(days):g} days"
