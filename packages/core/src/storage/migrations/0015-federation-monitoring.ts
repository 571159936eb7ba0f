import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0015: what federation monitoring remembers. Outbound delivery
 * outcomes per remote domain (counts, last success and failure, the distinct
 * days with failures since the last success, and when the domain was marked
 * unreachable) and incoming activities per domain and minute (the sliding
 * window of inbox metrics; rows older than the window are pruned).
 */
const text: ColumnSpec = { type: "text" };
const zero: ColumnSpec = { type: "int", default: 0 };
const optionalAt: ColumnSpec = { type: "timestamp", nullable: true };

export const federationMonitoringMigration: MigrationSpec = {
  name: "0015_federation_monitoring",
  tables: [
    {
      name: "federation_domain_deliveries",
      columns: {
        /** Lower-case host without port. */
        domain: text,
        succeeded: zero,
        failed: zero,
        last_success_at: optionalAt,
        last_failure_at: optionalAt,
        /** The UTC day (YYYY-MM-DD) of the last failure, so a day is counted once. */
        last_failure_day: { type: "text", nullable: true },
        /** Distinct days with a failure since the last success. */
        failure_days: zero,
        /** Set when `failure_days` reached the threshold; cleared by one success. */
        unreachable_since: optionalAt,
      },
      primaryKey: ["domain"],
    },
    {
      name: "federation_inbox_minutes",
      columns: {
        domain: text,
        /** The start of the minute, ISO. */
        minute: { type: "timestamp" },
        received: zero,
      },
      primaryKey: ["domain", "minute"],
      indexes: [{ name: "federation_inbox_minutes_minute_idx", columns: ["minute"] }],
    },
  ],
};
