// Plays one game of every type to the end through a client generated from openapi.yaml by
// openapi-typescript, as a TypeScript program written against the typed models would:
// no casts, no `any`. Run by tests/api/generated.rs, which generates generated/api.d.ts,
// compiles this with `tsc --strict` and runs it with BASE (the server's URL) set. Each game
// is narrowed by its `game_type`, so `view`, `legal_actions`, `options`, `result` and the
// log entries (redacted ones included) have their game's own types.
//
// openapi-fetch stays at 0.14: from 0.15 its answers pass through a `Readable<>` mapping
// that turns tuples (`prefixItems`, as in Kasino's round lines) into plain arrays, so a
// game read from an answer no longer fits the generated `GameResponse` type.
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api.js";

type Schemas = components["schemas"];
type Game = Schemas["GameResponse"];
type AnyAction = Schemas["AnyGameAction"];
type LogEntry = Schemas["LogEntry"];
type GameTypeId = Schemas["GameTypeId"];
type Client = ReturnType<typeof createClient<paths>>;

const BASE = process.env.BASE ?? "http://127.0.0.1:8080";
const MAX_ACTIONS = 20_000;

// A small seeded generator: the same seed plays the same games.
let seed = Number(process.env.SEED ?? "7");
function random(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}

function pick<T>(xs: readonly T[]): T {
  const x = xs[Math.floor(random() * xs.length)];
  if (x === undefined) throw new Error("pick from an empty list");
  return x;
}

function fail(what: string, error: unknown, status: number): never {
  throw new Error(`${what}: HTTP ${status} ${JSON.stringify(error)}`);
}

async function signUp(name: string): Promise<Client> {
  const anon = createClient<paths>({ baseUrl: BASE });
  const email = `${name.toLowerCase()}-${Math.floor(random() * 1e9)}@example.org`;
  const password = "correct horse battery";
  const made = await anon.POST("/api/v1/accounts", { body: { email, name, password } });
  if (made.response.status !== 201) fail("sign-up", made.error, made.response.status);
  const t = await anon.POST("/api/v1/auth/token", { body: { email, password } });
  if (!t.data) fail("token", t.error, t.response.status);
  return createClient<paths>({
    baseUrl: BASE,
    headers: { Authorization: `Bearer ${t.data.access_token}` },
  });
}

// One line about the position, read from each game's own view model: the compiler checks
// every field named here against the game's schema.
function position(g: Game): string {
  switch (g.game_type) {
    case "kasino":
      return g.view
        ? `round ${g.view.round}, ${g.view.table.length} on the table, ${g.view.stock_count} in the stock` +
            (g.options.teams ? ", teams" : "")
        : "open";
    case "crossword-rummy":
      return g.view ? `game ${g.view.game_no}, ${g.view.bag_count} tiles in the bag` : "open";
    case "partners":
      return g.view ? `deal ${g.view.deal}, ${g.view.cards_in_deck} cards in the deck` : "open";
    case "fuldrigger":
      return g.view ? `round ${g.view.round} of ${g.view.rounds}` : "open";
    case "sp4x":
      return g.view ? `age ${g.view.age}, ${g.view.deck_size} cards in the deck` : "open";
    case "space-empires-4x":
      return g.view ? `round ${g.view.round}, turn ${g.view.turn}` : "open";
    case "starfarers":
      return g.view ? `turn ${g.view.turn}, ${g.view.players.length} players` : "open";
    default: {
      // Every game type is handled: a new one fails to compile here.
      const unknown: never = g;
      return JSON.stringify(unknown);
    }
  }
}

// What an action is, from its typed tag (the log's takebacks have none).
function tag(a: AnyAction | LogEntry["action"]): string {
  return "type" in a ? a.type : "takeback";
}

// Kasino's and Crossword Rummy's own actions, as a client for them would read them.
function kasinoCaptures(g: Game): number {
  if (g.game_type !== "kasino") return 0;
  let n = 0;
  for (const a of g.legal_actions) {
    if (a.type === "capture") n += a.cards?.length ?? 0;
  }
  return n;
}

function rummyMelds(g: Game): number {
  if (g.game_type !== "crossword-rummy") return 0;
  return g.legal_actions.filter((a) => a.type === "meld").length;
}

async function getGame(c: Client, id: number): Promise<Game> {
  const r = await c.GET("/api/v1/games/{id}", { params: { path: { id } } });
  if (!r.data) fail("get game", r.error, r.response.status);
  return r.data;
}

async function readLog(c: Client, id: number): Promise<LogEntry[]> {
  const r = await c.GET("/api/v1/games/{id}/log", { params: { path: { id } } });
  if (!r.data) fail("log", r.error, r.response.status);
  return r.data;
}

async function play(gameType: GameTypeId, players: number): Promise<string> {
  const clients: Client[] = [];
  for (let i = 0; i < players; i++) clients.push(await signUp(`P${i}`));
  const spectator = await signUp("Watcher");
  const first = clients[0];
  if (!first) throw new Error("no players");
  const made = await first.POST("/api/v1/games", { body: { game_type: gameType, players } });
  if (!made.data) fail("create", made.error, made.response.status);
  const id = made.data.id;
  for (const c of clients.slice(1)) {
    const j = await c.POST("/api/v1/games/{id}/join", { params: { path: { id } } });
    if (!j.data) fail("join", j.error, j.response.status);
  }
  const bySeat = new Map<number, Client>();
  for (const c of clients) {
    const g = await getGame(c, id);
    if (g.your_seat === null || g.your_seat === undefined) throw new Error("not seated");
    bySeat.set(g.your_seat, c);
  }
  let g = await getGame(first, id);
  let actions = 0;
  let captures = 0;
  let melds = 0;
  let previewed = false;
  while (g.status !== "finished") {
    if (g.status !== "active") throw new Error(`status ${g.status}`);
    const seat = pick(g.to_act);
    const me = bySeat.get(seat);
    if (!me) throw new Error(`nobody at seat ${seat}`);
    const mine = await getGame(me, id);
    captures += kasinoCaptures(mine);
    melds += rummyMelds(mine);
    // Each game's actions are of its own model, and any of them is a request's action.
    const legal: readonly AnyAction[] = mine.legal_actions;
    const action = pick(legal);
    if (!previewed) {
      const p = await me.POST("/api/v1/games/{id}/preview", {
        params: { path: { id } },
        body: { action },
      });
      if (!p.data) fail("preview", p.error, p.response.status);
      if (p.data.game_type !== gameType) throw new Error(`preview of ${p.data.game_type}`);
      previewed = true;
    }
    const r = await me.POST("/api/v1/games/{id}/actions", {
      params: { path: { id } },
      body: { action, expected_version: mine.version },
    });
    if (!r.data) fail(`${gameType}: ${tag(action)}`, r.error, r.response.status);
    g = r.data;
    actions += 1;
    if (actions >= MAX_ACTIONS) throw new Error(`${gameType} did not finish in ${MAX_ACTIONS} actions`);
  }
  // The log as an outsider sees it: secret actions come as their game's redacted form.
  const log = await readLog(spectator, id);
  let hidden = 0;
  for (const e of log) {
    if (e.game_type !== gameType) throw new Error(`a ${e.game_type} entry in a ${gameType} log`);
    // A redacted form says so (`redacted: true`), and its words are hidden too.
    if ("redacted" in e.action) {
      if (e.text !== null) throw new Error(`redacted ${tag(e.action)} with its text`);
      hidden += 1;
    }
  }
  const at = await spectator.GET("/api/v1/games/{id}/views/{version}", {
    params: { path: { id, version: 1 } },
  });
  if (!at.data) fail("view at", at.error, at.response.status);
  const summary = g.result ? g.result.summary : "";
  const winners = g.result ? g.result.ranking.filter((p) => p.rank === 1).map((p) => p.seat) : [];
  return (
    `${actions} actions: ${summary} (winners ${winners.join(", ")}; ${position(g)}; ` +
    `${log.length} log entries, ${hidden} redacted for a spectator` +
    (captures ? `; ${captures} capturable cards offered` : "") +
    (melds ? `; ${melds} melds offered` : "") +
    ")"
  );
}

async function main(): Promise<void> {
  const anon = createClient<paths>({ baseUrl: BASE });
  const types = await anon.GET("/api/v1/game-types");
  if (!types.data) fail("game types", types.error, types.response.status);
  if (types.data.length !== 7) throw new Error(`${types.data.length} game types`);
  const only = process.env.ONLY;
  for (const t of types.data) {
    if (only && t.id !== only) continue;
    const players = Math.min(...t.player_counts);
    const text = await play(t.id, players);
    console.log(`${t.id}: finished after ${text}`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
