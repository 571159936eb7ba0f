import { getLogger } from "../../logging.js";
import { insertUploadLog, listUploadLogs, type UploadLogRow } from "./media-upload-logs-store.js";
import type { ServiceDeps } from "../service-deps.js";

export type UploadLogOutcome = "started" | "succeeded" | "failed" | "skipped";

/** The processing log of uploads: each workflow step, when, and what went wrong. */
export class UploadLog {
  readonly #logger = getLogger(["media"]);

  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids">) {}

  async record(uploadId: string, step: string, outcome: UploadLogOutcome, message: string | null = null): Promise<void> {
    if (outcome === "failed") this.#logger.info("Upload {uploadId}: {step} failed: {message}", { uploadId, step, message });
    await insertUploadLog(this.deps.storage.db, {
      id: this.deps.ids.next("upload"),
      upload_id: uploadId,
      step,
      outcome,
      message,
      created_at: this.deps.clock.now().toISOString(),
    });
  }

  list(uploadId: string): Promise<UploadLogRow[]> {
    return listUploadLogs(this.deps.storage.db, uploadId);
  }
}
