import { isKithError } from "../../domain/errors.js";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import { toBool } from "../../ports/storage-schema.js";
import { type AdminAccountEntity, serializeAdminAccount } from "../admin-accounts/index.js";
import type { KithServices } from "../core-services.js";
import type { ServiceDeps } from "../service-deps.js";
import type { AggregateRow } from "./aggregates-store.js";
import type { AdminReportEntity, AggregateEntity, FiledReportEntity, MastodonReportEntity, ReportEntity } from "./report-entities.js";
import type { FiledReport } from "./report-service.js";
import { reportsDb } from "./report-tables-store.js";
import { type CommentRow, type NoteRow, type ReportRow, commentsOf, groupsBrief, notesOf, reportsByIds } from "./reports-store.js";

type Views = Pick<KithServices, "accountViews" | "statusViews" | "adminAccounts" | "settings">;

/** Who reads an Admin::Report: the account, and whether it may read accounts' private details. */
export interface AdminViewer {
  readonly id: string;
  readonly readsAccounts: boolean;
}

function idList(json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((value): value is string => typeof value === "string") : [];
}

function byKey<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) map.set(key(row), [...(map.get(key(row)) ?? []), row]);
  return map;
}

/**
 * Renders reports for moderators, for their reporters and for Mastodon
 * clients. A page is rendered with a fixed number of queries: comments,
 * notes, groups, and one batch each of accounts and statuses (statuses as
 * the moderator may see them).
 */
export class ReportViews {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly core: Views,
  ) {}

  async render(rows: readonly ReportRow[], viewerId: string): Promise<ReportEntity[]> {
    const db = reportsDb(this.deps.storage.db);
    const reportIds = rows.map((row) => row.id);
    const [comments, notes, groups] = await Promise.all([
      commentsOf(db, reportIds),
      notesOf(db, reportIds),
      groupsBrief(
        db,
        rows.filter((row) => row.target_type === "group").map((row) => row.target_id),
      ),
    ]);
    const accountIds = [
      ...rows.flatMap((row) => [row.target_account_id, row.assigned_account_id, row.action_taken_by_id]),
      ...comments.map((comment) => comment.account_id),
      ...notes.map((note) => note.account_id),
    ].filter((id): id is string => id !== null);
    const statusIds = rows.filter((row) => row.target_type === "post").map((row) => row.target_id);
    const [accounts, statuses] = await Promise.all([
      this.core.accountViews.render([...new Set(accountIds)]),
      statusIds.length ? this.core.statusViews.render([...new Set(statusIds)], viewerId) : new Map<string, StatusEntity>(),
    ]);
    const commentsByReport = byKey(comments, (comment) => comment.report_id);
    const notesByReport = byKey(notes, (note) => note.report_id);
    const groupById = new Map(groups.map((group) => [group.id, group]));
    const account = (id: string | null): AccountEntity | null => (id === null ? null : (accounts.get(id) ?? null));
    return rows.map((row) => {
      const group = row.target_type === "group" ? groupById.get(row.target_id) : undefined;
      return {
        id: row.id,
        state: row.state,
        targetType: row.target_type,
        targetId: row.target_id,
        target: {
          account: account(row.target_account_id),
          status: row.target_type === "post" ? (statuses.get(row.target_id) ?? null) : null,
          group: group ? { id: group.id, name: group.name, display_name: group.display_name, secret: toBool(group.secret) } : null,
        },
        scope: row.scope_group_id,
        assignedModerator: account(row.assigned_account_id),
        actionTakenAt: row.action_taken_at,
        actionTakenBy: account(row.action_taken_by_id),
        category: row.category,
        forwarded: toBool(row.forwarded),
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        lastReportedAt: row.last_reported_at,
        comments: (commentsByReport.get(row.id) ?? []).map((comment: CommentRow) => ({
          id: comment.id,
          account: account(comment.account_id),
          comment: comment.comment,
          statusIds: idList(comment.status_ids),
          createdAt: comment.created_at,
          updatedAt: comment.updated_at,
        })),
        notes: (notesByReport.get(row.id) ?? []).map((note: NoteRow, index) => ({
          index,
          text: note.text,
          account: account(note.account_id),
          createdAt: note.created_at,
        })),
      };
    });
  }

  async renderOne(row: ReportRow, viewerId: string): Promise<ReportEntity> {
    const [entity] = await this.render([row], viewerId);
    if (!entity) throw new Error("A report rendered to nothing");
    return entity;
  }

  /**
   * The spec's report with Mastodon's Admin::Report fields beside it. Its
   * accounts are Admin::Account entities, whose email and addresses only a
   * viewer who may read accounts (Users.Read or Users.Manage, globally) is
   * shown; to others (a group's moderators) they are blank.
   */
  async renderAdmin(rows: readonly ReportRow[], viewer: AdminViewer, origin: string): Promise<AdminReportEntity[]> {
    const viewerId = viewer.id;
    const entities = await this.render(rows, viewerId);
    const accountIds = new Set<string>();
    for (const entity of entities) {
      for (const id of [
        entity.comments[0]?.account?.id,
        entity.target.account?.id,
        entity.assignedModerator?.id,
        entity.actionTakenBy?.id,
      ]) {
        if (id) accountIds.add(id);
      }
    }
    const [admin, rules] = await Promise.all([
      this.#adminAccounts([...accountIds], origin, viewer.readsAccounts),
      this.core.settings.get("rules"),
    ]);
    const citedRules = new Map(rows.map((row) => [row.id, new Set(idList(row.rule_ids))]));
    const attached = [...new Set(entities.flatMap((entity) => entity.comments.flatMap((comment) => comment.statusIds)))];
    const statuses = attached.length ? await this.core.statusViews.render(attached, viewerId) : new Map<string, StatusEntity>();
    const adminOf = (id: string | undefined): AdminAccountEntity | null => (id ? (admin.get(id) ?? null) : null);
    return entities.map((entity) => {
      const statusIds = [
        ...new Set([
          ...(entity.target.status ? [entity.target.status.id] : []),
          ...entity.comments.flatMap((comment) => comment.statusIds),
        ]),
      ];
      return {
        ...entity,
        action_taken: entity.state === "resolved" || entity.state === "dismissed",
        action_taken_at: entity.actionTakenAt,
        comment: entity.comments[0]?.comment ?? "",
        created_at: entity.createdAt,
        updated_at: entity.updatedAt,
        account: adminOf(entity.comments[0]?.account?.id),
        target_account: adminOf(entity.target.account?.id),
        assigned_account: adminOf(entity.assignedModerator?.id),
        action_taken_by_account: adminOf(entity.actionTakenBy?.id),
        statuses: statusIds.flatMap((id) => {
          const status = entity.target.status?.id === id ? entity.target.status : statuses.get(id);
          return status ? [status] : [];
        }),
        rules: rules
          .filter((rule) => citedRules.get(entity.id)?.has(rule.id))
          .map((rule) => ({ id: rule.id, text: rule.text, hint: rule.hint })),
      };
    });
  }

  async #adminAccounts(accountIds: readonly string[], origin: string, readsAccounts: boolean): Promise<Map<string, AdminAccountEntity>> {
    const views = await Promise.all(
      accountIds.map(async (id) => {
        try {
          const entity = serializeAdminAccount(await this.core.adminAccounts.get(id), origin);
          return readsAccounts ? entity : { ...entity, email: "", ip: null, ips: [], locale: null, invite_request: null };
        } catch (error) {
          if (isKithError(error) && error.code === "account.not_found") return null;
          throw error;
        }
      }),
    );
    return new Map(views.flatMap((view) => (view ? [[view.id, view] as const] : [])));
  }

  /** The report as its reporter sees it. */
  renderFiled(filed: FiledReport): FiledReportEntity {
    return {
      id: filed.report.id,
      state: filed.report.state,
      targetType: filed.report.target_type,
      targetId: filed.report.target_id,
      merged: filed.merged,
      comment: {
        id: filed.comment.id,
        comment: filed.comment.comment,
        statusIds: idList(filed.comment.status_ids),
        createdAt: filed.comment.created_at,
        updatedAt: filed.comment.updated_at,
      },
      createdAt: filed.report.created_at,
    };
  }

  /** Mastodon's Report entity of a report filed in Mastodon's form (on an account). */
  async renderMastodon(filed: FiledReport): Promise<MastodonReportEntity> {
    const targetId = filed.report.target_account_id ?? filed.report.target_id;
    const target = (await this.core.accountViews.render([targetId])).get(targetId);
    if (!target) throw new Error("A reported account rendered to nothing");
    const closed = filed.report.state === "resolved" || filed.report.state === "dismissed";
    return {
      id: filed.report.id,
      action_taken: closed,
      action_taken_at: filed.report.action_taken_at,
      category: filed.report.category,
      comment: filed.comment.comment,
      forwarded: toBool(filed.report.forwarded),
      created_at: filed.comment.created_at,
      status_ids: idList(filed.comment.status_ids),
      rule_ids: idList(filed.report.rule_ids),
      target_account: target,
    };
  }

  /** Aggregated entries: their representative reports are read and rendered together. */
  async renderAggregates(rows: readonly AggregateRow[], viewerId: string): Promise<AggregateEntity[]> {
    const reports = await reportsByIds(
      reportsDb(this.deps.storage.db),
      rows.map((row) => row.representative_id),
    );
    const rendered = new Map((await this.render(reports, viewerId)).map((entity) => [entity.id, entity]));
    return rows.flatMap((row) => {
      const report = rendered.get(row.representative_id);
      if (!report) return [];
      return [
        {
          subject: report.target,
          targetId: row.target_id,
          report,
          openCount: Number(row.open_count),
          totalCount: Number(row.total_count),
          latestReportedAt: row.latest_reported_at,
          latestActionTakenAt: row.latest_action_taken_at,
        },
      ];
    });
  }
}
