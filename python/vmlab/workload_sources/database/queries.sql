-- The S1 database workload: a small order-processing schema put through a
-- typical query mix. Run by the sqlite3 command-line shell on a fresh
-- database file, with the scale bound as a parameter:
--
--     sqlite3 DB.sqlite ".parameter set @n 20000" ".read queries.sql"
--
-- @n is the number of orders; customers (@n/10), products (@n/20) and order
-- lines (~3 @n) scale with it. Every "random" column is a multiplicative
-- hash of the row number modulo the prime 4294967291 (no random(): it is
-- seeded from the OS), so two runs build byte-identical databases.

PRAGMA page_size = 4096;
PRAGMA cache_size = -8192;          -- 8 MB page cache: full-size runs spill past it
PRAGMA foreign_keys = ON;

CREATE TABLE customer (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL,
    city    TEXT NOT NULL,
    joined  INTEGER NOT NULL        -- day number
);
CREATE TABLE product (
    id       INTEGER PRIMARY KEY,
    name     TEXT NOT NULL,
    category TEXT NOT NULL,
    price    REAL NOT NULL
);
CREATE TABLE orders (
    id          INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customer(id),
    day         INTEGER NOT NULL,
    status      TEXT NOT NULL
);
CREATE TABLE order_line (
    order_id   INTEGER NOT NULL REFERENCES orders(id),
    product_id INTEGER NOT NULL REFERENCES product(id),
    qty        INTEGER NOT NULL,
    PRIMARY KEY (order_id, product_id)
) WITHOUT ROWID;

-- Bulk load in one transaction, as a loader would.
BEGIN;
INSERT INTO customer (id, name, city, joined)
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < max(@n / 10, 10))
SELECT x,
       'customer-' || printf('%07d', (x * 7919) % 1000003),
       'city-' || (((x * 2654435761) % 4294967291) % 97),
       ((x * 48271) % 4294967291) % 3650
FROM c;

INSERT INTO product (id, name, category, price)
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < max(@n / 20, 10))
SELECT x,
       'product-' || hex((x * 3266489917) % 4294967291),
       'cat-' || (((x * 2246822519) % 4294967291) % 23),
       ((x * 69069) % 4294967291) % 100000 / 100.0 + 0.99
FROM c;

INSERT INTO orders (id, customer_id, day, status)
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < @n)
SELECT x,
       1 + ((x * 1103515245 + 12345) % 4294967291) % max(@n / 10, 10),
       ((x * 3266489917) % 4294967291) % 3650,
       CASE ((x * 668265263) % 4294967291) % 7 WHEN 0 THEN 'cancelled' WHEN 1 THEN 'open' ELSE 'shipped' END
FROM c;

-- Three lines per order on average (1..5), distinct products per order.
INSERT OR IGNORE INTO order_line (order_id, product_id, qty)
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < @n),
     k(j) AS (VALUES (0), (1), (2), (3), (4))
SELECT x,
       1 + (((x * 2654435761) % 4294967291) + j * 7919) % max(@n / 20, 10),
       1 + (x + j) % 9
FROM c, k
WHERE j <= ((x * 69069) % 4294967291) % 5;
COMMIT;

CREATE INDEX orders_by_customer ON orders(customer_id);
CREATE INDEX orders_by_day ON orders(day);
CREATE INDEX line_by_product ON order_line(product_id);
CREATE INDEX product_by_category ON product(category);
ANALYZE;

-- Reporting queries: joins, aggregates, sorting, a window function.
SELECT p.category, count(*) AS lines, sum(l.qty * p.price) AS revenue
FROM order_line l JOIN product p ON p.id = l.product_id
                  JOIN orders o ON o.id = l.order_id
WHERE o.status = 'shipped'
GROUP BY p.category ORDER BY revenue DESC;

SELECT c.city, count(DISTINCT c.id) AS buyers, round(sum(l.qty * p.price), 2) AS spend
FROM customer c JOIN orders o ON o.customer_id = c.id
                JOIN order_line l ON l.order_id = o.id
                JOIN product p ON p.id = l.product_id
GROUP BY c.city HAVING count(*) > 10 ORDER BY spend DESC LIMIT 20;

SELECT id, name, total FROM (
    SELECT c.id, c.name, sum(l.qty * p.price) AS total,
           rank() OVER (PARTITION BY c.city ORDER BY sum(l.qty * p.price) DESC) AS r
    FROM customer c JOIN orders o ON o.customer_id = c.id
                    JOIN order_line l ON l.order_id = o.id
                    JOIN product p ON p.id = l.product_id
    GROUP BY c.id)
WHERE r = 1 ORDER BY total DESC LIMIT 25;

SELECT o.day / 30 AS month, count(*), avg(n)
FROM orders o JOIN (SELECT order_id, count(*) AS n FROM order_line GROUP BY order_id) x
              ON x.order_id = o.id
WHERE o.day BETWEEN 365 AND 1095
GROUP BY month ORDER BY month;

SELECT p.name, p.price FROM product p
WHERE p.price > (SELECT avg(price) FROM product q WHERE q.category = p.category)
  AND p.name LIKE '%A%'
ORDER BY p.price DESC LIMIT 30;

SELECT count(*) FROM customer c
WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.status <> 'cancelled');

-- Updates and deletes, each in its own transaction.
BEGIN;
UPDATE product SET price = round(price * 1.07, 2) WHERE category IN ('cat-3', 'cat-7', 'cat-11');
UPDATE orders SET status = 'shipped' WHERE status = 'open' AND day < 1800;
COMMIT;

BEGIN;
DELETE FROM order_line WHERE order_id IN (SELECT id FROM orders WHERE status = 'cancelled');
DELETE FROM orders WHERE status = 'cancelled';
COMMIT;

BEGIN;
UPDATE order_line SET qty = qty + 1 WHERE product_id % 13 = 0;
INSERT INTO orders (id, customer_id, day, status)
SELECT id + @n, customer_id, day + 1, 'open' FROM orders WHERE day % 50 = 0;
COMMIT;

SELECT status, count(*), min(day), max(day) FROM orders GROUP BY status ORDER BY status;
PRAGMA integrity_check;
