#!/usr/bin/env bash
# The walk-through of src/docs/api.md, "The API in a few requests", as a script that
# really plays a move (a test checks that the guide shows exactly these requests):
#   BASE=http://127.0.0.1:8080 bash tests/readme_requests.sh
# Needs curl and jq. `cargo test` runs it against a test server. The server must make
# accounts at once (TURNPOST_REQUIRE_EMAIL_VERIFICATION=false): where addresses must be
# confirmed, a sign-up waits for the link mailed to the address.
set -euo pipefail
B=${BASE:-http://127.0.0.1:8080}/api/v1
J='content-type: application/json'
n=$RANDOM$RANDOM   # fresh addresses on every run

# 1. Two accounts, and a token for each.
ADA_ID=$(curl -sf $B/accounts -H "$J" \
  -d "{\"email\":\"ada$n@example.org\",\"name\":\"Ada\",\"password\":\"correct horse battery\"}" | jq .id)
curl -sf $B/accounts -H "$J" \
  -d "{\"email\":\"bo$n@example.org\",\"name\":\"Bo\",\"password\":\"correct horse battery\"}" >/dev/null
ADA=$(curl -sf $B/auth/token -H "$J" \
  -d "{\"email\":\"ada$n@example.org\",\"password\":\"correct horse battery\"}" | jq -r .access_token)
BO=$(curl -sf $B/auth/token -H "$J" \
  -d "{\"email\":\"bo$n@example.org\",\"password\":\"correct horse battery\"}" | jq -r .access_token)

# 2. Ada opens a two-player Kasino game; Bo takes the other seat, which starts it.
GAME=$(curl -sf $B/games -H "authorization: Bearer $ADA" -H "$J" \
  -d '{"game_type":"kasino","players":2}' | jq .id)
curl -sf -X POST $B/games/$GAME/join -H "authorization: Bearer $BO" >/dev/null

# 3. Whose turn is it? The seat in to_act, and the account in that seat.
SEAT=$(curl -sf $B/games/$GAME -H "authorization: Bearer $ADA" | jq '.to_act[0]')
MOVER_ID=$(curl -sf $B/games/$GAME -H "authorization: Bearer $ADA" \
  | jq --argjson s "$SEAT" '.seats[] | select(.seat == $s) | .account_id')
if [ "$MOVER_ID" = "$ADA_ID" ]; then MOVER=$ADA; else MOVER=$BO; fi

# 4. The mover's view: the version and the legal actions, each valid as is.
VIEW=$(curl -sf $B/games/$GAME -H "authorization: Bearer $MOVER")
VERSION=$(jq .version <<<"$VIEW")
ACTION=$(jq -c '.legal_actions[0]' <<<"$VIEW")
echo "playing $(jq -r '.legal_action_texts[0]' <<<"$VIEW")"

# 5. Play it, saying which version it was chosen on.
curl -sf $B/games/$GAME/actions -H "authorization: Bearer $MOVER" -H "$J" \
  -d "{\"expected_version\": $VERSION, \"action\": $ACTION}" | jq '{id, version, to_act}'
