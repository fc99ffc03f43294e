"""User tools of the sandbox: test users, their accounts and wallet balances."""

from typing import Literal

from sandbox.backend.core import _money, tool
from sandbox.backend.rules import Rules
from sandbox.errors import InvalidArgumentError, NotFoundError
from sandbox.models import AccountNumber, IdempotencyKey, Limit, Money, User, UserId, UserList

_FIRST_GENERATED_ACCOUNT = 200001


class UserTools(Rules):
    """Tools on users: create, look up by id or account number, list, top up the wallet."""

    @tool("user", "account", side_effect=True)
    def create_user(
        self,
        name: str | None = None,
        account_number: str | None = None,
        email: str | None = None,
        phone: str | None = None,
        wallet_balance: Money = 0.0,
        idempotency_key: IdempotencyKey = None,
    ) -> User:
        """Create a test user with an account; the account number is generated when omitted.

        Args:
            name: Display name; defaults to "Test user <n>".
            account_number: 6-digit account number to use; must be unused.
            email: Contact e-mail.
            phone: Contact phone number.
            wallet_balance: Starting wallet balance.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new user.
        """
        if account_number is None:
            top = self._one("SELECT MAX(CAST(account_number AS INTEGER)) AS top FROM users")
            highest = 0 if top is None or top["top"] is None else int(top["top"])
            account = str(max(highest + 1, _FIRST_GENERATED_ACCOUNT)).zfill(6)
            if len(account) > 6:
                raise InvalidArgumentError("no 6-digit account numbers are left; pass one")
        else:
            account = self._normalize_account(account_number)
            if self._one("SELECT 1 FROM users WHERE account_number = ?", (account,)):
                raise InvalidArgumentError(f"account number {account} is already taken")
        user_id = self._insert(
            "users",
            {
                "account_number": account,
                "name": name or "",
                "email": email,
                "phone": phone,
                "status": "active",
                "wallet_balance": _money(wallet_balance),
                "created_at": self._now(),
            },
        )
        if not name:
            self._db.execute(
                "UPDATE users SET name = ? WHERE user_id = ?", (f"Test user {user_id}", user_id)
            )
        return self._user_record(user_id)

    @tool("user", side_effect=False)
    def get_user(self, user_id: UserId) -> User:
        """Get a user by user id, with account number, status and wallet balance.

        Args:
            user_id: The user.

        Returns:
            The user.
        """
        return self._user_record(user_id)

    @tool("user", "account", side_effect=False)
    def get_user_by_account(self, account_number: AccountNumber) -> User:
        """Look up the user who owns an account number (e.g. "123456"); returns their user_id.

        Args:
            account_number: Account number; shorter numbers are zero-padded ("42" -> "000042").

        Returns:
            The user.
        """
        account = self._normalize_account(account_number)
        row = self._one("SELECT user_id FROM users WHERE account_number = ?", (account,))
        if row is None:
            raise NotFoundError(f"no user has account number {account}")
        return self._user_record(row["user_id"])

    @tool("user", side_effect=False)
    def list_users(
        self, status: Literal["active", "frozen"] | None = None, limit: Limit = 50
    ) -> UserList:
        """List users, optionally only active or frozen ones.

        Args:
            status: Keep only users with this status.
            limit: Maximum number of users.

        Returns:
            The users, by user id.
        """
        rows = self._all(
            "SELECT user_id FROM users WHERE (? IS NULL OR status = ?) ORDER BY user_id LIMIT ?",
            (status, status, limit),
        )
        return UserList(users=[self._user_record(row["user_id"]) for row in rows])

    @tool("user", "wallet", side_effect=True, destructive=True)
    def top_up_balance(
        self, user_id: UserId, amount: Money = 50.0, idempotency_key: IdempotencyKey = None
    ) -> User:
        """Add money to a user's wallet balance.

        Args:
            user_id: The user.
            amount: Amount to add.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The user with the new balance.
        """
        self._require("users", "user", user_id)
        if amount <= 0:
            raise InvalidArgumentError("amount must be positive")
        self._db.execute(
            "UPDATE users SET wallet_balance = round(wallet_balance + ?, 2) WHERE user_id = ?",
            (amount, user_id),
        )
        return self._user_record(user_id)
