DROP TABLE chat_email_replies;
