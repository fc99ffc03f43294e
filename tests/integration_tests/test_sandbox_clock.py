"""The sandbox's own clock: per instance, from the environment, from the database; a seed that
works at any date, and expiry checked against the sandbox clock, not the machine's."""

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client

from sandbox.backend import Sandbox
from sandbox.clock import (
    NOW_VARIABLE,
    OFFSET_VARIABLE,
    ClockSettingError,
    SandboxClock,
    iso,
    parse_moment,
)
from sandbox.errors import InvalidArgumentError
from sandbox.export import export_tables

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
TODAY = datetime.now(UTC).replace(microsecond=0)
# Three years ahead and one back, as the issue asks; and dates far from any fixed string.
DATES = {
    "today": TODAY,
    "three years ahead": TODAY + timedelta(days=3 * 365),
    "a year back": TODAY - timedelta(days=365),
    "2040": datetime(2040, 2, 29, 12, 0, tzinfo=UTC),
    "2019": datetime(2019, 6, 1, 8, 30, tzinfo=UTC),
}


def run_sandbox(*args: str, **variables: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in (NOW_VARIABLE, OFFSET_VARIABLE)}
    env.update(PYTHONPATH=str(REPO), **variables)
    return subprocess.run(
        [sys.executable, "-m", "sandbox", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def no_clock_variables(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(NOW_VARIABLE, raising=False)
    monkeypatch.delenv(OFFSET_VARIABLE, raising=False)
    yield


# ----------------------------------------------------------------------- the clock itself


def test_fixed_shifted_and_system_clocks() -> None:
    fixed = SandboxClock.fixed("2029-11-24T09:00:00Z")
    assert fixed() == datetime(2029, 11, 24, 9, tzinfo=UTC) == fixed()
    assert fixed.setting == "fixed 2029-11-24T09:00:00Z"
    assert SandboxClock.fixed("2029-11-24T10:00:00+01:00")() == fixed()
    assert SandboxClock.fixed("2029-11-24")() == datetime(2029, 11, 24, tzinfo=UTC)
    ahead = SandboxClock.shifted(1095)
    assert abs(ahead() - datetime.now(UTC) - timedelta(days=1095)) < timedelta(seconds=5)
    assert ahead.setting == "offset 1095"
    assert SandboxClock.shifted(-365).describe() == "the system clock - 365 days"
    assert SandboxClock.system().setting == "system"
    for clock in (fixed, ahead, SandboxClock.shifted(-0.5), SandboxClock.system()):
        assert SandboxClock.from_setting(clock.setting) == clock


def test_clock_from_the_environment() -> None:
    assert SandboxClock.from_environment({}) is None
    assert SandboxClock.from_environment({NOW_VARIABLE: "", OFFSET_VARIABLE: " "}) is None
    assert SandboxClock.from_environment({NOW_VARIABLE: "2029-11-24T09:00:00Z"}) == (
        SandboxClock.fixed("2029-11-24T09:00:00Z")
    )
    assert SandboxClock.from_environment({OFFSET_VARIABLE: "-365"}) == SandboxClock.shifted(-365)
    with pytest.raises(ClockSettingError, match="not both"):
        SandboxClock.from_environment({NOW_VARIABLE: "2029-11-24", OFFSET_VARIABLE: "3"})
    with pytest.raises(ClockSettingError, match=f"{NOW_VARIABLE}='next tuesday' is not"):
        SandboxClock.from_environment({NOW_VARIABLE: "next tuesday"})
    with pytest.raises(ClockSettingError, match=f"{OFFSET_VARIABLE}='three years'"):
        SandboxClock.from_environment({OFFSET_VARIABLE: "three years"})
    with pytest.raises(ClockSettingError, match="is not a number of days"):
        SandboxClock.from_environment({OFFSET_VARIABLE: "inf"})


# ----------------------------------------------------------------------- the seed at any date


@pytest.mark.parametrize("when", list(DATES), ids=list(DATES))
def test_the_seed_works_at_any_date(tmp_path: Path, when: str, no_clock_variables: None) -> None:
    """The time bomb: seeded coupons and memberships keep their meaning whatever the date."""
    now = DATES[when]
    with Sandbox(tmp_path / "sandbox.db", clock=SandboxClock.fixed(now)) as sandbox:
        # Alice's welcome coupon (1) is usable, Carol's (4) expired a week ago.
        product = sandbox.create_product(price=25.0)
        order = sandbox.create_order(user_id=1, product_id=product["product_id"], coupon_id=1)
        assert (order["discount"], order["total"]) == (5.0, 20.0)
        assert order["created_at"] == iso(now)
        coupon = sandbox.list_user_coupons(user_id=3)["coupons"][0]
        assert coupon["code"] == "WELCOME-0004"
        assert coupon["expires_at"] == iso(now - timedelta(days=7))
        with pytest.raises(InvalidArgumentError, match="coupon 4 expired at"):
            sandbox.redeem_coupon(coupon_id=4, order_id=3)
        # Alice's gold membership is active (free delivery), Bob's silver one expired.
        assert sandbox.get_membership(user_id=1)["status"] == "active"
        assert sandbox.get_membership(user_id=2)["status"] == "expired"
        assert sandbox.create_delivery(order_id=8)["fee"] == 3.5  # Dan is no member
        sandbox.pay_order(order_id=order["order_id"])
        assert sandbox.create_delivery(order_id=order["order_id"])["fee"] == 0.0
        # Every seeded row was written SEED_AGE (30 days) before the clock's now.
        assert sandbox.get_user(user_id=1)["created_at"] == iso(now - timedelta(days=30))


def test_a_reset_reseeds_relative_to_the_clock_and_records_it(
    tmp_path: Path, no_clock_variables: None
) -> None:
    db = tmp_path / "sandbox.db"
    with Sandbox(db, clock=SandboxClock.fixed("2031-05-01T00:00:00Z")) as sandbox:
        assert sandbox.get_user(user_id=1)["created_at"] == "2031-04-01T00:00:00Z"
    assert export_tables(db)["sandbox_settings"] == [
        {"key": "clock", "value": "fixed 2031-05-01T00:00:00Z"}
    ]
    with Sandbox(db) as follower:  # no clock of its own: the database's
        assert follower.create_user()["created_at"] == "2031-05-01T00:00:00Z"
        assert follower.current_clock() == SandboxClock.fixed("2031-05-01T00:00:00Z")
    with Sandbox(db, clock=SandboxClock.shifted(-365)) as sandbox:
        sandbox.reset()
        seeded = datetime.fromisoformat(sandbox.get_user(user_id=1)["created_at"])
        assert abs(seeded - (datetime.now(UTC) - timedelta(days=395))) < timedelta(minutes=1)
    assert export_tables(db)["sandbox_settings"] == [{"key": "clock", "value": "offset -365"}]


def test_an_instance_clock_beats_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(NOW_VARIABLE, "2030-01-01T00:00:00Z")
    with Sandbox(tmp_path / "env.db") as from_env:
        assert from_env.create_user()["created_at"] == "2030-01-01T00:00:00Z"
    own = SandboxClock.fixed("2035-01-01T00:00:00Z")
    with Sandbox(tmp_path / "own.db", clock=own) as sandbox:
        assert sandbox.create_user()["created_at"] == "2035-01-01T00:00:00Z"
    monkeypatch.setenv(OFFSET_VARIABLE, "10")
    with pytest.raises(ClockSettingError, match="not both"):
        Sandbox(tmp_path / "both.db")


# ----------------------------------------------------------------------- expiry on the sandbox clock


def test_membership_and_coupon_expiry_follow_the_sandbox_clock(
    tmp_path: Path, no_clock_variables: None
) -> None:
    db = tmp_path / "sandbox.db"
    start = parse_moment("2030-03-01T12:00:00Z")
    with Sandbox(db, clock=SandboxClock.fixed(start)) as sandbox:
        member = sandbox.create_membership(user_id=3, months=1)
        assert member["expires_at"] == "2030-03-31T12:00:00Z"
        template = sandbox.create_coupon_template(valid_days=2)
        coupon = sandbox.issue_coupon(template_id=template["template_id"], user_id=3)
        assert coupon["expires_at"] == "2030-03-03T12:00:00Z"
    later = SandboxClock.fixed(start + timedelta(days=31))
    with Sandbox(db, clock=later) as sandbox:
        assert sandbox.get_membership(user_id=3)["status"] == "expired"
        with pytest.raises(InvalidArgumentError, match="expired at 2030-03-03T12:00:00Z"):
            sandbox.redeem_coupon(coupon_id=coupon["coupon_id"], order_id=3)
        again = sandbox.create_membership(user_id=3, days=10)  # the lapsed one does not block
        assert again["expires_at"] == "2030-04-11T12:00:00Z"
        lapsed = [r for r in export_tables(db)["memberships"] if r["user_id"] == 3][0]
        assert lapsed["status"] == "expired"  # a writer records what the clock says


# ----------------------------------------------------------------------- command line and MCP


def test_reset_takes_the_clock_from_flags_and_environment(tmp_path: Path) -> None:
    db = tmp_path / "sandbox.db"
    done = run_sandbox("reset", "--db", str(db), "--now", "2029-11-24T09:00:00Z")
    assert done.returncode == 0, done.stderr
    assert "clock: fixed at 2029-11-24T09:00:00Z" in done.stderr
    assert export_tables(db)["users"][0]["created_at"] == "2029-10-25T09:00:00Z"
    done = run_sandbox("reset", "--db", str(db), **{OFFSET_VARIABLE: "1095"})
    assert done.returncode == 0, done.stderr
    assert export_tables(db)["sandbox_settings"][0]["value"] == "offset 1095"
    done = run_sandbox("reset", "--db", str(db), "--offset-days", "-365")
    assert export_tables(db)["sandbox_settings"][0]["value"] == "offset -365"
    bad = run_sandbox("reset", "--db", str(db), **{NOW_VARIABLE: "soon"})
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        f"sandbox clock: {NOW_VARIABLE}='soon' is not an ISO-8601 time; "
        "write e.g. 2029-11-24T09:00:00Z"
    )
    both = run_sandbox("reset", "--db", str(db), "--now", "2029-01-01", "--offset-days", "3")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


async def test_an_mcp_server_follows_the_clock_its_database_was_reset_with(tmp_path: Path) -> None:
    """An MCP client passes only a few variables to a stdio server: the database carries the
    clock that `reset` got from the environment."""
    db = tmp_path / "sandbox.db"
    done = run_sandbox("reset", "--db", str(db), **{NOW_VARIABLE: "2029-11-24T09:00:00Z"})
    assert done.returncode == 0, done.stderr
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sandbox", "serve", "--db", str(db)],
        cwd=str(REPO),
        env={**get_default_environment(), "PYTHONPATH": str(REPO)},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        user = await session.call_tool("create_user", {"name": "Clock probe"})
        assert user.structuredContent is not None
        assert user.structuredContent["created_at"] == "2029-11-24T09:00:00Z"
        order = await session.call_tool(
            "create_order", {"user_id": 1, "product_id": 1, "coupon_id": 2}
        )
        assert not order.isError and order.structuredContent is not None
        assert order.structuredContent["discount"] == 1.0  # SPRING 10 % of 9.99, still valid
