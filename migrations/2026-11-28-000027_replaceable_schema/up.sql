-- The functions and triggers now live in src/store/sql/replaceable.sql, applied after the
-- migrations whenever its text changes (src/store/replaceable.rs). This row records the
-- SHA-256 of the text applied last. Nothing else changes here: the functions as the
-- migrations before left them are what the file holds.
CREATE TABLE turnpost_replaceable_schema (
    -- One row at most.
    id BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (id),
    sha256 TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
