// The inbox benchmark's activities, as the load generator (inbox-load.mjs) and
// the in-process measurement (inbox-in-process.mjs) send them: half
// Create(Note), half Like of a local post when like targets are given, from
// the remote actors of bench/lib/remote-hosts.mjs, signed (draft-cavage,
// RSA-SHA256) for a POST to `path` on `host`.

import { importBuilt } from "./built.mjs";
import { signedHeaders } from "./http-signature.mjs";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
/** Hosts the activities come from, and actors on each (remote-hosts.mjs serves 10 on each host). */
const INBOX_HOSTS = 10;
const ACTORS_PER_HOST = 10;

/** The actors activities come from: 10 on each of the first 10 of `hosts` (origins), their keys dealt in turn. */
export function inboxActors(hosts, keyCount) {
  return hosts
    .slice(0, INBOX_HOSTS)
    .flatMap((origin) => Array.from({ length: ACTORS_PER_HOST }, (_, a) => `${origin}/users/a${a}`))
    .map((id, i) => ({ id, key: i % keyCount }));
}

/** The URLs (on `origin`) of the newest `count` public posts of local accounts: what the Likes are of. */
export async function likeTargetUrls(db, origin, count) {
  const rows = await db
    .selectFrom("statuses")
    .innerJoin("accounts", "accounts.id", "statuses.account_id")
    .select(["statuses.id", "accounts.username"])
    .where("statuses.visibility", "=", "public")
    .where("accounts.domain", "is", null)
    .orderBy("statuses.id", "desc")
    .limit(count)
    .execute();
  return rows.map((row) => `${origin}/users/${row.username}/statuses/${row.id}`);
}

/**
 * Activity `i` of a run tagged `tag` (ids differ from run to run), its body and signed headers.
 * `actors`: [{ id, key }], `key` an index into `privateKeys` (KeyObjects).
 */
export function signedActivity({ host, path, tag, actors, privateKeys, likeTargets }, i) {
  const actor = actors[i % actors.length];
  const published = new Date().toISOString();
  const like = likeTargets.length > 0 && i % 2 === 1;
  const document = like
    ? {
        "@context": "https://www.w3.org/ns/activitystreams",
        id: `${actor.id}/bench-likes/${tag}-${i}`,
        type: "Like",
        actor: actor.id,
        object: likeTargets[Math.floor(i / 2) % likeTargets.length],
      }
    : {
        "@context": "https://www.w3.org/ns/activitystreams",
        id: `${actor.id}/bench-activities/${tag}-${i}`,
        type: "Create",
        actor: actor.id,
        published,
        to: [PUBLIC],
        cc: [`${actor.id}/followers`],
        object: {
          id: `${actor.id}/bench-notes/${tag}-${i}`,
          type: "Note",
          attributedTo: actor.id,
          content: `<p>Inbox benchmark note ${i} from a remote actor, with a few words of text.</p>`,
          published,
          to: [PUBLIC],
          cc: [`${actor.id}/followers`],
        },
      };
  const body = JSON.stringify(document);
  const headers = signedHeaders({ host, path, body, keyId: `${actor.id}#main-key`, privateKey: privateKeys[actor.key] });
  return { body, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } };
}

/**
 * Rows of `table` made since `sinceMs` (ids begin with their time, so this is a range of the primary key) whose
 * `column` matches `pattern`: a scan of the run's rows, not of a million seeded ones, which took 150-480 ms a count
 * on the large dataset and made the last count's answer late by as much.
 */
async function countSince(db, table, kind, sinceMs, column, pattern) {
  const { lowestIdAt } = await importBuilt("@kith/core");
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as("n"))
    .where("id", ">=", lowestIdAt(kind, Math.floor(sinceMs)))
    .where(column, "like", pattern)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Activities of the run tagged `tag`, sent from `sinceMs` on, that landed: notes stored from its Creates plus
 * favourites stored from its Likes.
 */
export async function landedActivities(db, tag, sinceMs) {
  return (
    (await countSince(db, "statuses", "status", sinceMs, "uri", `%/bench-notes/${tag}-%`)) +
    (await countSince(db, "favourites", "favourite", sinceMs, "uri", `%/bench-likes/${tag}-%`))
  );
}
