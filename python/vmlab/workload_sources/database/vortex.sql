-- The S1 database workload at full size (VORTEX-like): an object store
-- larger than the caches, held in sqlite's page cache in memory, and put
-- through object lookups, link traversals, range queries and updates.
-- Run by the sqlite3 shell on a fresh file with the scale as a parameter:
--
--     sqlite3 DB.sqlite ".parameter set @n 3000" ".read vortex.sql"
--
-- @n objects of about 3 KB each (one per 4 KB page); every "random" value is
-- a multiplicative hash of the row number modulo the prime 4294967291 (no
-- random(): it is seeded from the OS), so two runs are the same.

PRAGMA page_size = 4096;
PRAGMA cache_size = -131072;        -- 128 MB: the whole database stays in the process, as VORTEX's does
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;

CREATE TABLE object (
    id     INTEGER PRIMARY KEY,
    kind   INTEGER NOT NULL,
    owner  INTEGER NOT NULL,         -- another object
    next   INTEGER NOT NULL,         -- another object: the traversals follow these
    weight INTEGER NOT NULL,
    body   BLOB NOT NULL             -- the object's state, about 3,000 bytes
);

BEGIN;
INSERT INTO object (id, kind, owner, next, weight, body)
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < @n)
SELECT x,
       ((x * 2654435761) % 4294967291) % 37,
       1 + ((x * 1103515245 + 12345) % 4294967291) % @n,
       1 + ((x * 3266489917) % 4294967291) % @n,
       ((x * 48271) % 4294967291) % 100000,
       zeroblob(3000)
FROM c;
COMMIT;

CREATE INDEX object_by_kind ON object(kind, weight);
CREATE INDEX object_by_owner ON object(owner);

-- Traversals: follow `next` links from many starting objects, one random
-- page per step, reading each object's body.
WITH RECURSIVE walk(step, id, acc) AS (
    SELECT 0, 1, 0
    UNION ALL
    SELECT step + 1, o.next, acc + length(o.body) + o.weight
    FROM walk JOIN object o ON o.id = walk.id
    WHERE step < @n
)
SELECT count(*), max(acc) FROM walk;

-- Lookups through the secondary indexes.
SELECT kind, count(*), avg(weight) FROM object WHERE weight BETWEEN 20000 AND 40000 GROUP BY kind;
SELECT o.id, count(c.id) FROM object o JOIN object c ON c.owner = o.id
WHERE o.kind = 7 GROUP BY o.id ORDER BY 2 DESC LIMIT 10;

-- Updates scattered over the whole store (rewrite a third of the bodies).
BEGIN;
UPDATE object SET weight = (weight * 69069 + 1) % 100000, body = zeroblob(2980 + kind)
WHERE ((id * 2246822519) % 4294967291) % 3 = 0;
COMMIT;

-- A second traversal after the updates, from another start.
WITH RECURSIVE walk(step, id, acc) AS (
    SELECT 0, 2, 0
    UNION ALL
    SELECT step + 1, o.next, acc + length(o.body) + o.weight
    FROM walk JOIN object o ON o.id = walk.id
    WHERE step < @n
)
SELECT count(*), max(acc) FROM walk;

SELECT count(*), sum(length(body)) FROM object;
