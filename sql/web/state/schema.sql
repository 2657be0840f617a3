-- The web app's own state (web/store.py), in SQLite: created when missing, every time a Store opens.
-- A handle is unique whatever its case (people_handle_index.sql). `twin` is 0 for everyone but a person who joined,
-- before that index existed, under a name differing only in case from an earlier person's (`Race1` after
-- `race1`): they keep their name (it is in their records already) and get their rowid, outside the index's way.
CREATE TABLE IF NOT EXISTS people (
    handle        TEXT PRIMARY KEY,
    token_sha256  TEXT NOT NULL,
    created_at    REAL NOT NULL,
    twin          INTEGER NOT NULL DEFAULT 0
);
-- One row per signed-in browser: the cookie carries a random login id, the server keeps only its sha256.
-- Logging out, or a new token, deletes the row, so a copied cookie stops working at once.
CREATE TABLE IF NOT EXISTS logins (
    login_sha256  TEXT PRIMARY KEY,
    handle        TEXT NOT NULL REFERENCES people(handle),
    created_at    REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS game_sessions (
    session_id    TEXT PRIMARY KEY,
    handle        TEXT NOT NULL REFERENCES people(handle),
    started_at    REAL NOT NULL,
    seed          TEXT NOT NULL,
    plan          TEXT NOT NULL,
    finished_at   REAL
);
CREATE TABLE IF NOT EXISTS image_starts (
    session_id    TEXT NOT NULL,
    image_order   INTEGER NOT NULL,
    started_at    REAL NOT NULL,
    PRIMARY KEY (session_id, image_order)
);
CREATE TABLE IF NOT EXISTS pending_questions (
    session_id      TEXT NOT NULL,
    image_order     INTEGER NOT NULL,
    question_index  INTEGER NOT NULL,
    question        TEXT NOT NULL,
    answer          TEXT NOT NULL,
    planted         INTEGER NOT NULL,
    asked_at        REAL NOT NULL,
    PRIMARY KEY (session_id, image_order)
);
CREATE TABLE IF NOT EXISTS annotation_rounds (
    round_id      TEXT PRIMARY KEY,
    handle        TEXT NOT NULL REFERENCES people(handle),
    started_at    REAL NOT NULL,
    plan          TEXT NOT NULL,
    shown_at      REAL NOT NULL,
    finished_at   REAL
);
