import { type Kysely, sql } from "kysely";
import { compiledOnce } from "../compiled-once.js";
import type { Database } from "../schema.js";
import { capabilitiesOf } from "../storage-handles.js";
import { bumpStatusCounter } from "./statuses.js";

/** A favourite as it is stored: from this server (no URI) or from another (its Like's id). */
export interface NewFavourite {
  readonly id: string;
  readonly accountId: string;
  readonly statusId: string;
  readonly uri: string | null;
}

/**
 * Stores a favourite and counts it on its post, unless the account already
 * favourited the post; true when it was stored. One statement where the engine
 * writes in a `with` (`StorageCapabilities.writingWith`), two elsewhere: every
 * like, from here or from another server, comes through here.
 */
export async function addFavourite(db: Kysely<Database>, favourite: NewFavourite, now: string): Promise<boolean> {
  const args = { ...favourite, now };
  if (capabilitiesOf(db)?.writingWith) return (await insertCountedFavourite(db, args)).length > 0;
  const inserted = (await insertFavouriteRow(db, args)).length > 0;
  if (inserted) await bumpStatusCounter(db, favourite.statusId, "favourites_count", 1);
  return inserted;
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

// RETURNING tells whether the row was new on both engines.
const insertFavouriteRow = compiledOnce((db, args: FavouriteArgs) => favouriteInsert(db, args).returning("id"));

// The post's row is counted only when the favourite was new: the update reads the rows the insert returned.
const insertCountedFavourite = compiledOnce((db, args: FavouriteArgs) =>
  db
    .with("added", () => favouriteInsert(db, args).returning("status_id"))
    .updateTable("statuses")
    .set({ favourites_count: sql<number>`favourites_count + 1` })
    .where("id", "in", (eb) => eb.selectFrom("added").select("added.status_id"))
    .returning("statuses.id"),
);
