// Diesel table definitions, matching migrations/.

diesel::table! {
    accounts (id) {
        id -> Int8,
        email -> Text,
        email_lower -> Text,
        name -> Text,
        password_hash -> Text,
        email_notifications -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    games (id) {
        id -> Int8,
        game_type -> Text,
        rules_version -> Int4,
        options -> Jsonb,
        players -> Int4,
        status -> Text,
        version -> Int8,
        seed -> Bytea,
        snapshot -> Nullable<Text>,
        to_act -> Array<Int4>,
        result -> Nullable<Jsonb>,
        created_by -> Int8,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    game_seats (game_id, seat) {
        game_id -> Int8,
        seat -> Int4,
        account_id -> Int8,
        joined_at -> Timestamptz,
    }
}

diesel::table! {
    game_actions (game_id, seq) {
        game_id -> Int8,
        seq -> Int8,
        seat -> Int4,
        action -> Jsonb,
        public_action -> Nullable<Jsonb>,
        seen_by -> Array<Int4>,
        description -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    outbox (id) {
        id -> Int8,
        dedupe_key -> Text,
        account_id -> Nullable<Int8>,
        game_id -> Nullable<Int8>,
        to_address -> Text,
        subject -> Text,
        body_text -> Text,
        body_html -> Text,
        created_at -> Timestamptz,
        attempts -> Int4,
        next_attempt_at -> Timestamptz,
        sent_at -> Nullable<Timestamptz>,
        failed_at -> Nullable<Timestamptz>,
        last_error -> Nullable<Text>,
    }
}

diesel::joinable!(game_seats -> games (game_id));
diesel::joinable!(game_seats -> accounts (account_id));
diesel::joinable!(game_actions -> games (game_id));

diesel::allow_tables_to_appear_in_same_query!(accounts, games, game_seats, game_actions, outbox);
