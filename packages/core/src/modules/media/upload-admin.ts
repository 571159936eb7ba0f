import type { UploadEntity, UploadLogEntryEntity, UploadType, UserStorageEntity } from "../../mastodon/entities/media.js";
import { type MediaUrls, serializeUpload, serializeUploadLogEntry } from "../../mastodon/serializers/media.js";
import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import {
  countUploadsByState,
  findMediaAttachment,
  listUploadQueue,
  searchUploads,
  type UploadQueueSort,
} from "./media-attachments-store.js";
import { accountExists } from "./media-storage-quotas-store.js";
import type { MediaAttachmentRow, UploadState } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import type { StorageQuotas } from "./storage-quota.js";
import type { UploadLog } from "./upload-log.js";

/** The spec's processing queues, and the upload states each holds. */
export const UPLOAD_QUEUES = ["submitted", "in_progress", "completed"] as const;
export type UploadQueueName = (typeof UPLOAD_QUEUES)[number];

const STATES_OF_QUEUE: Readonly<Record<UploadQueueName, readonly UploadState[]>> = {
  submitted: ["submitted"],
  in_progress: ["in_progress"],
  // A job leaves the work queues when it ends, however it ended.
  completed: ["completed", "failed", "unsupported"],
};

export interface UploadQueueOptions {
  readonly uploadType?: UploadType;
  readonly sort: UploadQueueSort;
  readonly order: "asc" | "desc";
  readonly limit: number;
  readonly offset: number;
}

export interface UploadJobView {
  readonly queue: UploadQueueName;
  readonly upload: UploadEntity;
}

export interface UploadJobSummary {
  readonly queues: Record<UploadQueueName, number>;
  readonly byType: Record<UploadType, Record<UploadQueueName, number>>;
  readonly byState: Record<UploadState, number>;
}

function queueOf(state: UploadState): UploadQueueName | null {
  for (const queue of UPLOAD_QUEUES) if (STATES_OF_QUEUE[queue].includes(state)) return queue;
  return null;
}

/** What the administration of uploads reads: queues, counts, a user's uploads and storage, processing logs. */
export class UploadAdmin {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly quotas: StorageQuotas,
    private readonly log: UploadLog,
    private readonly urlsOf: (row: MediaAttachmentRow) => MediaUrls,
  ) {}

  async queue(name: UploadQueueName, options: UploadQueueOptions): Promise<UploadJobView[]> {
    const rows = await listUploadQueue(this.deps.storage.db, { states: STATES_OF_QUEUE[name], ...options });
    return rows.map((row) => ({ queue: name, upload: serializeUpload(row, this.urlsOf(row)) }));
  }

  async summary(): Promise<UploadJobSummary> {
    const rows = await countUploadsByState(this.deps.storage.db);
    const zeroQueues = (): Record<UploadQueueName, number> => ({ submitted: 0, in_progress: 0, completed: 0 });
    const queues = zeroQueues();
    const byType: Record<UploadType, Record<UploadQueueName, number>> = {
      IMAGE: zeroQueues(),
      VIDEO: zeroQueues(),
      AUDIO: zeroQueues(),
      DOCUMENT: zeroQueues(),
    };
    const byState: Record<UploadState, number> = {
      awaiting_upload: 0,
      submitted: 0,
      in_progress: 0,
      completed: 0,
      failed: 0,
      unsupported: 0,
    };
    for (const row of rows) {
      const state = row.state as UploadState;
      if (state in byState) byState[state] += row.count;
      const queue = queueOf(state);
      if (!queue) continue;
      queues[queue] += row.count;
      const perType = byType[row.uploadType as UploadType];
      if (perType) perType[queue] += row.count;
    }
    return { queues, byType, byState };
  }

  async search(
    accountId: string,
    filter: { uploadType?: UploadType; tags: readonly string[] },
    page: PageRequest,
  ): Promise<UploadEntity[]> {
    await this.#assertAccount(accountId);
    const rows = await searchUploads(this.deps.storage.db, { accountId, ...filter }, page);
    return rows.map((row) => serializeUpload(row, this.urlsOf(row)));
  }

  async storage(accountId: string): Promise<UserStorageEntity> {
    await this.#assertAccount(accountId);
    return { userId: accountId, ...(await this.quotas.report(accountId)) };
  }

  async logs(uploadId: string): Promise<{ upload: UploadEntity; entries: UploadLogEntryEntity[] }> {
    const row = await findMediaAttachment(this.deps.storage.db, uploadId);
    if (!row) throw new KithError("upload.not_found");
    const entries = await this.log.list(uploadId);
    return { upload: serializeUpload(row, this.urlsOf(row)), entries: entries.map(serializeUploadLogEntry) };
  }

  async #assertAccount(accountId: string): Promise<void> {
    if (!(await accountExists(this.deps.storage.db, accountId))) throw new KithError("account.not_found");
  }
}
