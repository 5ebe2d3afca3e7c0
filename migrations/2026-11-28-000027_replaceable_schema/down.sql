-- The functions stay as the file made them: the same as the migrations before left them,
-- until the file changes; a server of an older version keeps them as they are.
DROP TABLE turnpost_replaceable_schema;
