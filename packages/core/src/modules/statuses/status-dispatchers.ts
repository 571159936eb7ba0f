import type { Federation, RequestContext } from "@fedify/fedify";
import { Activity, Object as APObject } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import type { AccountRow, Database, StatusRow } from "../../ports/storage-schema.js";
import { findStatusOf } from "../federation/federation-reads-store.js";
import { mayFetchStatus } from "./status-fetch-access.js";
import { countPublicReplies, listPublicReplies } from "./status-object-reads-store.js";
import { statusUriOf } from "./notes.js";
import { type StatusObjectSource, loadStatusObjects } from "./status-objects.js";
import { STATUS_ACTIVITY_PATH, STATUS_REPLIES, STATUS_REPLIES_PATH } from "./status-paths.js";

export interface StatusDispatcherDeps {
  readonly db: Kysely<Database>;
  readonly statusObjects: StatusObjectSource;
  /** The local account an actor identifier names, or null. */
  readonly accountFor: (identifier: string) => Promise<AccountRow | null>;
}

type Ctx = RequestContext<FederationContextData>;

/** Replies listed a page. */
const REPLIES_PAGE_SIZE = 40;

/**
 * Serves what a local status's object points to beside itself: the activity
 * of its id with `/activity` (the Create delivered to followers, or the
 * Announce of a boost) and the collection of its replies. Served to whoever may fetch the status itself (anyone
 * for public and unlisted ones, a signed fetch of an allowed actor for the
 * rest, see `mayFetchStatus`); others get 404, as from its object.
 */
export function dispatchStatusActivities(federation: Federation<FederationContextData>, deps: StatusDispatcherDeps): void {
  const { db } = deps;

  async function statusAt(ctx: Ctx, values: { identifier: string; id: string }): Promise<StatusRow | null> {
    const account = await deps.accountFor(values.identifier);
    if (!account) return null;
    const status = await findStatusOf(db, account.id, values.id);
    return status && (await mayFetchStatus(db, status, ctx.data.fetchSigner)) ? status : null;
  }

  federation.setObjectDispatcher(Activity, STATUS_ACTIVITY_PATH, async (ctx, values) => {
    const status = await statusAt(ctx, values);
    if (!status) return null;
    return (await loadStatusObjects(deps.statusObjects, [status])).activityOf(status);
  });

  /** A status that can have replies listed: an original one (a boost has none of its own). */
  async function repliedAt(ctx: Ctx, values: { identifier: string; id: string }): Promise<StatusRow | null> {
    const status = await statusAt(ctx, values);
    return status && status.reblog_of_id === null ? status : null;
  }

  federation
    // Items are the replies' ids: Fedify lists a URL item as it is (its collection items may be objects or URLs).
    .setCollectionDispatcher(STATUS_REPLIES, APObject, STATUS_REPLIES_PATH, async (ctx, values, cursor) => {
      // Without a cursor the collection lists no items itself: it links its first page (setFirstCursor).
      if (cursor === null) return null;
      const status = await repliedAt(ctx, values);
      if (!status) return null;
      const rows = await listPublicReplies(db, status.id, { ...(cursor !== "" && { afterId: cursor }), limit: REPLIES_PAGE_SIZE });
      const origin = deps.statusObjects.origin;
      const uris = rows.flatMap((row) => {
        const uri = statusUriOf(origin, row, { username: row.username, domain: row.domain, uri: null });
        return uri ? [new URL(uri)] : [];
      });
      const last = rows.at(-1);
      return {
        items: uris as unknown as APObject[],
        nextCursor: rows.length === REPLIES_PAGE_SIZE && last ? last.id : null,
      };
    })
    .setCounter(async (ctx, values) => {
      const status = await repliedAt(ctx, values);
      return status ? countPublicReplies(db, status.id) : null;
    })
    .setFirstCursor(async (ctx, values) => ((await repliedAt(ctx, values)) ? "" : null));
}
