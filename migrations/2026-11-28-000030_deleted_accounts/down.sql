-- Without the column a deleted account would look like a live one: refuse while any exist.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM accounts WHERE deleted_at IS NOT NULL) THEN
        RAISE EXCEPTION 'accounts were deleted: reverting would make them look live again';
    END IF;
END
$$;
ALTER TABLE accounts DROP COLUMN deleted_at;
