"""Address tools of the sandbox: users' delivery addresses and which one is the default."""

from sandbox.backend.core import tool
from sandbox.backend.rules import DEFAULT_CITY, Rules
from sandbox.models import Address, AddressList, IdempotencyKey, UserId


class AddressTools(Rules):
    """Tools on delivery addresses: add one to a user, list a user's addresses."""

    @tool("address", "user", side_effect=True)
    def create_address(
        self,
        user_id: UserId,
        line1: str = "1 Test Street",
        city: str = DEFAULT_CITY,
        postcode: str = "10001",
        label: str = "home",
        is_default: bool = False,
        idempotency_key: IdempotencyKey = None,
    ) -> Address:
        """Add a delivery address to a user; the user's first address becomes the default.

        Args:
            user_id: The user.
            line1: Street and number.
            city: City.
            postcode: Postal code.
            label: A name such as "home" or "work".
            is_default: Make it the user's default address.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new address.
        """
        self._require("users", "user", user_id)
        has_any = self._one("SELECT 1 FROM addresses WHERE user_id = ?", (user_id,))
        make_default = is_default or has_any is None
        if make_default:
            self._db.execute("UPDATE addresses SET is_default = 0 WHERE user_id = ?", (user_id,))
        address_id = self._insert(
            "addresses",
            {
                "user_id": user_id,
                "label": label,
                "line1": line1,
                "city": city,
                "postcode": postcode,
                "is_default": int(make_default),
                "created_at": self._now(),
            },
        )
        row = self._require("addresses", "address", address_id)
        return self._address_record(row)

    @tool("address", "user", side_effect=False)
    def list_addresses(self, user_id: UserId) -> AddressList:
        """List a user's delivery addresses, default first.

        Args:
            user_id: The user.

        Returns:
            The addresses.
        """
        self._require("users", "user", user_id)
        rows = self._all(
            "SELECT * FROM addresses WHERE user_id = ? ORDER BY is_default DESC, address_id",
            (user_id,),
        )
        return AddressList(user_id=user_id, addresses=[self._address_record(r) for r in rows])
