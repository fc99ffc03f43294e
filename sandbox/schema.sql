-- The sandbox's test-data schema: an e-commerce and local-delivery business.
-- Money is stored as REAL rounded to cents; timestamps are ISO-8601 UTC strings.

CREATE TABLE IF NOT EXISTS users (
    user_id         INTEGER PRIMARY KEY,
    account_number  TEXT NOT NULL UNIQUE CHECK (length(account_number) = 6
                                                AND account_number NOT GLOB '*[^0-9]*'),
    name            TEXT NOT NULL,
    email           TEXT,
    phone           TEXT,
    status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'frozen')),
    wallet_balance  REAL NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS addresses (
    address_id  INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users (user_id),
    label       TEXT NOT NULL,
    line1       TEXT NOT NULL,
    city        TEXT NOT NULL,
    postcode    TEXT NOT NULL,
    is_default  INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS shops (
    shop_id     INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    city        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    created_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS products (
    product_id   INTEGER PRIMARY KEY,
    shop_id      INTEGER NOT NULL REFERENCES shops (shop_id),
    name         TEXT NOT NULL,
    category     TEXT NOT NULL,
    price        REAL NOT NULL CHECK (price >= 0),
    status       TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    created_at   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS skus (
    sku_id      INTEGER PRIMARY KEY,
    product_id  INTEGER NOT NULL REFERENCES products (product_id),
    sku_code    TEXT NOT NULL UNIQUE,
    attributes  TEXT NOT NULL DEFAULT '',
    price       REAL NOT NULL CHECK (price >= 0),
    created_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS inventory (
    sku_id      INTEGER PRIMARY KEY REFERENCES skus (sku_id),
    quantity    INTEGER NOT NULL DEFAULT 0 CHECK (quantity >= 0),
    updated_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS carts (
    cart_id     INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL UNIQUE REFERENCES users (user_id),
    created_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS cart_items (
    cart_item_id  INTEGER PRIMARY KEY,
    cart_id       INTEGER NOT NULL REFERENCES carts (cart_id),
    product_id    INTEGER NOT NULL REFERENCES products (product_id),
    sku_id        INTEGER NOT NULL REFERENCES skus (sku_id),
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    unit_price    REAL NOT NULL,
    UNIQUE (cart_id, sku_id)
);

CREATE TABLE IF NOT EXISTS coupon_templates (
    template_id     INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    discount_type   TEXT NOT NULL CHECK (discount_type IN ('fixed', 'percent')),
    value           REAL NOT NULL CHECK (value > 0),
    min_spend       REAL NOT NULL DEFAULT 0,
    valid_days      INTEGER NOT NULL DEFAULT 30,
    total_quantity  INTEGER NOT NULL,
    issued_count    INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS orders (
    order_id    INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users (user_id),
    shop_id     INTEGER NOT NULL REFERENCES shops (shop_id),
    address_id  INTEGER REFERENCES addresses (address_id),
    status      TEXT NOT NULL CHECK (status IN ('created', 'pending_payment', 'paid', 'shipped',
                                                'delivered', 'cancelled', 'refunded')),
    subtotal    REAL NOT NULL,
    discount    REAL NOT NULL DEFAULT 0,
    total       REAL NOT NULL,
    coupon_id   INTEGER,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS order_items (
    order_item_id  INTEGER PRIMARY KEY,
    order_id       INTEGER NOT NULL REFERENCES orders (order_id),
    product_id     INTEGER NOT NULL REFERENCES products (product_id),
    sku_id         INTEGER NOT NULL REFERENCES skus (sku_id),
    quantity       INTEGER NOT NULL CHECK (quantity > 0),
    unit_price     REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS order_status_history (
    history_id   INTEGER PRIMARY KEY,
    order_id     INTEGER NOT NULL REFERENCES orders (order_id),
    from_status  TEXT,
    to_status    TEXT NOT NULL,
    note         TEXT NOT NULL DEFAULT '',
    changed_at   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS coupons (
    coupon_id    INTEGER PRIMARY KEY,
    template_id  INTEGER NOT NULL REFERENCES coupon_templates (template_id),
    user_id      INTEGER NOT NULL REFERENCES users (user_id),
    code         TEXT NOT NULL UNIQUE,
    status       TEXT NOT NULL CHECK (status IN ('issued', 'redeemed', 'revoked')),
    order_id     INTEGER REFERENCES orders (order_id),
    issued_at    TEXT NOT NULL,
    expires_at   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS payments (
    payment_id       INTEGER PRIMARY KEY,
    order_id         INTEGER NOT NULL REFERENCES orders (order_id),
    amount           REAL NOT NULL,
    refunded_amount  REAL NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0),
    method           TEXT NOT NULL CHECK (method IN ('card', 'wallet', 'cash', 'alipay',
                                                     'wechat_pay', 'manual')),
    status           TEXT NOT NULL CHECK (status IN ('succeeded', 'partially_refunded',
                                                     'refunded')),
    created_at       TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS riders (
    rider_id    INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    phone       TEXT NOT NULL,
    city        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'busy', 'off')),
    created_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS deliveries (
    delivery_id  INTEGER PRIMARY KEY,
    order_id     INTEGER NOT NULL REFERENCES orders (order_id),
    address_id   INTEGER REFERENCES addresses (address_id),
    rider_id     INTEGER REFERENCES riders (rider_id),
    status       TEXT NOT NULL CHECK (status IN ('pending', 'assigned', 'picked_up', 'in_transit',
                                                 'delivered', 'failed', 'cancelled')),
    fee          REAL NOT NULL,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS reviews (
    review_id   INTEGER PRIMARY KEY,
    order_id    INTEGER NOT NULL REFERENCES orders (order_id),
    user_id     INTEGER NOT NULL REFERENCES users (user_id),
    product_id  INTEGER NOT NULL REFERENCES products (product_id),
    rating      INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    comment     TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    UNIQUE (order_id, product_id)
);

CREATE TABLE IF NOT EXISTS refunds (
    refund_id   INTEGER PRIMARY KEY,
    order_id    INTEGER NOT NULL REFERENCES orders (order_id),
    payment_id  INTEGER NOT NULL REFERENCES payments (payment_id),
    amount      REAL NOT NULL CHECK (amount > 0),
    reason      TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL CHECK (status IN ('requested', 'completed', 'rejected')),
    created_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS memberships (
    membership_id  INTEGER PRIMARY KEY,
    user_id        INTEGER NOT NULL REFERENCES users (user_id),
    tier           TEXT NOT NULL CHECK (tier IN ('silver', 'gold', 'platinum')),
    status         TEXT NOT NULL CHECK (status IN ('active', 'cancelled', 'expired')),
    started_at     TEXT NOT NULL,
    expires_at     TEXT NOT NULL
);

-- One row per setting of this sandbox instance; 'clock' is the clock it was reset with.
CREATE TABLE IF NOT EXISTS sandbox_settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS idempotency_keys (
    idempotency_key  TEXT PRIMARY KEY,
    tool             TEXT NOT NULL,
    args_hash        TEXT NOT NULL,
    result_json      TEXT NOT NULL,
    created_at       TEXT NOT NULL
);
