DROP TABLE invitation_sends;
