DROP TABLE revoked_logins;
DROP TABLE access_tokens;
