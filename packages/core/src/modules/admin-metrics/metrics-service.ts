import { KithError } from "../../domain/errors.js";
import type { Event, MetricsStore, Range } from "./metrics-store.js";

const DAY_MS = 86_400_000;

export const MEASURE_KEYS = [
  "active_users",
  "new_users",
  "interactions",
  "opened_reports",
  "resolved_reports",
  "tag_accounts",
  "tag_uses",
  "tag_servers",
  "instance_accounts",
  "instance_media_attachments",
  "instance_reports",
  "instance_statuses",
  "instance_follows",
  "instance_followers",
] as const;
export type MeasureKey = (typeof MEASURE_KEYS)[number];

export const DIMENSION_KEYS = [
  "languages",
  "sources",
  "servers",
  "space_usage",
  "software_versions",
  "tag_servers",
  "tag_languages",
  "instance_accounts",
  "instance_languages",
] as const;
export type DimensionKey = (typeof DIMENSION_KEYS)[number];

export interface MetricParams {
  readonly startAt: Date;
  readonly endAt: Date;
  readonly tagId?: string | undefined;
  readonly domain?: string | undefined;
  readonly limit?: number | undefined;
}

export interface MeasureEntity {
  readonly key: MeasureKey;
  readonly unit: string | null;
  readonly total: string;
  readonly human_value?: string;
  readonly previous_total: string;
  readonly data: readonly { readonly date: string; readonly value: string }[];
}

export interface DimensionEntity {
  readonly key: DimensionKey;
  readonly data: readonly {
    readonly key: string;
    readonly human_key: string;
    readonly value: string;
    readonly unit?: string;
    readonly human_value?: string;
  }[];
}

export interface CohortEntity {
  readonly period: string;
  readonly frequency: "day" | "month";
  readonly data: readonly { readonly date: string; readonly rate: number; readonly value: string }[];
}

/** At most this many days a range may cover: a measure reads every event of it. */
const MAX_DAYS = 400;

function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

function monthStart(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function nextMonth(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

const timeOf = (at: string | Date): number => (at instanceof Date ? at.getTime() : Date.parse(at));

function invalid(field: string, message: string): KithError {
  return new KithError("request.validation_failed", { details: [{ field, message }] });
}

function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** Whether a measure counts events (`count`), distinct actors (`distinct`), or sums weights (bytes). */
type Aggregate = "count" | "distinct" | "sum";

interface MeasureSource {
  readonly aggregate: Aggregate;
  readonly unit?: string;
  read(range: Range): Promise<readonly Event[]>;
}

/**
 * Mastodon's admin dashboard data (`/api/v1/admin/measures`, `dimensions`,
 * `retention`), computed from this server's rows when asked. Days are UTC.
 * What the data cannot tell is answered empty rather than made up: the
 * `sources` dimension (where sign-ups came from is not recorded).
 */
export class MetricsService {
  constructor(
    private readonly store: MetricsStore,
    private readonly software: { readonly version: string },
  ) {}

  #days(params: MetricParams): number[] {
    const from = dayStart(params.startAt.getTime());
    const to = dayStart(params.endAt.getTime());
    if (to < from) throw invalid("end_at", "is before start_at");
    if ((to - from) / DAY_MS >= MAX_DAYS) throw invalid("end_at", `is more than ${MAX_DAYS} days after start_at`);
    const days: number[] = [];
    for (let day = from; day <= to; day += DAY_MS) days.push(day);
    return days;
  }

  #source(key: MeasureKey, params: MetricParams): MeasureSource | null {
    const { tagId, domain } = params;
    const needs = (value: string | undefined, field: string): string => {
      if (!value) throw invalid(field, `is required for ${key}`);
      return value;
    };
    switch (key) {
      case "active_users":
        return { aggregate: "distinct", read: (range) => this.store.localActivity(range) };
      case "new_users":
        return { aggregate: "count", read: (range) => this.store.newUsers(range) };
      case "interactions":
        return { aggregate: "count", read: (range) => this.store.interactions(range) };
      case "opened_reports":
        return { aggregate: "count", read: (range) => this.store.reports(range, "created_at") };
      case "resolved_reports":
        return { aggregate: "count", read: (range) => this.store.reports(range, "action_taken_at") };
      case "tag_accounts": {
        const id = needs(tagId, "tag_accounts[id]");
        return { aggregate: "distinct", read: (range) => this.store.tagUses(range, id) };
      }
      case "tag_uses": {
        const id = needs(tagId, "tag_uses[id]");
        return { aggregate: "count", read: (range) => this.store.tagUses(range, id) };
      }
      case "tag_servers": {
        const id = needs(tagId, "tag_servers[id]");
        return {
          aggregate: "distinct",
          read: async (range) => (await this.store.tagUses(range, id)).map((use) => ({ ...use, key: use.domain ?? "" })),
        };
      }
      case "instance_accounts": {
        const host = needs(domain, "instance_accounts[domain]");
        return { aggregate: "count", read: (range) => this.store.instanceAccounts(range, host) };
      }
      case "instance_media_attachments": {
        const host = needs(domain, "instance_media_attachments[domain]");
        return { aggregate: "sum", unit: "bytes", read: (range) => this.store.instanceMedia(range, host) };
      }
      case "instance_reports": {
        const host = needs(domain, "instance_reports[domain]");
        return { aggregate: "count", read: (range) => this.store.reports(range, "created_at", host) };
      }
      case "instance_statuses": {
        const host = needs(domain, "instance_statuses[domain]");
        return { aggregate: "count", read: (range) => this.store.statuses(range, host) };
      }
      case "instance_follows":
      case "instance_followers": {
        const host = needs(domain, `${key}[domain]`);
        const direction = key === "instance_follows" ? "follows" : "followers";
        return { aggregate: "count", read: (range) => this.store.instanceFollows(range, host, direction) };
      }
      default:
        return null;
    }
  }

  async measure(key: MeasureKey, params: MetricParams): Promise<MeasureEntity> {
    const days = this.#days(params);
    const from = days[0] ?? 0;
    const to = (days[days.length - 1] ?? 0) + DAY_MS;
    const source = this.#source(key, params);
    if (source === null) return { key, unit: null, total: "0", previous_total: "0", data: [] };
    const aggregate = (events: readonly Event[]): number =>
      source.aggregate === "distinct"
        ? new Set(events.map((e) => e.key)).size
        : source.aggregate === "sum"
          ? events.reduce((sum, e) => sum + e.weight, 0)
          : events.length;
    const iso = (ms: number) => new Date(ms).toISOString();
    const [events, previous] = await Promise.all([
      source.read({ from: iso(from), to: iso(to) }),
      source.read({ from: iso(from - (to - from)), to: iso(from) }),
    ]);
    const byDay = new Map<number, Event[]>();
    for (const event of events) {
      const day = dayStart(timeOf(event.at));
      byDay.set(day, [...(byDay.get(day) ?? []), event]);
    }
    return {
      key,
      unit: source.unit ?? null,
      total: String(aggregate(events)),
      ...(source.unit === "bytes" && { human_value: humanBytes(aggregate(events)) }),
      previous_total: String(aggregate(previous)),
      data: days.map((day) => ({ date: iso(day), value: String(aggregate(byDay.get(day) ?? [])) })),
    };
  }

  async dimension(key: DimensionKey, params: MetricParams): Promise<DimensionEntity> {
    const days = this.#days(params);
    const range = {
      from: new Date(days[0] ?? 0).toISOString(),
      to: new Date((days[days.length - 1] ?? 0) + DAY_MS).toISOString(),
    };
    const limit = Math.min(Math.max(params.limit ?? 10, 1), 100);
    const top = (counts: Map<string, number>, human: (key: string) => string) =>
      [...counts]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, limit)
        .map(([k, n]) => ({ key: k, human_key: human(k), value: String(n) }));
    const tally = (keys: readonly (string | null)[]) => {
      const counts = new Map<string, number>();
      for (const k of keys) if (k) counts.set(k, (counts.get(k) ?? 0) + 1);
      return counts;
    };
    const needs = (value: string | undefined, field: string): string => {
      if (!value) throw invalid(field, `is required for ${key}`);
      return value;
    };
    switch (key) {
      case "languages": {
        const statuses = await this.store.statuses(range, null);
        return { key, data: top(tally(statuses.map((s) => s.language)), languageName) };
      }
      case "servers": {
        const statuses = await this.store.statuses(range, undefined);
        return { key, data: top(tally(statuses.map((s) => s.domain)), (k) => k) };
      }
      case "space_usage": {
        const bytes = await this.store.mediaBytes();
        return {
          key,
          data: [
            {
              key: "media",
              human_key: "Media of local accounts",
              value: String(bytes.local),
              unit: "bytes",
              human_value: humanBytes(bytes.local),
            },
            {
              key: "remote_media",
              human_key: "Media cached from other servers",
              value: String(bytes.remote),
              unit: "bytes",
              human_value: humanBytes(bytes.remote),
            },
          ],
        };
      }
      case "software_versions":
        return {
          key,
          data: [
            { key: "kith", human_key: "Kith", value: this.software.version, human_value: this.software.version },
            { key: "nodejs", human_key: "Node.js", value: process.versions.node, human_value: process.versions.node },
          ],
        };
      case "tag_servers": {
        const uses = await this.store.tagUses(range, needs(params.tagId, "tag_servers[id]"));
        return { key, data: top(tally(uses.map((u) => u.domain ?? "")), (k) => k || "This server") };
      }
      case "tag_languages": {
        const uses = await this.store.tagUses(range, needs(params.tagId, "tag_languages[id]"));
        return { key, data: top(tally(uses.map((u) => u.language)), languageName) };
      }
      case "instance_accounts": {
        const accounts = await this.store.mostFollowedOf(needs(params.domain, "instance_accounts[domain]"), limit);
        return { key, data: accounts.map((a) => ({ key: a.acct, human_key: a.acct, value: String(a.count) })) };
      }
      case "instance_languages": {
        const statuses = await this.store.statuses(range, needs(params.domain, "instance_languages[domain]"));
        return { key, data: top(tally(statuses.map((s) => s.language)), languageName) };
      }
      default:
        // `sources`: where a sign-up came from is not recorded.
        return { key, data: [] };
    }
  }

  /**
   * Mastodon's retention cohorts: the local accounts that signed up in each
   * period (day or month) of the range, and for each period since, how many
   * of them were active (a status, a favourite, a session used).
   */
  async retention(params: MetricParams & { readonly frequency: "day" | "month" }): Promise<CohortEntity[]> {
    const days = this.#days(params);
    const first = days[0] ?? 0;
    const last = (days[days.length - 1] ?? 0) + DAY_MS;
    const periodOf = params.frequency === "day" ? dayStart : monthStart;
    const step = params.frequency === "day" ? (ms: number) => ms + DAY_MS : nextMonth;
    const periods: number[] = [];
    for (let p = periodOf(first); p < last; p = step(p)) periods.push(p);
    const range = { from: new Date(periodOf(first)).toISOString(), to: new Date(last).toISOString() };
    const [signups, activity] = await Promise.all([this.store.signups(range), this.store.localActivity(range)]);
    const activeIn = new Map<number, Set<string>>();
    for (const event of activity) {
      const period = periodOf(timeOf(event.at));
      activeIn.set(period, (activeIn.get(period) ?? new Set()).add(event.key));
    }
    return periods.map((period) => {
      const cohort = signups.filter((s) => periodOf(timeOf(s.at)) === period).map((s) => s.accountId);
      return {
        period: new Date(period).toISOString(),
        frequency: params.frequency,
        data: periods
          .filter((p) => p >= period)
          .map((p) => {
            const active = activeIn.get(p) ?? new Set<string>();
            const value = cohort.filter((id) => active.has(id)).length;
            return { date: new Date(p).toISOString(), rate: cohort.length === 0 ? 0 : value / cohort.length, value: String(value) };
          }),
      };
    });
  }
}

function humanBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
