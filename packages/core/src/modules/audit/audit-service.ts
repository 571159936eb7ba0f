import type { Kysely } from "kysely";
import { type Grant, holdsPermission } from "../../domain/permissions.js";
import type { ModerationAction } from "../../domain/moderation-actions.js";
import type { ResourceName } from "../../domain/resources.js";
import type { PageRequest } from "../../domain/page.js";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { Database } from "../../ports/storage-schema.js";
import type { KithServices } from "../core-services.js";
import type { ServiceDeps } from "../service-deps.js";
import { type AuditFilter, type AuditRow, insertAuditRow, pageAuditRows } from "./audit-store.js";

export type { ModerationAction };

/** The resources whose entries the server's log holds, and those a group's log holds. */
export const SERVER_AUDIT_RESOURCES = ["Users", "Federation", "Roles", "Reports"] as const satisfies readonly ResourceName[];
export const GROUP_AUDIT_RESOURCES = ["GroupMembers", "GroupRoles", "GroupReports"] as const satisfies readonly ResourceName[];

/** One entry as the API shows it (Kith's own entity, snake_case as the admin API's). */
export interface AuditEntity {
  readonly id: string;
  readonly action: string;
  /** Who acted; null for the server itself, or an account that is gone. */
  readonly actor: AccountEntity | null;
  readonly actor_id: string | null;
  readonly target_type: string;
  readonly target_id: string;
  readonly scope: string | null;
  readonly text: string | null;
  readonly created_at: string;
}

/** What a reader filters the log by. */
export interface AuditQuery {
  readonly action?: string;
  readonly actorId?: string;
  readonly targetType?: string;
  readonly targetId?: string;
}

/** A text longer than this is cut: the log is an account of actions, not a store of documents. */
const TEXT_LIMIT = 5_000;

/**
 * The moderation audit log: every moderation action, who took it, on what,
 * where and with what words, read page by page by those holding the Read
 * permission of the resource each entry is about.
 */
export class AuditLog {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids">,
    private readonly core: Pick<KithServices, "accountViews">,
  ) {}

  /**
   * Records an action. Given the transaction of the action itself, the entry
   * commits with it (or not at all); without one it is written at once.
   */
  async record(action: ModerationAction, db: Kysely<Database> = this.deps.storage.db): Promise<string> {
    const id = this.deps.ids.next("audit");
    await insertAuditRow(db, {
      id,
      actor_id: action.actorId,
      action: action.action,
      resource: action.resource,
      target_type: action.targetType,
      target_id: action.targetId,
      scope: action.groupId ?? null,
      text: action.text ? action.text.slice(0, TEXT_LIMIT) : null,
      created_at: this.deps.clock.now().toISOString(),
    });
    return id;
  }

  /**
   * The resources of a scope's entries the grants let one read: Read or
   * Manage of each, held globally or (for a group's log) in that group.
   */
  readableResources(grants: readonly Grant[], groupId: string | null): string[] {
    const resources: readonly string[] = groupId === null ? SERVER_AUDIT_RESOURCES : GROUP_AUDIT_RESOURCES;
    return resources.filter((resource) =>
      [`${resource}.Read`, `${resource}.Manage`].some((name) => holdsPermission(grants, name, groupId)),
    );
  }

  /** One page of a scope's log (null: the server's), newest first, of the resources given. */
  async page(groupId: string | null, resources: readonly string[], query: AuditQuery, page: PageRequest): Promise<AuditEntity[]> {
    const filter: AuditFilter = { scope: groupId, resources, ...query };
    return this.#render(await pageAuditRows(this.deps.storage.db, filter, page));
  }

  async #render(rows: readonly AuditRow[]): Promise<AuditEntity[]> {
    const actorIds = [...new Set(rows.flatMap((row) => (row.actor_id === null ? [] : [row.actor_id])))];
    const actors = await this.core.accountViews.render(actorIds);
    return rows.map((row) => ({
      id: row.id,
      action: row.action,
      actor: row.actor_id === null ? null : (actors.get(row.actor_id) ?? null),
      actor_id: row.actor_id,
      target_type: row.target_type,
      target_id: row.target_id,
      scope: row.scope,
      text: row.text,
      created_at: row.created_at,
    }));
  }
}
