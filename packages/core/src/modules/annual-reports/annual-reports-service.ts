import { KithError } from "../../domain/errors.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { ServiceDeps } from "../service-deps.js";
import type { StatusViews } from "../statuses/index.js";
import type { AccountViews } from "../accounts/index.js";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { AnnualReportRow, AnnualReportsStore, YearStatus } from "./annual-reports-store.js";

export const ANNUAL_REPORTS_QUEUE = "annual-reports.generate";
/** The shape of `data`, as Mastodon numbers it. */
export const SCHEMA_VERSION = 2;
/** The first year a report can be asked for. */
const FIRST_YEAR = 2000;

export type AnnualReportState = "available" | "generating" | "eligible" | "ineligible";

export type Archetype = "lurker" | "booster" | "pollster" | "replier" | "oracle";

export interface AnnualReportData {
  readonly archetype: Archetype;
  readonly time_series: readonly {
    readonly month: number;
    readonly statuses: number;
    readonly following: number;
    readonly followers: number;
  }[];
  readonly top_hashtags: readonly { readonly name: string; readonly count: number }[];
  readonly top_statuses: { readonly by_reblogs: string | null; readonly by_favourites: string | null; readonly by_replies: string | null };
  readonly most_used_apps: readonly { readonly name: string; readonly count: number }[];
  readonly type_distribution: { readonly total: number; readonly reblogs: number; readonly replies: number; readonly standalone: number };
  readonly percentiles: { readonly followers: number; readonly statuses: number };
  readonly commonly_interacted_with: readonly { readonly account_id: string; readonly count: number }[];
}

export interface AnnualReportEntity {
  readonly year: number;
  readonly account_id: string;
  readonly schema_version: number;
  readonly share_url: null;
  readonly data: AnnualReportData;
}

export interface WrappedAnnualReports {
  readonly annual_reports: readonly AnnualReportEntity[];
  readonly accounts: readonly AccountEntity[];
  readonly statuses: readonly StatusEntity[];
}

function yearRange(year: number): { from: string; to: string } {
  return { from: new Date(Date.UTC(year, 0, 1)).toISOString(), to: new Date(Date.UTC(year + 1, 0, 1)).toISOString() };
}

const monthOf = (at: string | Date): number => (at instanceof Date ? at : new Date(at)).getUTCMonth() + 1;

function topBy(statuses: readonly YearStatus[], count: (status: YearStatus) => number): string | null {
  let best: YearStatus | null = null;
  for (const status of statuses) if (count(status) > 0 && (best === null || count(status) > count(best))) best = status;
  return best?.id ?? null;
}

function tally<K>(keys: readonly K[]): [K, number][] {
  const counts = new Map<K, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]);
}

/**
 * Mastodon's annual reports: asked for a year (`generate`), a job reads the
 * account's activity of that year and writes the report, which the account
 * then reads, with the statuses and accounts it names, and marks read. A
 * year is eligible once the account wrote a status in it, up to this year.
 */
export class AnnualReportService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "clock" | "queue">,
    private readonly store: AnnualReportsStore,
    private readonly statusViews: StatusViews,
    private readonly accountViews: AccountViews,
  ) {}

  #checkYear(year: number): void {
    if (!Number.isInteger(year) || year < FIRST_YEAR || year > this.deps.clock.now().getUTCFullYear()) {
      throw new KithError("request.not_found", { message: "Record not found" });
    }
  }

  async state(accountId: string, year: number): Promise<AnnualReportState> {
    if (!Number.isInteger(year) || year < FIRST_YEAR || year > this.deps.clock.now().getUTCFullYear()) return "ineligible";
    const row = await this.store.get(accountId, year);
    if (row) return row.state;
    const { from, to } = yearRange(year);
    return (await this.store.hasStatusIn(accountId, from, to)) ? "eligible" : "ineligible";
  }

  /** Queues the report's generation; a report generating or generated already is left as it is. */
  async generate(accountId: string, year: number): Promise<void> {
    const state = await this.state(accountId, year);
    if (state === "ineligible")
      throw new KithError("request.validation_failed", { message: "There is no activity to report for that year" });
    if (state !== "eligible") return;
    const started = await this.store.start({
      account_id: accountId,
      year,
      state: "generating",
      schema_version: SCHEMA_VERSION,
      data: null,
      viewed_at: null,
      created_at: this.deps.clock.now().toISOString(),
    });
    if (started) await this.deps.queue.enqueue(ANNUAL_REPORTS_QUEUE, { accountId, year }, { deduplicationKey: `${accountId}:${year}` });
  }

  /** The job: reads the year and writes the report. An account gone, or not local, leaves nothing behind. */
  async run(payload: { accountId: string; year: number }): Promise<void> {
    const { accountId, year } = payload;
    if (!(await this.store.isLocal(accountId))) {
      await this.store.remove(accountId, year);
      return;
    }
    const data = await this.#compute(accountId, year);
    if (!(await this.store.get(accountId, year))) {
      await this.store.start({
        account_id: accountId,
        year,
        state: "generating",
        schema_version: SCHEMA_VERSION,
        data: null,
        viewed_at: null,
        created_at: this.deps.clock.now().toISOString(),
      });
    }
    await this.store.finish(accountId, year, JSON.stringify(data));
  }

  async #compute(accountId: string, year: number): Promise<AnnualReportData> {
    const { from, to } = yearRange(year);
    const [statuses, topHashtags, follows, percentiles] = await Promise.all([
      this.store.statuses(accountId, from, to),
      this.store.topHashtags(accountId, from, to, 5),
      this.store.follows(accountId, from, to),
      this.store.percentiles(accountId, from, to),
    ]);
    const own = statuses.filter((s) => s.reblog_of_id === null);
    const reblogs = statuses.length - own.length;
    const replies = own.filter((s) => s.in_reply_to_id !== null).length;
    const standalone = own.length - replies;
    const polls = await this.store.pollCount(own.map((s) => s.id));
    const apps = tally(statuses.flatMap((s) => (s.application_id ? [s.application_id] : []))).slice(0, 5);
    const appNames = await this.store.appNames(apps.map(([id]) => id));
    const interacted = tally(
      own.flatMap((s) => (s.in_reply_to_account_id && s.in_reply_to_account_id !== accountId ? [s.in_reply_to_account_id] : [])),
    ).slice(0, 3);
    const total = statuses.length;
    return {
      archetype: archetypeOf({ total, reblogs, replies, polls, standalone }),
      time_series: Array.from({ length: 12 }, (_, index) => ({
        month: index + 1,
        statuses: statuses.filter((s) => monthOf(s.created_at) === index + 1).length,
        following: follows.following.filter((at) => monthOf(at) === index + 1).length,
        followers: follows.followers.filter((at) => monthOf(at) === index + 1).length,
      })),
      top_hashtags: topHashtags,
      top_statuses: {
        by_reblogs: topBy(own, (s) => s.reblogs_count),
        by_favourites: topBy(own, (s) => s.favourites_count),
        by_replies: topBy(own, (s) => s.replies_count),
      },
      most_used_apps: apps.flatMap(([id, count]) => {
        const name = appNames.get(id);
        return name ? [{ name, count }] : [];
      }),
      type_distribution: { total, reblogs, replies, standalone },
      percentiles,
      commonly_interacted_with: interacted.map(([id, count]) => ({ account_id: id, count })),
    };
  }

  async #wrap(rows: readonly AnnualReportRow[], viewerId: string): Promise<WrappedAnnualReports> {
    const reports = rows.flatMap((row) =>
      row.state === "available" && row.data !== null
        ? [
            {
              year: Number(row.year),
              account_id: row.account_id,
              schema_version: Number(row.schema_version),
              share_url: null,
              data: (typeof row.data === "string" ? JSON.parse(row.data) : row.data) as AnnualReportData,
            },
          ]
        : [],
    );
    const statusIds = [
      ...new Set(
        reports.flatMap((report) =>
          [report.data.top_statuses.by_reblogs, report.data.top_statuses.by_favourites, report.data.top_statuses.by_replies].filter(
            (id): id is string => id !== null,
          ),
        ),
      ),
    ];
    const statuses = await this.statusViews.renderList(statusIds, viewerId);
    const accountIds = [
      ...new Set(reports.flatMap((report) => [report.account_id, ...report.data.commonly_interacted_with.map((a) => a.account_id)])),
    ];
    const accounts = await this.accountViews.render(accountIds);
    return { annual_reports: reports, accounts: accountIds.flatMap((id) => accounts.get(id) ?? []), statuses };
  }

  async unread(accountId: string): Promise<WrappedAnnualReports> {
    return this.#wrap(await this.store.unread(accountId), accountId);
  }

  async report(accountId: string, year: number): Promise<WrappedAnnualReports> {
    this.#checkYear(year);
    const row = await this.store.get(accountId, year);
    if (row?.state !== "available") throw new KithError("request.not_found", { message: "Record not found" });
    return this.#wrap([row], accountId);
  }

  async read(accountId: string, year: number): Promise<void> {
    this.#checkYear(year);
    if (!(await this.store.markViewed(accountId, year, this.deps.clock.now().toISOString()))) {
      throw new KithError("request.not_found", { message: "Record not found" });
    }
  }
}

/** Mastodon's archetypes: what most of the year's statuses were. */
function archetypeOf(counts: { total: number; reblogs: number; replies: number; polls: number; standalone: number }): Archetype {
  if (counts.total === 0) return "lurker";
  if (counts.reblogs > counts.total / 2) return "booster";
  if (counts.polls > counts.total / 10) return "pollster";
  if (counts.replies > counts.total / 2) return "replier";
  return "oracle";
}
