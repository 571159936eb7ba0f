import type { Kysely } from "kysely";
import type { UploadType } from "../../mastodon/entities/media.js";
import { UPLOAD_TYPES } from "../../mastodon/entities/media.js";
import { KithError } from "../../domain/errors.js";
import { storageUsage } from "./media-attachments-store.js";
import { findStorageQuota, upsertStorageQuota } from "./media-storage-quotas-store.js";
import type { Database } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import { maxFileBytes } from "./media-types.js";

/** Storage a user may fill unless an administrator set their own limits. */
export interface StorageQuotaDefaults {
  /** @default 1 GiB */
  readonly maxBytes: number;
  /** @default 10 000 files */
  readonly maxFiles: number;
}

export const DEFAULT_STORAGE_QUOTA: StorageQuotaDefaults = { maxBytes: 1024 ** 3, maxFiles: 10_000 };

export interface StorageReport {
  readonly usedBytes: number;
  readonly fileCount: number;
  readonly countsByType: Record<UploadType, number>;
  readonly bytesByType: Record<UploadType, number>;
  readonly limits: {
    readonly maxBytes: number;
    readonly maxFiles: number;
    readonly maxFileBytes: Readonly<Record<UploadType, number>>;
    readonly override: boolean;
  };
}

function zeroByType(): Record<UploadType, number> {
  return Object.fromEntries(UPLOAD_TYPES.map((type) => [type, 0])) as Record<UploadType, number>;
}

/** What each user stores, and the limits that hold for them. */
export class StorageQuotas {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "config">,
    private readonly defaults: StorageQuotaDefaults = DEFAULT_STORAGE_QUOTA,
  ) {}

  async report(accountId: string, db: Kysely<Database> = this.deps.storage.db): Promise<StorageReport> {
    const rows = await storageUsage(db, accountId, this.deps.clock.now().toISOString());
    const override = await findStorageQuota(db, accountId);
    const countsByType = zeroByType();
    const bytesByType = zeroByType();
    for (const row of rows) {
      const type = row.uploadType as UploadType;
      if (!(type in countsByType)) continue;
      countsByType[type] += row.files;
      bytesByType[type] += row.bytes;
    }
    return {
      usedBytes: Object.values(bytesByType).reduce((a, b) => a + b, 0),
      fileCount: Object.values(countsByType).reduce((a, b) => a + b, 0),
      countsByType,
      bytesByType,
      limits: {
        maxBytes: override?.max_bytes ?? this.defaults.maxBytes,
        maxFiles: override?.max_files ?? this.defaults.maxFiles,
        maxFileBytes: maxFileBytes(this.deps.config.limits),
        override: override !== null && (override.max_bytes !== null || override.max_files !== null),
      },
    };
  }

  /**
   * Refuses a file that would take the user over their quota, before its
   * bytes are stored. `newFile` is false when the file replaces the content
   * of an upload already counted. Given a transaction holding the user's row
   * (`holdUserRow`), the check holds until it commits.
   */
  async assertRoom(
    accountId: string,
    bytes: number,
    options: { newFile: boolean; alreadyCountedBytes?: number } = { newFile: true },
    db: Kysely<Database> = this.deps.storage.db,
  ): Promise<void> {
    const report = await this.report(accountId, db);
    const usedBytes = report.usedBytes - (options.alreadyCountedBytes ?? 0);
    if (usedBytes + bytes > report.limits.maxBytes) {
      throw new KithError("media.quota_exceeded", {
        message: `This file needs ${bytes} bytes; ${Math.max(0, report.limits.maxBytes - usedBytes)} of your ${report.limits.maxBytes} are left`,
      });
    }
    if (options.newFile && report.fileCount + 1 > report.limits.maxFiles) {
      throw new KithError("media.quota_exceeded", { message: `You already store ${report.fileCount} files, the most allowed` });
    }
  }

  /** Sets a user's own limits; null falls back to the server's default. */
  async setOverride(accountId: string, limits: { maxBytes: number | null; maxFiles: number | null }): Promise<void> {
    await upsertStorageQuota(this.deps.storage.db, {
      account_id: accountId,
      max_bytes: limits.maxBytes,
      max_files: limits.maxFiles,
      updated_at: this.deps.clock.now().toISOString(),
    });
  }
}
