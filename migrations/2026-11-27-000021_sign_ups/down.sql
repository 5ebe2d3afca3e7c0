DROP TABLE sign_ups;
