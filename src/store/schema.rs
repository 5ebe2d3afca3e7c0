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
        reminders -> Bool,
        time_zone -> Text,
        quiet_from -> Nullable<Int2>,
        quiet_until -> Nullable<Int2>,
        daily_digest -> Bool,
        digest_hour -> Int2,
        last_digest_on -> Nullable<Date>,
        token_generation -> Int4,
        email_verified_at -> Nullable<Timestamptz>,
        email_bouncing_at -> Nullable<Timestamptz>,
        email_bounce_status -> Nullable<Text>,
        bot -> Bool,
        email_failing_at -> Nullable<Timestamptz>,
        deleted_at -> Nullable<Timestamptz>,
        reset_generation -> Int4,
    }
}

diesel::table! {
    game_timeouts (game_id, seat, version) {
        game_id -> Int8,
        seat -> Int4,
        version -> Int8,
        policy -> Text,
        processed_at -> Timestamptz,
    }
}

diesel::table! {
    vacations (id) {
        id -> Int8,
        account_id -> Int8,
        starts_at -> Timestamptz,
        ends_at -> Timestamptz,
        created_at -> Timestamptz,
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
        forfeited -> Array<Int4>,
        time_control -> Nullable<Jsonb>,
        timeout_policy -> Text,
        last_nudge_at -> Nullable<Timestamptz>,
        private -> Bool,
        rematch_id -> Nullable<Int8>,
        rated -> Bool,
        takeback -> Nullable<Jsonb>,
        revision -> Int8,
        deciding -> Array<Int4>,
        computer_paused_until -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    game_seats (game_id, seat) {
        game_id -> Int8,
        seat -> Int4,
        account_id -> Int8,
        joined_at -> Timestamptz,
        clock_ms -> Nullable<Int8>,
        clock_since -> Nullable<Timestamptz>,
        reminders_sent -> Int4,
        muted -> Bool,
        bot -> Bool,
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
        takeback_to -> Nullable<Int8>,
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
        reply_to -> Nullable<Text>,
        in_reply_to -> Nullable<Text>,
        claimed_until -> Nullable<Timestamptz>,
        kind -> Nullable<Text>,
        seat -> Nullable<Int4>,
        version -> Nullable<Int8>,
        detail -> Nullable<Jsonb>,
        message_id -> Nullable<Text>,
        dropped_at -> Nullable<Timestamptz>,
        drop_reason -> Nullable<Text>,
        due_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    inbound_messages (message_id) {
        message_id -> Text,
        from_address -> Text,
        game_id -> Nullable<Int8>,
        outcome -> Text,
        received_at -> Timestamptz,
    }
}

diesel::table! {
    invitations (id) {
        id -> Int8,
        game_id -> Int8,
        email -> Text,
        email_lower -> Text,
        token_hash -> Bytea,
        status -> Text,
        invited_by -> Int8,
        account_id -> Nullable<Int8>,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        answered_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    webhooks (id) {
        id -> Int8,
        account_id -> Int8,
        url -> Text,
        events -> Array<Text>,
        secret -> Text,
        created_at -> Timestamptz,
        receiver -> Text,
        failures -> Int4,
        paused_until -> Nullable<Timestamptz>,
        served_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    webhook_receivers (receiver) {
        receiver -> Text,
        busy_until -> Nullable<Timestamptz>,
        failures -> Int4,
        paused_until -> Nullable<Timestamptz>,
        busy_with -> Nullable<Int8>,
        retry_busy_until -> Nullable<Timestamptz>,
        retry_busy_with -> Nullable<Int8>,
    }
}

diesel::table! {
    ratings (account_id, game_type) {
        account_id -> Int8,
        game_type -> Text,
        rating -> Float8,
        deviation -> Float8,
        volatility -> Float8,
        games_played -> Int4,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    rating_history (game_id, account_id) {
        game_id -> Int8,
        account_id -> Int8,
        game_type -> Text,
        rank -> Int4,
        rating_before -> Float8,
        deviation_before -> Float8,
        volatility_before -> Float8,
        rating_after -> Float8,
        deviation_after -> Float8,
        volatility_after -> Float8,
        rated_at -> Timestamptz,
    }
}

diesel::table! {
    calendar_feeds (account_id) {
        account_id -> Int8,
        secret -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    invitation_sends (id) {
        id -> Int8,
        inviter_id -> Int8,
        email_lower -> Text,
        invitation_id -> Nullable<Int8>,
        sent_at -> Timestamptz,
    }
}

diesel::table! {
    sign_ups (email_lower) {
        email_lower -> Text,
        email -> Text,
        name -> Text,
        password_hash -> Text,
        token_hash -> Bytea,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    chat_messages (id) {
        id -> Int8,
        game_id -> Int8,
        account_id -> Int8,
        seat -> Int4,
        channel -> Text,
        team -> Nullable<Int4>,
        body -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    chat_email_replies (game_id, message_hash) {
        game_id -> Int8,
        message_hash -> Bytea,
    }
}

diesel::table! {
    chat_mutes (account_id, muted_id) {
        account_id -> Int8,
        muted_id -> Int8,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    chat_reports (id) {
        id -> Int8,
        message_id -> Int8,
        reporter_id -> Int8,
        reason -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    chat_reads (account_id, game_id) {
        account_id -> Int8,
        game_id -> Int8,
        last_read_id -> Int8,
    }
}

diesel::table! {
    chat_mailed (account_id, game_id) {
        account_id -> Int8,
        game_id -> Int8,
        last_mailed_id -> Int8,
    }
}

diesel::joinable!(game_seats -> games (game_id));
diesel::table! {
    seat_replacements (game_id, seat) {
        game_id -> Int8,
        seat -> Int4,
        left_account_id -> Int8,
        offered_by -> Int8,
        offered_at -> Timestamptz,
        replacement_id -> Nullable<Int8>,
        taken_at -> Nullable<Timestamptz>,
        taken_at_version -> Nullable<Int8>,
        left_on_time -> Bool,
    }
}

diesel::joinable!(seat_replacements -> games (game_id));
diesel::table! {
    game_notes (game_id, account_id) {
        game_id -> Int8,
        account_id -> Int8,
        body -> Text,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    game_requirements (game_id) {
        game_id -> Int8,
        min_reliability -> Nullable<Int4>,
        min_rating -> Nullable<Int4>,
    }
}

diesel::table! {
    computer_moves (account_id, hour) {
        account_id -> Int8,
        hour -> Timestamptz,
        moves -> Int4,
    }
}

diesel::joinable!(game_notes -> games (game_id));
diesel::joinable!(game_requirements -> games (game_id));
diesel::joinable!(chat_messages -> games (game_id));
diesel::joinable!(chat_reports -> chat_messages (message_id));
diesel::joinable!(invitation_sends -> invitations (invitation_id));
diesel::joinable!(invitations -> games (game_id));
diesel::joinable!(game_seats -> accounts (account_id));
diesel::joinable!(game_actions -> games (game_id));
diesel::joinable!(vacations -> accounts (account_id));
diesel::joinable!(ratings -> accounts (account_id));
diesel::joinable!(rating_history -> accounts (account_id));
diesel::joinable!(webhooks -> accounts (account_id));
diesel::joinable!(calendar_feeds -> accounts (account_id));
diesel::joinable!(computer_moves -> accounts (account_id));

diesel::allow_tables_to_appear_in_same_query!(
    accounts,
    games,
    game_seats,
    game_actions,
    outbox,
    inbound_messages,
    game_timeouts,
    vacations,
    invitations,
    invitation_sends,
    ratings,
    rating_history,
    webhooks,
    webhook_receivers,
    calendar_feeds,
    sign_ups,
    chat_messages,
    chat_mutes,
    chat_reports,
    chat_reads,
    chat_mailed,
    game_notes,
    game_requirements,
    seat_replacements
);
