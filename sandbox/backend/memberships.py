"""Membership tools of the sandbox: paid memberships, whose members deliver free.

A membership is 'active' until its `expires_at` passes on the sandbox clock, then 'expired';
'cancelled' ones were ended by cancel_membership. Lengths are months of 30 days plus days.
"""

import sqlite3
from datetime import datetime, timedelta

from sandbox.backend.core import _iso, tool
from sandbox.backend.rules import Rules
from sandbox.errors import InvalidArgumentError, InvalidTransitionError, NotFoundError
from sandbox.models import (
    Days,
    IdempotencyKey,
    Membership,
    MembershipId,
    MembershipTier,
    Months,
    UserId,
)

DEFAULT_MONTHS = 12
DAYS_PER_MONTH = 30


def _length(months: int | None, days: int | None, default_months: int) -> timedelta:
    if months is None and days is None:
        months = default_months
    return timedelta(days=DAYS_PER_MONTH * (months or 0) + (days or 0))


class MembershipTools(Rules):
    """Tools on memberships: start, extend, get and cancel a user's membership."""

    def _expire_memberships(self) -> None:
        """Write 'expired' on active memberships whose end has passed on the sandbox clock."""
        self._db.execute(
            "UPDATE memberships SET status = 'expired' WHERE status = 'active' AND expires_at <= ?",
            (self._now(),),
        )

    def _active_membership(self, membership_id: int, what_needs_it: str) -> sqlite3.Row:
        """The membership's row, checked active on the sandbox clock.

        Raises:
            InvalidTransitionError: it is not active ("only active ones can be <what_needs_it>").
        """
        self._require("memberships", "membership", membership_id)
        self._expire_memberships()
        row = self._require("memberships", "membership", membership_id)
        if row["status"] != "active":
            raise InvalidTransitionError(
                f"membership {membership_id} is '{row['status']}'; only active ones can be "
                f"{what_needs_it}"
            )
        return row

    @tool("membership", "user", side_effect=True)
    def create_membership(
        self,
        user_id: UserId,
        tier: MembershipTier = "gold",
        months: Months | None = None,
        days: Days | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Membership:
        """Start a paid membership (silver, gold or platinum) for a user; members deliver free.

        Its length is months plus days (part of a month: days only); 12 months when neither.

        Args:
            user_id: The user; must have no active membership.
            tier: Membership tier.
            months: Length in months of 30 days.
            days: Length in days, added to the months.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new membership.
        """
        self._active_user(user_id)
        self._expire_memberships()
        active = self._one(
            "SELECT membership_id FROM memberships WHERE user_id = ? AND status = 'active'",
            (user_id,),
        )
        if active is not None:
            raise InvalidArgumentError(
                f"user {user_id} already has active membership {active['membership_id']}; "
                "extend it with extend_membership or cancel it with cancel_membership first"
            )
        start = self._clock()
        membership_id = self._insert(
            "memberships",
            {
                "user_id": user_id,
                "tier": tier,
                "status": "active",
                "started_at": _iso(start),
                "expires_at": _iso(start + _length(months, days, DEFAULT_MONTHS)),
            },
        )
        return self._membership_record(self._require("memberships", "membership", membership_id))

    @tool("membership", side_effect=True, destructive=True)
    def extend_membership(
        self,
        membership_id: MembershipId,
        months: Months | None = None,
        days: Days | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Membership:
        """Extend an active membership by months and/or days (one month when neither is given).

        Args:
            membership_id: An active membership.
            months: Months of 30 days to add.
            days: Days to add.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The membership with its new expiry.
        """
        row = self._active_membership(
            membership_id, "extended: start a new one with create_membership"
        )
        expires = datetime.fromisoformat(row["expires_at"]) + _length(months, days, 1)
        self._db.execute(
            "UPDATE memberships SET expires_at = ? WHERE membership_id = ?",
            (_iso(expires), membership_id),
        )
        return self._membership_record(self._require("memberships", "membership", membership_id))

    @tool("membership", "user", side_effect=False)
    def get_membership(self, user_id: UserId) -> Membership:
        """Get a user's current membership (the active one, else the latest).

        Args:
            user_id: The user.

        Returns:
            The membership.
        """
        self._require("users", "user", user_id)
        row = self._one(
            "SELECT * FROM memberships WHERE user_id = ? "
            "ORDER BY (status = 'active' AND expires_at > ?) DESC, membership_id DESC LIMIT 1",
            (user_id, self._now()),
        )
        if row is None:
            raise NotFoundError(
                f"user {user_id} has no membership; start one with create_membership"
            )
        return self._membership_record(row)

    @tool("membership", side_effect=True, destructive=True)
    def cancel_membership(
        self, membership_id: MembershipId, idempotency_key: IdempotencyKey = None
    ) -> Membership:
        """Cancel an active membership.

        Args:
            membership_id: The membership.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The cancelled membership.
        """
        self._active_membership(membership_id, "cancelled")
        self._db.execute(
            "UPDATE memberships SET status = 'cancelled' WHERE membership_id = ?", (membership_id,)
        )
        return self._membership_record(self._require("memberships", "membership", membership_id))
