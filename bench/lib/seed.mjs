// Deterministic datasets for the benchmark, written straight into a migrated
// database through Kysely (the same on SQLite and PostgreSQL). The same size
// and seed give the same rows, ids and tokens on every run.

import { createHash } from "node:crypto";
import { sql } from "kysely";

export const SIZES = {
  small: { accounts: 1_000, posts: 20_000 },
  medium: { accounts: 10_000, posts: 200_000 },
  large: { accounts: 100_000, posts: 1_000_000 },
};

/** Readers whose home timelines are read, and posters whose posts fan out, by how many they follow or are followed by. */
export const READERS = [50, 2_000];
export const FAN_OUTS = [10, 1_000, 10_000];
/** The members of the group whose timeline is read (as many as the dataset has accounts, when fewer). */
export const GROUP_MEMBERS = 10_000;
/** Public calendar events, and how many of them the first reader takes part in (a full `/events/my` page of 40). */
const EVENTS = 500;
const EVENTS_JOINED = 50;
/** Every this many posts of a member is posted in the group. */
const GROUP_POST_EVERY = 20;
/** Every other account follows this many others, so the follows table has the size of a real server's. */
const BACKGROUND_FOLLOWS = 5;
const DAY_MS = 86_400_000;
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const WORDS = (
  "the of and to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when your can said there use an each which she do how their if will up other about out many then them these so some her would make like him into time has look two more write go see number no way could people my than first water been call who oil its now find long down day did get come made may part " +
  "garden river morning coffee window letter music winter market bridge forest harbour island lantern meadow orchard pebble quiet rain sunlight thunder valley whistle yellow zephyr kith federated timeline benchmark"
).split(" ");
const TAGS = ["kith", "bench", "fediverse", "gardening", "music", "photography", "cats", "news"];

/** mulberry32: a small, fast generator whose sequence is fixed by its seed. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function encodeTime(ms) {
  let out = "";
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** An id in Kith's shape (`<prefix>_<time><random>`), deterministic from `n`. */
function makeId(prefix, ms, n) {
  let tail = "";
  let x = n + 1;
  for (let i = 0; i < 16; i++) {
    tail = ALPHABET[x % 32] + tail;
    x = Math.floor(x / 32);
  }
  return `${prefix}_${encodeTime(ms)}${tail}`;
}

export function tokenFor(name) {
  return `bench-${name}-${createHash("sha256").update(name).digest("base64url").slice(0, 32)}`;
}

function sha256(text) {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** A session of the benchmark's client: a bearer token that never expires, with every scope it uses. */
function sessionRow(id, accountId, token, nowIso) {
  return {
    id,
    account_id: accountId,
    app_id: null,
    token_hash: sha256(token),
    refresh_token_hash: null,
    scopes: "read write follow push",
    user_agent: "kith-bench",
    ip: null,
    created_at: nowIso,
    last_used_at: null,
    expires_at: null,
    revoked_at: null,
  };
}

/** Multi-row inserts of as many rows as fit in 30 000 parameters (SQLite allows 32 766 a statement), 2 000 at most. */
async function insertAll(db, table, rows) {
  if (rows.length === 0) return;
  const batch = Math.min(2_000, Math.floor(30_000 / Object.keys(rows[0]).length));
  for (let i = 0; i < rows.length; i += batch)
    await db
      .insertInto(table)
      .values(rows.slice(i, i + batch))
      .execute();
}

/**
 * Fills `storage` (migrated, empty) with a dataset of `size`. Returns what
 * the scenarios need: tokens of the special accounts and the ids they read.
 */
export async function seed(storage, sizeName, { now = Date.UTC(2026, 10, 1), log = () => {} } = {}) {
  const size = SIZES[sizeName];
  const random = prng(0x6b697468);
  const db = storage.db;
  const iso = (ms) => new Date(ms).toISOString();
  const start = now - 60 * DAY_MS;
  const userRole = await db.selectFrom("roles").select("id").where("name", "=", "User").where("scope", "=", "global").executeTakeFirst();

  // Accounts 0..N-1; the special ones come first so every size has them.
  const specials = [...READERS.map((n) => `reader${n}`), ...FAN_OUTS.map((n) => `fan${n}`)];
  const accounts = [];
  for (let i = 0; i < size.accounts; i++) {
    const username = specials[i] ?? `user${i}`;
    accounts.push({ id: makeId("us", start + i, i), username });
  }
  const counts = accounts.map(() => ({ statuses: 0, followers: 0, following: 0, last: null }));

  // Follows: background ones, then the readers' and the fan-out posters' followers.
  const follows = new Map();
  const follow = (from, to) => {
    if (from === to) return;
    const key = `${from}:${to}`;
    if (follows.has(key)) return;
    follows.set(key, [from, to]);
    counts[from].following++;
    counts[to].followers++;
  };
  const pool = size.accounts - specials.length;
  // Background follows stay among ordinary accounts, so the special ones have exactly the counts they are named for.
  for (let i = specials.length; i < size.accounts; i++) {
    for (let k = 0; k < BACKGROUND_FOLLOWS; k++) follow(i, specials.length + Math.floor(random() * pool));
  }
  READERS.forEach((n, r) => {
    const wanted = Math.min(n, pool);
    for (let k = 0; k < wanted; k++) follow(r, specials.length + ((k * 7919) % pool));
  });
  FAN_OUTS.forEach((n, f) => {
    const poster = READERS.length + f;
    const wanted = Math.min(n, pool);
    for (let k = 0; k < wanted; k++) follow(specials.length + ((k * 104_729) % pool), poster);
  });

  // Posts, oldest first, so ids ascend with time; authors skewed towards a few prolific accounts.
  // Who wrote what is drawn up front (compact arrays); texts are made chunk by chunk, so a
  // million posts never sit in memory at once.
  const span = now - start;
  const authors = new Int32Array(size.posts);
  const visibilities = new Uint8Array(size.posts);
  const tagOf = new Int8Array(size.posts);
  for (let n = 0; n < size.posts; n++) {
    const author = Math.floor(random() ** 2 * size.accounts);
    authors[n] = author;
    visibilities[n] = random() < 0.85 ? 0 : random() < 0.5 ? 1 : 2;
    tagOf[n] = random() < 0.1 ? Math.floor(random() * TAGS.length) : -1;
    counts[author].statuses++;
    counts[author].last = start + Math.floor((n / size.posts) * span);
  }
  const VISIBILITIES = ["public", "unlisted", "private"];
  const textRandom = prng(0x706f7374);
  const postAt = (n) => start + Math.floor((n / size.posts) * span);
  const postId = (n) => makeId("st", postAt(n), n);
  const makePost = (n) => {
    const words = [];
    const length = 8 + Math.floor(textRandom() * 30);
    for (let w = 0; w < length; w++) words.push(WORDS[Math.floor(textRandom() * WORDS.length)]);
    if (tagOf[n] >= 0) words.push(`#${TAGS[tagOf[n]]}`);
    return { n, id: postId(n), author: authors[n], ms: postAt(n), text: words.join(" "), visibility: VISIBILITIES[visibilities[n]] };
  };

  log(`seeding ${size.accounts} accounts, ${follows.size} follows, ${size.posts} posts`);
  const nowIso = iso(now);
  await storage.transaction(async (trx) => {
    await insertAll(
      trx,
      "accounts",
      accounts.map((a, i) => ({
        id: a.id,
        username: a.username,
        domain: null,
        acct_key: a.username.toLowerCase(),
        display_name: `Bench ${a.username}`,
        note: "",
        actor_type: "Person",
        locked: false,
        discoverable: true,
        uri: null,
        url: null,
        created_at: iso(start + i),
        updated_at: iso(start + i),
        suspended_at: null,
        silenced_at: null,
        sensitized_at: null,
        statuses_count: counts[i].statuses,
        followers_count: counts[i].followers,
        following_count: counts[i].following,
        last_status_at: counts[i].last === null ? null : iso(counts[i].last),
      })),
    );
    await insertAll(
      trx,
      "users",
      accounts.map((a, i) => ({
        account_id: a.id,
        email: `${a.username}@bench.test`,
        email_confirmed_at: iso(start + i),
        password_hash: null,
        approved: true,
        disabled_at: null,
        locale: null,
        created_at: iso(start + i),
        updated_at: iso(start + i),
      })),
    );
    if (userRole) {
      await insertAll(
        trx,
        "actor_roles",
        accounts.slice(0, specials.length).map((a) => ({ actor_id: a.id, role_id: userRole.id, created_at: nowIso, updated_at: nowIso })),
      );
    }
  });
  let f = 0;
  const followRows = [...follows.values()].map(([from, to]) => ({
    id: makeId("fo", start + f, f++),
    account_id: accounts[from].id,
    target_account_id: accounts[to].id,
    follower_local: true,
    show_reblogs: true,
    notify: false,
    languages: null,
    uri: null,
    created_at: nowIso,
    updated_at: nowIso,
  }));
  for (let i = 0; i < followRows.length; i += 20_000) {
    await storage.transaction((trx) => insertAll(trx, "follows", followRows.slice(i, i + 20_000)));
  }

  const tagIds = new Map(TAGS.map((name, i) => [name, makeId("tg", start, i)]));
  await insertAll(
    db,
    "tags",
    TAGS.map((name) => ({ id: tagIds.get(name), name, display_name: name, created_at: nowIso, updated_at: nowIso })),
  );
  // Home feeds of the readers are filled as fan-out on write would have left them.
  const readerFollows = READERS.map((_, r) => new Set([...follows.values()].filter(([from]) => from === r).map(([, to]) => to)));
  const CHUNK = 10_000;
  for (let first = 0; first < size.posts; first += CHUNK) {
    const chunk = [];
    for (let n = first; n < Math.min(size.posts, first + CHUNK); n++) chunk.push(makePost(n));
    await storage.transaction(async (trx) => {
      await insertAll(
        trx,
        "statuses",
        chunk.map((s) => ({
          id: s.id,
          account_id: accounts[s.author].id,
          uri: null,
          url: null,
          local: true,
          text: s.text,
          content: `<p>${s.text}</p>`,
          visibility: s.visibility,
          language: "en",
          created_at: iso(s.ms),
          updated_at: iso(s.ms),
        })),
      );
      const tagged = chunk.filter((s) => tagOf[s.n] >= 0).map((s) => ({ tag_id: tagIds.get(TAGS[tagOf[s.n]]), status_id: s.id }));
      if (tagged.length) await insertAll(trx, "status_tags", tagged);
      const feed = READERS.flatMap((_, r) =>
        chunk
          .filter((s) => s.author === r || readerFollows[r].has(s.author))
          .map((s) => ({
            account_id: accounts[r].id,
            status_id: s.id,
            author_id: accounts[s.author].id,
            reblog_of_id: null,
            created_at: iso(s.ms),
          })),
      );
      if (feed.length) await insertAll(trx, "home_feed", feed);
    });
    if ((first / CHUNK) % 20 === 0) log(`  posts ${first + chunk.length}/${size.posts}`);
  }

  // A group of GROUP_MEMBERS members (the first accounts, the readers among them) and its account, as the groups
  // module writes them; every GROUP_POST_EVERY-th public post of a member is posted in it.
  const groupId = makeId("gr", start, 0);
  const members = Math.min(GROUP_MEMBERS, size.accounts);
  const groupPosts = [];
  for (let n = 0; n < size.posts; n++) {
    if (n % GROUP_POST_EVERY === 0 && authors[n] < members && visibilities[n] === 0) groupPosts.push(n);
  }
  await storage.transaction(async (trx) => {
    const shown = { display_name: "Bench group", note: "", created_at: iso(start), updated_at: iso(start) };
    await insertAll(trx, "groups", [
      {
        id: groupId,
        name: "benchgroup",
        name_key: "benchgroup",
        join_mode: "OPEN",
        secret: false,
        discoverable: true,
        members_count: members,
        statuses_count: groupPosts.length,
        ...shown,
      },
    ]);
    await insertAll(trx, "accounts", [
      {
        id: groupId,
        username: "benchgroup",
        domain: null,
        acct_key: "benchgroup",
        actor_type: "Group",
        locked: false,
        discoverable: true,
        uri: null,
        url: null,
        suspended_at: null,
        silenced_at: null,
        statuses_count: groupPosts.length,
        followers_count: members,
        ...shown,
      },
    ]);
    const memberRows = [];
    for (let i = 0; i < members; i++)
      memberRows.push({ id: makeId("gm", start + i, i), group_id: groupId, account_id: accounts[i].id, joined_at: iso(start + i) });
    await insertAll(trx, "group_members", memberRows);
    await insertAll(
      trx,
      "group_statuses",
      groupPosts.map((n) => ({ status_id: postId(n), group_id: groupId, account_id: accounts[authors[n]].id, created_at: iso(postAt(n)) })),
    );
  });

  // Calendar events, as the events module writes them: public ones organized by the pool's accounts, ahead of any
  // run's clock (the server reads the real time); the first reader takes part in EVENTS_JOINED of them.
  const eventRows = [];
  const participants = [];
  const eventStart = Date.UTC(2030, 0, 1);
  for (let k = 0; k < EVENTS; k++) {
    const organizer = accounts[specials.length + ((k * 17) % pool)].id;
    const at = iso(eventStart + k * 3_600_000);
    eventRows.push({
      id: makeId("ev", start + k, k),
      organizer_id: organizer,
      group_id: null,
      title: k % 4 === 0 ? `Lantern walk ${k}` : `Meetup ${k}`,
      description: "<p>A benchmark event</p>",
      starts_at: at,
      ends_at: iso(eventStart + k * 3_600_000 + 1_800_000),
      time_zone: "Europe/Paris",
      all_day: false,
      location_name: "Town hall",
      location_address: null,
      latitude: 48.85 + (k % 10) / 100,
      longitude: 2.35,
      online_url: null,
      privacy: "public",
      cancelled_at: null,
      deleted_at: null,
      version: 1,
      created_at: iso(start + k),
      updated_at: iso(start + k),
    });
    if (k % Math.floor(EVENTS / EVENTS_JOINED) === 0 && participants.length < EVENTS_JOINED) {
      participants.push({
        id: makeId("ep", start + k, k),
        event_id: eventRows[k].id,
        account_id: accounts[0].id,
        status: "attending",
        created_at: iso(start + k),
        updated_at: iso(start + k),
      });
    }
  }
  await insertAll(db, "events", eventRows);
  await insertAll(db, "event_participants", participants);

  // Notifications for the first reader: follows and favourites of recent posts.
  const notifications = [];
  for (let k = 0; k < 500; k++) {
    const from = specials.length + ((k * 31) % pool);
    const target = postId(size.posts - 1 - k);
    notifications.push({
      id: makeId("no", now - (500 - k) * 1000, k),
      account_id: accounts[0].id,
      from_account_id: accounts[from].id,
      type: k % 3 === 0 ? "follow" : "favourite",
      status_id: k % 3 === 0 ? null : target,
      group_key: `ungrouped-${k}`,
      read_at: null,
      created_at: iso(now - (500 - k) * 1000),
    });
  }
  await insertAll(db, "notifications", notifications);

  const data = await seedPlatformData(storage, size.posts, { start, span, nowIso, readerId: accounts[0].id, log });

  // Sessions with known tokens for the special accounts.
  const tokens = {};
  await insertAll(
    db,
    "sessions",
    specials.map((name, i) => {
      tokens[name] = tokenFor(name);
      return sessionRow(makeId("se", now, i), accounts[i].id, tokens[name], nowIso);
    }),
  );

  const followersOf = (poster) => [...follows.values()].filter(([, to]) => to === poster).length;
  return {
    size: sizeName,
    counts: { accounts: size.accounts, posts: size.posts, follows: follows.size },
    tokens,
    accountIds: Object.fromEntries(specials.map((name, i) => [name, accounts[i].id])),
    readers: READERS.map((n, r) => ({ name: `reader${n}`, follows: readerFollows[r].size })),
    posters: FAN_OUTS.map((n, f) => ({ name: `fan${n}`, followers: followersOf(READERS.length + f) })),
    profileId: accounts[specials.length].id,
    group: { id: groupId, members, statuses: groupPosts.length },
    searchWord: "lantern",
    tag: "gardening",
    data,
  };
}

/** Tags of the platform data entries; drawn skewed, so that the first are common and the last rare. */
const DATA_TAGS = Array.from({ length: 32 }, (_, i) => `tag${i}`);
/** The tags the benchmark's query AND-s: about 35 % and 20 % of the entries carry them, about 7 % both. */
export const DATA_QUERY_TAGS = ["tag0", "tag1"];

/**
 * `count` platform data entries (the platform's, as many as the dataset has posts: a million on the large one), each
 * with one to three of DATA_TAGS, and a global role holding Data.Manage for the first reader, who queries them.
 */
async function seedPlatformData(storage, count, { start, span, nowIso, readerId, log }) {
  const random = prng(0x64617461);
  const CHUNK = 10_000;
  for (let first = 0; first < count; first += CHUNK) {
    const entries = [];
    const tagRows = [];
    for (let n = first; n < Math.min(count, first + CHUNK); n++) {
      const id = makeId("da", start + Math.floor((n / count) * span), n);
      const tags = [];
      const wanted = 1 + Math.floor(random() * 3);
      for (let k = 0; k < wanted; k++) {
        const tag = DATA_TAGS[Math.floor(random() ** 2 * DATA_TAGS.length)];
        if (!tags.includes(tag)) tags.push(tag);
      }
      entries.push({
        id,
        owner_id: "platform",
        type: n % 4 === 0 ? "event" : "note",
        tags: JSON.stringify(tags),
        content: JSON.stringify({ n, title: `Entry ${n}`, done: n % 3 === 0 }),
        created_at: nowIso,
        updated_at: nowIso,
      });
      for (const tag of tags) tagRows.push({ owner_id: "platform", tag, entry_id: id });
    }
    await storage.transaction(async (trx) => {
      await insertAll(trx, "data_entries", entries);
      await insertAll(trx, "data_entry_tags", tagRows);
    });
    if ((first / CHUNK) % 20 === 0) log(`  data entries ${first + entries.length}/${count}`);
  }
  const roleId = makeId("ro", start, 900_000);
  const db = storage.db;
  await insertAll(db, "roles", [
    { id: roleId, name: "Data bench", description: null, scope: "global", built_in: false, created_at: nowIso, updated_at: nowIso },
  ]);
  await insertAll(db, "role_permissions", [{ role_id: roleId, resource: "Data", access: JSON.stringify(["Add", "Modify", "Delete"]) }]);
  await insertAll(db, "actor_roles", [{ actor_id: readerId, role_id: roleId, created_at: nowIso, updated_at: nowIso }]);
  return { entries: count, tags: DATA_QUERY_TAGS };
}

/**
 * The delivery scenario's audience, added to a seeded database once the other
 * servers are up (their ports are only known then): a local account
 * `deliverer` with a session, followed by `actorsPerHost` remote accounts on
 * each of `hosts` (origins), with their personal and shared inboxes.
 */
export async function addDeliveryAudience(storage, { hosts, actorsPerHost, now = Date.UTC(2026, 10, 1) }) {
  const nowIso = new Date(now).toISOString();
  const local = { id: makeId("us", now, 9_000_000), username: "deliverer" };
  const remote = hosts.flatMap((origin, h) =>
    Array.from({ length: actorsPerHost }, (_, a) => {
      const host = new URL(origin).host;
      const uri = `${origin}/users/a${a}`;
      return {
        id: makeId("us", now, 9_000_001 + h * actorsPerHost + a),
        username: `a${a}`,
        domain: host,
        acct_key: `a${a}@${host}`,
        display_name: `Remote a${a}`,
        note: "",
        actor_type: "Person",
        locked: false,
        discoverable: true,
        uri,
        url: uri,
        inbox_url: `${uri}/inbox`,
        shared_inbox_url: `${origin}/inbox`,
        created_at: nowIso,
        updated_at: nowIso,
        suspended_at: null,
        silenced_at: null,
        sensitized_at: null,
        statuses_count: 0,
        followers_count: 0,
        following_count: 1,
        last_status_at: null,
      };
    }),
  );
  // Actors the inbox scenario made known already are followers as they are.
  const known = new Map(
    (
      await storage.db
        .selectFrom("accounts")
        .select(["id", "uri"])
        .where(
          "uri",
          "in",
          remote.map((account) => account.uri),
        )
        .execute()
    ).map((row) => [row.uri, row.id]),
  );
  for (const account of remote) account.id = known.get(account.uri) ?? account.id;
  const token = tokenFor(local.username);
  await storage.transaction(async (trx) => {
    await insertAll(trx, "accounts", [
      {
        ...remote[0],
        id: local.id,
        username: local.username,
        domain: null,
        acct_key: local.username,
        display_name: "Bench deliverer",
        uri: null,
        url: null,
        inbox_url: null,
        shared_inbox_url: null,
        followers_count: remote.length,
        following_count: 0,
      },
    ]);
    await insertAll(
      trx,
      "accounts",
      remote.filter((account) => !known.has(account.uri)),
    );
    await insertAll(trx, "users", [
      {
        account_id: local.id,
        email: "deliverer@bench.test",
        email_confirmed_at: nowIso,
        password_hash: null,
        approved: true,
        disabled_at: null,
        locale: null,
        created_at: nowIso,
        updated_at: nowIso,
      },
    ]);
    const userRole = await trx.selectFrom("roles").select("id").where("name", "=", "User").where("scope", "=", "global").executeTakeFirst();
    if (userRole)
      await insertAll(trx, "actor_roles", [{ actor_id: local.id, role_id: userRole.id, created_at: nowIso, updated_at: nowIso }]);
    await insertAll(
      trx,
      "follows",
      remote.map((account, i) => ({
        id: makeId("fo", now, 9_000_000 + i),
        account_id: account.id,
        target_account_id: local.id,
        follower_local: false,
        show_reblogs: true,
        notify: false,
        languages: null,
        uri: `${account.uri}/follows/deliverer`,
        created_at: nowIso,
        updated_at: nowIso,
      })),
    );
    await insertAll(trx, "sessions", [sessionRow(makeId("se", now, 9_000_000), local.id, token, nowIso)]);
  });
  // As after seeding (run.mjs): a server in service knows its remote accounts through autovacuum's statistics; a
  // thousand inserted a moment ago are unknown to PostgreSQL's planner, which then took them for one row and joined
  // every remote account to every follow of the deliverer (200 ms for the audience of one post).
  if (storage.capabilities.engine === "postgres") await sql`vacuum analyze accounts, follows`.execute(storage.db);
  return { username: local.username, token, followers: remote.length };
}
