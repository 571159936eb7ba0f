import { type Kysely, sql } from "kysely";
import { compiledOnce } from "../compiled-once.js";
import type { Database } from "../schema.js";
import { capabilitiesOf } from "../storage-handles.js";
import { reachedAccounts } from "./notifications.js";
import { readFlag } from "./status-columns.js";
import { bumpStatusCounter } from "./statuses.js";

/** A favourite as it is stored: from this server (no URI) or from another (its Like's id). */
export interface NewFavourite {
  readonly id: string;
  readonly accountId: string;
  readonly statusId: string;
  readonly uri: string | null;
}

/** A favourite stored anew. */
export interface AddedFavourite {
  /**
   * Whether a notification of it reaches the post's author by the rules of `recipientsReached` (no block or mute
   * between them, no muted conversation), checked by the statement that stored it: the notification needs no read
   * of its own.
   */
  readonly reachesAuthor: boolean;
}

/**
 * Stores a favourite and counts it on its post, unless the account already
 * favourited the post; null when it was not stored. One statement where the
 * engine writes in a `with` (`StorageCapabilities.writingWith`), two
 * elsewhere: every like, from here or from another server, comes through here.
 */
export async function addFavourite(db: Kysely<Database>, favourite: NewFavourite, now: string): Promise<AddedFavourite | null> {
  const args = { ...favourite, now };
  if (capabilitiesOf(db)?.writingWith) return addedOf(await insertCountedFavourite(db, args));
  const added = addedOf(await insertFavouriteRow(db, args));
  if (added) await bumpStatusCounter(db, favourite.statusId, "favourites_count", 1);
  return added;
}

function addedOf(rows: readonly { reaches_author: unknown }[]): AddedFavourite | null {
  const [row] = rows;
  return row ? { reachesAuthor: readFlag(row.reaches_author) } : null;
}

/**
 * Removes the account's favourite that `match` names (by its Like's id, or by its post) and takes it off its post's
 * count; the post it was of, or null when there was none. Both a favourite undone here and a Like undone by another
 * server come through here.
 */
export async function removeFavourite(
  db: Kysely<Database>,
  accountId: string,
  match: { readonly uri: string } | { readonly statusId: string },
): Promise<string | null> {
  const [row] = await db
    .deleteFrom("favourites")
    .where("account_id", "=", accountId)
    .where((eb) => ("uri" in match ? eb("uri", "=", match.uri) : eb("status_id", "=", match.statusId)))
    .returning("status_id")
    .execute();
  if (!row) return null;
  await bumpStatusCounter(db, row.status_id, "favourites_count", -1);
  return row.status_id;
}

interface FavouriteArgs extends NewFavourite {
  readonly now: string;
  readonly [key: string]: string | null;
}

const favouriteInsert = (db: Kysely<Database>, args: FavouriteArgs) =>
  db
    .insertInto("favourites")
    .values({ id: args.id, account_id: args.accountId, status_id: args.statusId, uri: args.uri, created_at: args.now })
    .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing());

/** Whether the favourite's notification reaches the liked post's author: read by the statement that stores it. */
const reachesAuthor = (db: Kysely<Database>, args: FavouriteArgs) =>
  reachedAccounts(db, { fromId: args.accountId, conversationOf: args.statusId, now: args.now }).where(
    "recipient.id",
    "=",
    db.selectFrom("statuses as liked").select("liked.account_id").where("liked.id", "=", args.statusId),
  );

// RETURNING tells whether the row was new on both engines.
const insertFavouriteRow = compiledOnce((db, args: FavouriteArgs) =>
  favouriteInsert(db, args).returning((eb) => eb.exists(reachesAuthor(db, args)).as("reaches_author")),
);

// The post's row is counted only when the favourite was new: the update reads the rows the insert returned.
const insertCountedFavourite = compiledOnce((db, args: FavouriteArgs) =>
  db
    .with("added", () => favouriteInsert(db, args).returning("status_id"))
    .updateTable("statuses")
    .set({ favourites_count: sql<number>`favourites_count + 1` })
    .where("id", "in", (eb) => eb.selectFrom("added").select("added.status_id"))
    .returning((eb) => eb.exists(reachesAuthor(db, args)).as("reaches_author")),
);
