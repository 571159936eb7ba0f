import type { Kysely } from "kysely";
import { acctKey } from "../../domain/accounts.js";
import { type AccountHandleRow, accountsByAcctKeys, accountsByIds } from "./statuses-store.js";
import type { Database } from "../../ports/storage-schema.js";
import type { MentionHandle, MentionTarget } from "./text-formatter.js";

/** Finds (and stores) a remote account by `user@host` over WebFinger; its id, or null. */
export interface RemoteHandleResolver {
  resolve(handle: string): Promise<string | null>;
}

/** Remote handles looked up on their servers, by acct key: the account each names. */
export type LookedUpMentions = ReadonlyMap<string, string>;

/** Unknown remote handles looked up for one status: a status naming more is not a reason to wait for more servers. */
export const MAX_MENTION_LOOKUPS = 10;
/** How long a status waits for the servers of unknown mentions before it is written without them. */
export const MENTION_LOOKUP_TIMEOUT_MS = 5_000;

function keyFor(ownHost: string): (handle: MentionHandle) => string {
  return (handle) => acctKey(handle.username, handle.domain === ownHost ? null : handle.domain);
}

/**
 * As Mastodon does when it writes a status, remote handles this server has
 * never seen are looked up on their servers (and stored), so
 * `@someone@elsewhere` typed for the first time still becomes a mention
 * that reaches them. Done before the status's transaction, since storing an
 * account writes too. A handle whose server does not answer in time stays
 * plain text.
 */
export async function lookUpUnknownMentions(
  db: Kysely<Database>,
  ownHost: string,
  handles: readonly MentionHandle[],
  remote: RemoteHandleResolver | null,
): Promise<LookedUpMentions> {
  const keyOf = keyFor(ownHost);
  const remoteHandles = new Map(handles.filter((handle) => handle.domain !== null && handle.domain !== ownHost).map((h) => [keyOf(h), h]));
  if (remote === null || remoteHandles.size === 0) return new Map();
  const known = new Set((await accountsByAcctKeys(db, [...remoteHandles.keys()])).map((row) => row.acct_key));
  const unknown = [...remoteHandles].filter(([key]) => !known.has(key)).slice(0, MAX_MENTION_LOOKUPS);
  if (unknown.length === 0) return new Map();
  const found = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((done) => {
    timer = setTimeout(done, MENTION_LOOKUP_TIMEOUT_MS);
  });
  const lookups = unknown.map(async ([key, handle]) => {
    const id = await remote.resolve(`${handle.username}@${handle.domain}`).catch(() => null);
    if (id) found.set(key, id);
  });
  await Promise.race([Promise.all(lookups), deadline]);
  clearTimeout(timer);
  // A copy: lookups still running after the deadline must not change what the status was written with.
  return new Map(found);
}

/** The account each handle of a status names: known ones by acct key, and those just looked up (WebFinger may name an actor on another host than the handle's). */
export async function mentionTargets(
  db: Kysely<Database>,
  ownHost: string,
  handles: readonly MentionHandle[],
  lookedUp: LookedUpMentions = new Map(),
  /** Of these accounts, those the author may not see (groups' accounts of secret groups): their handles stay plain text. */
  hidden: (ids: readonly string[]) => Promise<ReadonlySet<string>> = async () => new Set(),
): Promise<(handle: MentionHandle) => MentionTarget | null> {
  const keyOf = keyFor(ownHost);
  const [byAcct, byId] = await Promise.all([accountsByAcctKeys(db, handles.map(keyOf)), accountsByIds(db, [...lookedUp.values()])]);
  const concealed = byAcct.length > 0 ? await hidden(byAcct.map((row) => row.id)) : new Set<string>();
  const byKey = new Map<string, AccountHandleRow>(byAcct.filter((row) => !concealed.has(row.id)).map((row) => [row.acct_key, row]));
  const rows = new Map(byId.map((row) => [row.id, row]));
  for (const [key, id] of lookedUp) {
    const row = rows.get(id);
    if (row && !byKey.has(key)) byKey.set(key, row);
  }
  return (handle) => {
    const row = byKey.get(keyOf(handle));
    return row ? { id: row.id, username: row.username, domain: row.domain, url: row.url } : null;
  };
}
