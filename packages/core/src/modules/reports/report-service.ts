import type { DomainEvents } from "../../platform/events/domain-events.js";
import { KithError, isKithError } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";
import type { PageRequest } from "../../domain/page.js";
import { type AccessType, type Grant, ruleHolds } from "../../domain/permissions.js";
import { toBool } from "../../ports/storage-schema.js";
import type { KithServices } from "../core-services.js";
import type { ServiceDeps } from "../service-deps.js";
import { type AggregateCursor, type AggregateRow, aggregateTargets } from "./aggregates-store.js";
import { reportErrors } from "./report-errors.js";
import { reportIds } from "./report-ids.js";
import { M2 } from "./report-rules.js";
import { type ReportsDb, type TargetType, reportsDb } from "./report-tables-store.js";
import { type ReportStanding, type ReportTrigger, isClosed, transition } from "./report-transitions.js";
import {
  type CommentRow,
  type ReportFilter,
  type ReportRow,
  accountsBrief,
  deleteNote,
  deleteReport,
  findComment,
  findFlagComment,
  findGroupBrief,
  findReport,
  firstReporterOf,
  findUnresolvedReport,
  groupOfStatus,
  insertComment,
  insertNote,
  insertReport,
  insertReportNotifications,
  isGroupMember,
  listReports,
  managerGrants,
  markForwarded,
  markReported,
  noteAt,
  statusAuthors,
  updateComment,
  writeCategorisation,
  writeStanding,
} from "./reports-store.js";

/** Mastodon's report categories. */
export const REPORT_CATEGORIES = ["spam", "legal", "violation", "other"] as const;
export type ReportCategory = (typeof REPORT_CATEGORIES)[number];

/** A report as a reporter files it, in either form (the spec's, or Mastodon's `account_id` with `status_ids`). */
export interface NewReport {
  readonly targetType: TargetType;
  readonly targetId: string;
  readonly comment: string;
  readonly forward: boolean;
  readonly category?: ReportCategory;
  readonly ruleIds?: readonly string[];
  /** Statuses of the reported account attached to a report on an account (Mastodon's form). */
  readonly statusIds?: readonly string[];
  /** The id of the Flag it came in, for a report another server sent. */
  readonly uri?: string | null;
}

/** A moderator's change of what a report is about; an absent field is left as it is. */
export interface ReportCategorisation {
  readonly category?: ReportCategory;
  readonly ruleIds?: readonly string[];
}

/** What filing a report did: the report (new or the target's unresolved one), the reporter's comment on it. */
export interface FiledReport {
  readonly report: ReportRow;
  readonly comment: CommentRow;
  /** The target had an unresolved report already: the new one became a comment on it. */
  readonly merged: boolean;
}

/** A report another server sent (a Flag): its reporter is that server's actor, known here as a remote account. */
export interface ReceivedReport {
  readonly reporterId: string;
  readonly targetAccountId: string;
  readonly statusIds: readonly string[];
  readonly comment: string;
  /** The Flag's id: a Flag received again (a delivery retried) files nothing more. */
  readonly uri: string | null;
}

/** What a report forwarded to the reported account's server carries (the reporter is not named there). */
export interface ForwardedReport {
  readonly reportId: string;
  readonly reporterId: string;
  readonly targetAccountId: string;
  readonly statusIds: readonly string[];
  readonly comment: string;
}

/**
 * Sends a report to the reported account's home server as a Flag. The
 * federation sets it (`ReportService.forwardWith`); until then a report
 * asking to be forwarded is kept here only, `forwarded` false.
 */
export type ReportForwarder = (report: ForwardedReport) => Promise<void>;

/** Tells moderators of a new report (the `admin.report` notification), and records which report it is about. */
export interface ReportNotifier {
  notifyMany(recipientIds: readonly string[], fromAccountId: string, reportId: string): Promise<void>;
}

/** A page of aggregated entries, with the cursor of the next page. */
export interface AggregatePage {
  readonly rows: readonly AggregateRow[];
  readonly next: AggregateCursor | null;
}

/** A scope as a request names it: a group's id, or undefined for the server's. */
export type ScopeRef = string | undefined;

const MAX_ATTACHED_STATUSES = 40;

const logger = getLogger(["reports"]);

/** Whether the error says the status is not there for the viewer (it may not exist, or may not be seen). */
function statusUnseen(error: unknown): boolean {
  return isKithError(error) && error.code === "status.not_found";
}

/**
 * Moderation reports on statuses, accounts and groups. A target has one
 * report being handled at a time: another report on it, from whoever, is a
 * comment on that report (one comment a reporter: reporting again rewrites
 * the reporter's comment and adds the statuses it attaches). A report on a
 * target whose reports were all resolved or dismissed opens a new report,
 * so a closed report stays the record of what was decided.
 *
 * Scope: a report on a status posted in a group, or on a group, is in that
 * group's scope: the group's moderators (GroupReports.* held in the group)
 * see and handle it, and so do the server's (server scope lists every
 * report). Other reports are in server scope only.
 */
export class ReportService {
  #forwarder: ReportForwarder | null = null;
  #notifier: ReportNotifier | null = null;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids">,
    private readonly core: Pick<KithServices, "statuses" | "settings">,
    private readonly events: DomainEvents,
  ) {}

  #db(): ReportsDb {
    return reportsDb(this.deps.storage.db);
  }

  #now(): string {
    return this.deps.clock.now().toISOString();
  }

  /** Sets how reports asking to be forwarded reach the reported account's server. */
  forwardWith(forwarder: ReportForwarder): void {
    this.#forwarder = forwarder;
  }

  /** Sets how moderators are told of new reports. */
  notifyWith(notifier: ReportNotifier): void {
    this.#notifier = notifier;
  }

  /** Files a report as a signed-in reporter: the target must exist and be visible to them. */
  async create(reporterId: string, input: NewReport): Promise<FiledReport> {
    await this.#assertRules(input.ruleIds);
    const placed = await this.#place(reporterId, input);
    const filed = await this.#file(reporterId, input, placed);
    if (input.forward && placed.targetAccountId !== null && input.targetType !== "group") {
      if (await this.#forward(filed, placed.targetAccountId, reporterId, input))
        return { ...filed, report: { ...filed.report, forwarded: true } };
    }
    return filed;
  }

  /**
   * Files a report another server sent about one of this server's accounts
   * (an incoming Flag): the reporter is the sending server's actor. A Flag
   * received before (its id known) files nothing: null.
   */
  async receive(input: ReceivedReport): Promise<FiledReport | null> {
    if (input.uri !== null && (await findFlagComment(this.#db(), input.uri, input.targetAccountId))) return null;
    const statusIds = input.statusIds.slice(0, MAX_ATTACHED_STATUSES);
    return this.#file(
      input.reporterId,
      { targetType: "user", targetId: input.targetAccountId, comment: input.comment, forward: false, statusIds, uri: input.uri },
      { targetAccountId: input.targetAccountId, scopeGroupId: null },
    );
  }

  /** Forwards the report to the reported account's server, when that is another server and a forwarder is set. */
  async #forward(filed: FiledReport, targetAccountId: string, reporterId: string, input: NewReport): Promise<boolean> {
    const [target] = await accountsBrief(this.#db(), [targetAccountId]);
    if (!this.#forwarder || !target || target.domain === null) return false;
    const statusIds = input.targetType === "post" ? [input.targetId] : (input.statusIds ?? []);
    try {
      await this.#forwarder({ reportId: filed.report.id, reporterId, targetAccountId, statusIds, comment: input.comment });
    } catch (error) {
      // The report stands here whatever happens there; `forwarded` stays false to say it did not go.
      logger.warn("Report {reportId} could not be forwarded: {error}", { reportId: filed.report.id, error });
      return false;
    }
    await markForwarded(this.#db(), filed.report.id);
    return true;
  }

  /** Where the target is: the reported account and the report's scope; refusals for what may not be reported. */
  async #place(reporterId: string, input: NewReport): Promise<{ targetAccountId: string | null; scopeGroupId: string | null }> {
    const db = this.#db();
    switch (input.targetType) {
      case "user": {
        const [account] = await accountsBrief(db, [input.targetId]);
        if (!account) throw new KithError(reportErrors["report.target_not_found"]);
        if (account.id === reporterId) throw new KithError(reportErrors["report.self"]);
        await this.#assertAttachable(reporterId, account.id, input.statusIds ?? []);
        return { targetAccountId: account.id, scopeGroupId: null };
      }
      case "post": {
        const status = await this.#visibleStatus(input.targetId, reporterId);
        if (status.account_id === reporterId) throw new KithError(reportErrors["report.self"]);
        return { targetAccountId: status.account_id, scopeGroupId: await groupOfStatus(db, status.id) };
      }
      case "group": {
        const group = await findGroupBrief(db, input.targetId);
        if (!group) throw new KithError(reportErrors["report.target_not_found"]);
        // As the spec's errors table says: refused (403), not hidden.
        if (toBool(group.secret) && !(await isGroupMember(db, group.id, reporterId)))
          throw new KithError(reportErrors["report.secret_group"]);
        return { targetAccountId: null, scopeGroupId: group.id };
      }
    }
  }

  async #visibleStatus(statusId: string, viewerId: string) {
    try {
      return await this.core.statuses.findVisible(statusId, viewerId);
    } catch (error) {
      if (statusUnseen(error)) throw new KithError(reportErrors["report.target_not_found"]);
      throw error;
    }
  }

  /** Attached statuses must be the reported account's, and visible to the reporter. */
  async #assertAttachable(reporterId: string, accountId: string, statusIds: readonly string[]): Promise<void> {
    if (statusIds.length === 0) return;
    if (statusIds.length > MAX_ATTACHED_STATUSES) throw new KithError(reportErrors["report.statuses_invalid"]);
    const authors = await statusAuthors(this.#db(), statusIds);
    for (const id of statusIds) {
      if (authors.get(id) !== accountId) throw new KithError(reportErrors["report.statuses_invalid"]);
      try {
        await this.core.statuses.findVisible(id, reporterId);
      } catch (error) {
        if (statusUnseen(error)) throw new KithError(reportErrors["report.statuses_invalid"]);
        throw error;
      }
    }
  }

  async #file(
    reporterId: string,
    input: NewReport,
    placed: { targetAccountId: string | null; scopeGroupId: string | null },
  ): Promise<FiledReport> {
    const now = this.#now();
    const filed = await this.deps.storage.transaction(async (trx) => {
      const db = reportsDb(trx);
      let report = await findUnresolvedReport(db, input.targetType, input.targetId);
      let merged = report !== undefined;
      if (!report) {
        const row: ReportRow = {
          id: this.deps.ids.next("report"),
          target_type: input.targetType,
          target_id: input.targetId,
          target_account_id: placed.targetAccountId,
          scope_group_id: placed.scopeGroupId,
          state: "open",
          assigned_account_id: null,
          action_taken_by_id: null,
          action_taken_at: null,
          category: input.category ?? "other",
          rule_ids: JSON.stringify(input.ruleIds ?? []),
          forwarded: false,
          created_at: now,
          updated_at: now,
          last_reported_at: now,
        };
        if (await insertReport(db, row)) report = row;
        else {
          // Another reporter's report on the same target was inserted meanwhile: merge into it.
          report = await findUnresolvedReport(db, input.targetType, input.targetId);
          merged = true;
        }
        if (!report) throw new KithError(reportErrors["report.not_found"]);
      } else await markReported(db, report.id, now);
      const comment = await this.#comment(db, report.id, reporterId, input, now);
      return { report, comment, merged };
    });
    if (!filed.merged) await this.#notifyModerators(filed.report);
    return filed;
  }

  async #comment(db: ReportsDb, reportId: string, reporterId: string, input: NewReport, now: string): Promise<CommentRow> {
    const existing = await findComment(db, reportId, reporterId);
    const statusIds = input.statusIds ?? [];
    if (!existing) {
      const row: CommentRow = {
        id: this.deps.ids.next(reportIds.reportComment),
        report_id: reportId,
        account_id: reporterId,
        comment: input.comment,
        status_ids: JSON.stringify(statusIds),
        created_at: now,
        updated_at: now,
        uri: input.uri ?? null,
      };
      await insertComment(db, row);
      return row;
    }
    const kept = JSON.parse(existing.status_ids) as string[];
    const changes = {
      comment: input.comment === "" ? existing.comment : input.comment,
      status_ids: JSON.stringify([...new Set([...kept, ...statusIds])]),
      updated_at: now,
      ...(input.uri && { uri: input.uri }),
    };
    await updateComment(db, existing.id, changes);
    return { ...existing, ...changes };
  }

  /**
   * Tells the moderators who may handle the report (M2 in its scope: the
   * server's, and the group's for a group-scoped one) of a new report. A
   * report merged into one already open tells nobody again: it is on their
   * list already.
   */
  async #notifyModerators(report: ReportRow): Promise<void> {
    if (!this.#notifier) return;
    const reporter = await firstReporterOf(this.#db(), report.id);
    if (!reporter) return;
    await this.#notifier.notifyMany(await this.eligibleAssignees(report.scope_group_id ?? undefined), reporter, report.id);
  }

  /** Records which report the notifications written are about. */
  async recordNotifications(records: readonly { readonly id: string }[], reportId: string): Promise<void> {
    await insertReportNotifications(
      this.#db(),
      records.map((record) => record.id),
      reportId,
    );
  }

  /** Rewrites the caller's own comment on a report; a report the caller did not file is not found for them. */
  async editComment(reportId: string, reporterId: string, text: string): Promise<FiledReport> {
    return this.deps.storage.transaction(async (trx) => {
      const db = reportsDb(trx);
      const report = await findReport(db, reportId);
      const comment = report ? await findComment(db, reportId, reporterId) : undefined;
      if (!report || !comment) throw new KithError(reportErrors["report.not_found"]);
      if (isClosed(report.state)) throw new KithError(reportErrors["report.comment_closed"]);
      const updatedAt = this.#now();
      await updateComment(db, comment.id, { comment: text, updated_at: updatedAt });
      return { report, comment: { ...comment, comment: text, updated_at: updatedAt }, merged: false };
    });
  }

  /** The report, if it is in the scope the request names (server scope holds them all). */
  async get(reportId: string, scope: ScopeRef): Promise<ReportRow> {
    return this.#inScope(this.#db(), reportId, scope);
  }

  async #inScope(db: ReportsDb, reportId: string, scope: ScopeRef): Promise<ReportRow> {
    const report = await findReport(db, reportId);
    if (!report || (scope !== undefined && report.scope_group_id !== scope)) throw new KithError(reportErrors["report.not_found"]);
    return report;
  }

  list(scope: ScopeRef, filter: Omit<ReportFilter, "scopeGroupId">, page: PageRequest): Promise<ReportRow[]> {
    return listReports(this.#db(), scope === undefined ? filter : { ...filter, scopeGroupId: scope }, page);
  }

  /** Assigns the report to a user who may handle it, or takes the assignment away (null). */
  async assign(reportId: string, scope: ScopeRef, assigneeId: string | null, actorId: string): Promise<ReportRow> {
    return this.#move(reportId, scope, { kind: "assign", assigneeId }, actorId, async (report, db) => {
      if (assigneeId !== null && !(await this.#eligible(db, assigneeId, report.scope_group_id))) {
        throw new KithError(reportErrors["report.assignee_ineligible"]);
      }
    });
  }

  unassign(reportId: string, scope: ScopeRef, actorId: string): Promise<ReportRow> {
    return this.#move(reportId, scope, { kind: "unassign" }, actorId);
  }

  resolve(reportId: string, scope: ScopeRef, actorId: string): Promise<ReportRow> {
    return this.#move(reportId, scope, { kind: "resolve", actorId, at: this.#now() }, actorId);
  }

  dismiss(reportId: string, scope: ScopeRef, actorId: string): Promise<ReportRow> {
    return this.#move(reportId, scope, { kind: "dismiss", actorId, at: this.#now() }, actorId);
  }

  reopen(reportId: string, scope: ScopeRef, actorId: string): Promise<ReportRow> {
    return this.#move(reportId, scope, { kind: "reopen" }, actorId, async (report, db) => {
      const other = await findUnresolvedReport(db, report.target_type, report.target_id);
      if (other && other.id !== report.id) throw new KithError(reportErrors["report.target_has_open_report"]);
    });
  }

  /**
   * Resolves a report because a moderator acted on what it reports (an
   * account action naming `report_id`, in server scope; a group manager's
   * removal or ban, in the group's scope), the actor recorded.
   */
  resolveFor(reportId: string, actorId: string, scope: ScopeRef = undefined): Promise<ReportRow> {
    return this.resolve(reportId, scope, actorId);
  }

  /** Refuses (404) a report that does not exist, is not about the account or, for a group's action, not in its scope. */
  async assertAbout(reportId: string, accountId: string, scopeGroupId: string | null = null): Promise<void> {
    const report = await findReport(this.#db(), reportId);
    if (!report || report.target_account_id !== accountId) throw new KithError(reportErrors["report.not_found"]);
    if (scopeGroupId !== null && report.scope_group_id !== scopeGroupId) throw new KithError(reportErrors["report.not_found"]);
  }

  async #move(
    reportId: string,
    scope: ScopeRef,
    trigger: ReportTrigger,
    actorId: string,
    check?: (report: ReportRow, db: ReportsDb) => Promise<void>,
  ): Promise<ReportRow> {
    const moved = await this.deps.storage.transaction(async (trx) => {
      const db = reportsDb(trx);
      const report = await this.#inScope(db, reportId, scope);
      const current: ReportStanding = {
        state: report.state,
        assignedAccountId: report.assigned_account_id,
        actionTakenById: report.action_taken_by_id,
        actionTakenAt: report.action_taken_at,
      };
      const outcome = transition(current, trigger);
      if (!outcome.ok) throw new KithError(reportErrors[outcome.refusal]);
      await check?.(report, db);
      const now = this.#now();
      await writeStanding(db, report.id, outcome.standing, now);
      return {
        ...report,
        state: outcome.standing.state,
        assigned_account_id: outcome.standing.assignedAccountId,
        action_taken_by_id: outcome.standing.actionTakenById,
        action_taken_at: outcome.standing.actionTakenAt,
        updated_at: now,
      };
    });
    const assignee = trigger.kind === "assign" ? trigger.assigneeId : null;
    await this.#acted(actorId, `report.${trigger.kind}`, moved, assignee === null ? null : `assigned to ${assignee}`);
    return moved;
  }

  /**
   * Changes what the report is about (Mastodon's `PUT /api/v1/admin/reports/{id}`):
   * its category and the server rules it cites. Its state does not move.
   */
  async categorise(reportId: string, scope: ScopeRef, actorId: string, change: ReportCategorisation): Promise<ReportRow> {
    await this.#assertRules(change.ruleIds);
    const report = await this.deps.storage.transaction(async (trx) => {
      const db = reportsDb(trx);
      const report = await this.#inScope(db, reportId, scope);
      const updated: ReportRow = {
        ...report,
        ...(change.category && { category: change.category }),
        ...(change.ruleIds && { rule_ids: JSON.stringify(change.ruleIds) }),
        updated_at: this.#now(),
      };
      await writeCategorisation(db, updated);
      return updated;
    });
    await this.#acted(actorId, "report.update", report, `category ${report.category}, rules ${report.rule_ids}`);
    return report;
  }

  /** Refuses (422) rule ids that are not among the server's rules. */
  async #assertRules(ruleIds: readonly string[] | undefined): Promise<void> {
    if (!ruleIds?.length) return;
    const known = new Set((await this.core.settings.get("rules")).map((rule) => rule.id));
    if (ruleIds.some((id) => !known.has(id))) throw new KithError(reportErrors["report.rule_unknown"]);
  }

  /** Tells the audit log of a moderator's action on a report, in the report's scope. */
  async #acted(actorId: string, action: string, report: ReportRow, text: string | null = null): Promise<void> {
    const group = report.scope_group_id;
    await this.events.emit({
      type: "moderation.action",
      actorId,
      action,
      resource: group === null ? "Reports" : "GroupReports",
      targetType: "report",
      targetId: report.id,
      groupId: group,
      text,
    });
  }

  async addNote(reportId: string, scope: ScopeRef, actorId: string, text: string): Promise<ReportRow> {
    const report = await this.deps.storage.transaction(async (trx) => {
      const db = reportsDb(trx);
      const report = await this.#inScope(db, reportId, scope);
      const now = this.#now();
      await insertNote(db, {
        id: this.deps.ids.next(reportIds.reportNote),
        report_id: report.id,
        account_id: actorId,
        text,
        created_at: now,
      });
      return report;
    });
    await this.#acted(actorId, "report.add_note", report, text);
    return report;
  }

  /** Removes the note at a zero-based index; an index with no note is refused (422). */
  async removeNote(reportId: string, scope: ScopeRef, index: number, actorId: string): Promise<ReportRow> {
    const report = await this.deps.storage.transaction(async (trx) => {
      const db = reportsDb(trx);
      const report = await this.#inScope(db, reportId, scope);
      const noteId = Number.isInteger(index) && index >= 0 ? await noteAt(db, report.id, index) : undefined;
      if (noteId === undefined) throw new KithError(reportErrors["report.note_index_invalid"]);
      await deleteNote(db, noteId);
      return report;
    });
    await this.#acted(actorId, "report.remove_note", report, `note ${index}`);
    return report;
  }

  /** Deletes the report with its comments and notes, for good. */
  async delete(reportId: string, scope: ScopeRef, actorId: string): Promise<void> {
    const report = await this.deps.storage.transaction(async (trx) => {
      const db = reportsDb(trx);
      const report = await this.#inScope(db, reportId, scope);
      await deleteReport(db, report.id);
      return report;
    });
    await this.#acted(actorId, "report.delete", report);
  }

  /**
   * The users who may be assigned reports in the scope: local users holding
   * M2 there (a global grant, or a group grant in that group), neither
   * suspended, limited nor disabled. One query, checked against the rule here.
   */
  async eligibleAssignees(scope: ScopeRef, db: ReportsDb = this.#db()): Promise<string[]> {
    const groupId = scope ?? null;
    const rows = await managerGrants(db, groupId);
    const byActor = new Map<string, Grant[]>();
    for (const row of rows) {
      const grants = byActor.get(row.actor_id) ?? [];
      grants.push({ resource: row.resource, access: JSON.parse(row.access) as AccessType[], scope: row.scope });
      byActor.set(row.actor_id, grants);
    }
    return [...byActor].filter(([, grants]) => ruleHolds(M2, grants, groupId)).map(([actorId]) => actorId);
  }

  async #eligible(db: ReportsDb, accountId: string, groupId: string | null): Promise<boolean> {
    return (await this.eligibleAssignees(groupId ?? undefined, db)).includes(accountId);
  }

  /** A page of reported subjects of a type, most recently reported first, counted in SQL. */
  async aggregated(targetType: TargetType, scope: ScopeRef, after: AggregateCursor | null, limit: number): Promise<AggregatePage> {
    const rows = await aggregateTargets(this.#db(), targetType, scope, after, limit);
    const last = rows[rows.length - 1];
    return {
      rows,
      next: rows.length === limit && last ? { latestReportedAt: last.latest_reported_at, targetId: last.target_id } : null,
    };
  }
}
