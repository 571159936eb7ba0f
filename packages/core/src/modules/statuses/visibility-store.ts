import { type Expression, type Kysely, type SqlBool, sql } from "kysely";
import { existsFence } from "../../platform/storage/exists-fence.js";
import type { Database, Visibility } from "../../ports/storage-schema.js";

/**
 * The one place that decides who may see a status. Every path that shows statuses
 * (the status itself, its context, timelines, search, notifications, streaming)
 * goes through one of these, so the rules cannot drift apart:
 *
 * - `public` and `unlisted`: everyone, guests included (unlisted statuses are
 *   left out of public timelines and search by those lists, not here);
 * - `private`: the author, the author's followers (`follows`) and the
 *   accounts mentioned in it;
 * - `direct`: the author and the accounts mentioned in it, and the members
 *   of its closed audience if it has one (`status_audiences`, a secret
 *   group's statuses);
 * - a block in either direction between viewer and author hides the status;
 * - statuses of suspended authors are hidden from everyone.
 *
 * A boost is a status of its own whose visibility is checked like any other;
 * callers showing a boost must also check the boosted status (StatusViews does,
 * and `visibleTo(viewerId, "boosted")` over a joined alias does in SQL).
 *
 * Signatures:
 *
 *   visibleTo(viewerId: Viewer, table = "statuses", db?, options?): Expression<SqlBool>
 *     A WHERE condition over the statuses table (or an alias of it), for list
 *     queries: `db.selectFrom("statuses").where(visibleTo(viewerId, "statuses", db))`.
 *     Given the handle, each check is written as that engine probes it per
 *     status (platform/storage/exists-fence.ts); without it, the results are the same.
 *     A caller that joins each status's author only when not suspended, and
 *     drops the statuses without one, says so (`authorJoinedActive`).
 *
 *   visibleStatusIds(db, ids: readonly string[], viewerId: string | null): Promise<Set<string>>
 *     Which of `ids` the viewer may see, in one query.
 *
 *   isVisibleTo(db, id: string, viewerId: string | null): Promise<boolean>
 *     The row check for one status.
 *
 *   mayView(status: VisibilityFacts, viewerId: string | null): boolean
 *     The same rule over facts already loaded (no queries), for code that
 *     holds the relationships in memory (streaming fan-out).
 */

export const PUBLIC_VISIBILITIES: readonly Visibility[] = ["public", "unlisted"];

export function isVisibility(value: string): value is Visibility {
  return value === "public" || value === "unlisted" || value === "private" || value === "direct";
}

/**
 * Who looks: an account's id, a guest (null), or a column of the statement that names the account (when one
 * statement reads for several viewers, each row for its own).
 */
export type Viewer = string | null | Expression<string>;

/** How a caller of `visibleTo` has the rules applied. */
export interface VisibilityOptions {
  /**
   * The caller joins each status's author as `suspended_at is null` and leaves out the statuses it finds no author for,
   * so the rule on suspended authors is not checked again here (a second probe of the same account a status).
   */
  readonly authorJoinedActive?: boolean;
}

/**
 * A WHERE condition over `table` (the statuses table or an alias of it) holding the rules above for `viewerId`,
 * each check written as `db`'s engine probes it once per status.
 */
export function visibleTo(
  viewerId: Viewer,
  table = "statuses",
  db?: Kysely<Database>,
  options: VisibilityOptions = {},
): Expression<SqlBool> {
  const id = sql.ref(`${table}.id`);
  const author = sql.ref(`${table}.account_id`);
  const visibility = sql.ref(`${table}.visibility`);
  const fence = existsFence(db);
  const authorActive = options.authorJoinedActive
    ? sql<SqlBool>`${sql.lit(true)}`
    : sql<SqlBool>`exists (select 1 from accounts vis_a where vis_a.id = ${author} and vis_a.suspended_at is null${fence})`;
  if (viewerId === null) {
    return sql<SqlBool>`(${visibility} in ('public', 'unlisted') and ${authorActive})`;
  }
  return sql<SqlBool>`(${authorActive} and (
    ${author} = ${viewerId}
    or (
      (
        ${visibility} in ('public', 'unlisted')
        or (${visibility} = 'private' and exists (select 1 from follows vis_f where vis_f.account_id = ${viewerId} and vis_f.target_account_id = ${author}${fence}))
        or (${visibility} in ('private', 'direct') and exists (select 1 from mentions vis_m where vis_m.status_id = ${id} and vis_m.account_id = ${viewerId}${fence}))
        or (${visibility} = 'direct' and exists (
          select 1 from audience_members vis_am
          where vis_am.account_id = ${viewerId}
            and vis_am.audience_id = (select vis_sa.audience_id from status_audiences vis_sa where vis_sa.status_id = ${id})${fence}
        ))
      )
      and not exists (
        select 1 from blocks vis_b
        where (vis_b.account_id = ${viewerId} and vis_b.target_account_id = ${author})
           or (vis_b.account_id = ${author} and vis_b.target_account_id = ${viewerId})${fence}
      )
    )
  ))`;
}

/** Which of `ids` the viewer may see, in one query (boosted statuses are not followed here). */
export async function visibleStatusIds(db: Kysely<Database>, ids: readonly string[], viewerId: string | null): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom("statuses")
    .select("statuses.id")
    .where("statuses.id", "in", [...new Set(ids)])
    .where(visibleTo(viewerId, "statuses", db))
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Whether the viewer may see the status `id` (false when there is no such status). */
export async function isVisibleTo(db: Kysely<Database>, id: string, viewerId: string | null): Promise<boolean> {
  return (await visibleStatusIds(db, [id], viewerId)).has(id);
}

/** What the rule needs to know about one status and one viewer. */
export interface VisibilityFacts {
  readonly authorId: string;
  readonly visibility: Visibility;
  readonly authorSuspended: boolean;
  /** The viewer follows the author. */
  readonly viewerFollowsAuthor: boolean;
  /** The viewer is mentioned in the status. */
  readonly viewerMentioned: boolean;
  /** A block exists between viewer and author, in either direction. */
  readonly blocked: boolean;
  /** The viewer is in the status's closed audience (a `direct` status's); false when not known. */
  readonly viewerInAudience?: boolean;
}

/** The rule over facts already loaded; agrees with `visibleTo`. */
export function mayView(post: VisibilityFacts, viewerId: string | null): boolean {
  if (post.authorSuspended) return false;
  if (viewerId === null) return PUBLIC_VISIBILITIES.includes(post.visibility);
  if (post.authorId === viewerId) return true;
  if (post.blocked) return false;
  switch (post.visibility) {
    case "public":
    case "unlisted":
      return true;
    case "private":
      return post.viewerFollowsAuthor || post.viewerMentioned;
    case "direct":
      return post.viewerMentioned || post.viewerInAudience === true;
  }
}
