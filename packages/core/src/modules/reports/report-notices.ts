import type { KithServices } from "../core-services.js";
import type { NotificationExtension, NotificationRecord } from "../notifications/index.js";
import type { ServiceDeps } from "../service-deps.js";
import type { MastodonReportEntity } from "./report-entities.js";
import type { ReportNotifier, ReportService } from "./report-service.js";
import { reportsDb } from "./report-tables-store.js";
import { commentsOf, reportsByIds, reportsOfNotifications } from "./reports-store.js";

const TYPES: ReadonlySet<string> = new Set(["admin.report"]);

function idList(json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((value): value is string => typeof value === "string") : [];
}

/**
 * Mastodon's `admin.report` notification, to the moderators who may
 * handle a new report: each notification records its report, which its
 * entity shows as `report` (Mastodon's Report entity, as Mastodon clients
 * read it); null once the report is deleted, or for a report on a group,
 * which Mastodon's entity cannot show.
 */
export class ReportNotices implements NotificationExtension, ReportNotifier {
  readonly types = TYPES;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly core: Pick<KithServices, "notifications" | "accountViews">,
    private readonly reports: () => ReportService,
  ) {}

  async notifyMany(recipientIds: readonly string[], fromAccountId: string, reportId: string): Promise<void> {
    await this.core.notifications.notifyMany(recipientIds, fromAccountId, "admin.report", null, {
      onWritten: (records) => this.reports().recordNotifications(records, reportId),
    });
  }

  async fields(records: readonly NotificationRecord[]): Promise<ReadonlyMap<string, Readonly<Record<string, unknown>>>> {
    const db = reportsDb(this.deps.storage.db);
    const reportOf = await reportsOfNotifications(
      db,
      records.map((record) => record.id),
    );
    const rows = await reportsByIds(db, [...reportOf.values()]);
    const comments = await commentsOf(
      db,
      rows.map((row) => row.id),
    );
    const targets = await this.core.accountViews.render(rows.flatMap((row) => (row.target_account_id ? [row.target_account_id] : [])));
    const entities = new Map<string, MastodonReportEntity>();
    for (const row of rows) {
      const target = row.target_account_id ? targets.get(row.target_account_id) : undefined;
      if (!target) continue;
      const first = comments.find((comment) => comment.report_id === row.id);
      entities.set(row.id, {
        id: row.id,
        action_taken: row.state === "resolved" || row.state === "dismissed",
        action_taken_at: row.action_taken_at,
        category: row.category,
        comment: first?.comment ?? "",
        forwarded: Boolean(row.forwarded),
        created_at: row.created_at,
        status_ids: [
          ...new Set([
            ...(row.target_type === "post" ? [row.target_id] : []),
            ...comments.filter((c) => c.report_id === row.id).flatMap((c) => idList(c.status_ids)),
          ]),
        ],
        rule_ids: idList(row.rule_ids),
        target_account: target,
      });
    }
    return new Map(records.map((record) => [record.id, { report: entities.get(reportOf.get(record.id) ?? "") ?? null }]));
  }
}
