import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { MediaService } from "../../packages/core/src/modules/media/media-service.js";
import { type TestKith, type TestUser, eventually } from "@kith/core/testing";
import { giveGrants } from "../support/roles.js";
import { describeOnEngines } from "../support/engines.js";
import { ffmpegInstalled, makePng, mediaFileDir } from "../support/media-files.js";

interface UploadJson {
  id: string;
  type: string;
  tags: string[];
  state: string;
}
interface JobJson {
  id: string;
  queue: string;
  state: string;
  type: string;
  userId: string;
  submittedAt: string | null;
  processingMs: number | null;
  upload: UploadJson;
}

const ENDPOINTS = [
  "/api/v1/admin/uploads/jobs/queue/submitted",
  "/api/v1/admin/uploads/jobs/summary",
  "/api/v1/admin/uploads/search?userId=us_00000000000000000000000000",
  "/api/v1/admin/uploads/storage/us_00000000000000000000000000",
  "/api/v1/admin/uploads/md_00000000000000000000000000/logs",
];

const PDF = new TextEncoder().encode("%PDF-1.4\n%%EOF\n");

describeOnEngines("admin uploads", (engine) => {
  let kith: TestKith;
  let admin: TestUser;
  let alice: TestUser;

  beforeEach(async () => {
    kith = await engine.testKith();
    admin = await kith.createUser("moderator");
    await giveGrants(kith, admin.account.id, [{ resource: "Uploads", access: ["Read"], scope: "global" }]);
    alice = await kith.createUser("alice");
  });
  afterEach(() => kith.close());

  const get = (path: string, token = admin.token) => kith.request("GET", path, { token });

  /** Creates an upload of alice's and sends its content. */
  async function upload(type: string, tags: string[], bytes: Uint8Array): Promise<string> {
    const created = await kith.request("POST", "/api/v1/uploads", { token: alice.token, json: { type, tags } });
    const { upload, uploadUrl } = (await created.json()) as { upload: UploadJson; uploadUrl: string };
    const url = new URL(uploadUrl);
    const put = await kith.request("PUT", `${url.pathname}${url.search}`, { token: alice.token, body: Buffer.from(bytes) });
    expect(put.status).toBe(202);
    return upload.id;
  }

  it.each(ENDPOINTS)("GET %s needs a token (401) and Uploads.Read (403)", async (path) => {
    expect((await kith.request("GET", path)).status).toBe(401);
    expect((await get(path, alice.token)).status).toBe(403);
  });

  it("lists jobs per queue, filtered by type and sorted by submission time or duration", async () => {
    const first = await upload("IMAGE", ["Post"], await makePng(10, 10));
    kith.clock.advance(1_000);
    const second = await upload("DOCUMENT", ["Post"], PDF);
    kith.clock.advance(1_000);
    const third = await upload("IMAGE", ["Avatar"], await makePng(20, 20));

    const submitted = (await (await get("/api/v1/admin/uploads/jobs/queue/submitted")).json()) as JobJson[];
    expect(submitted.map((job) => job.id)).toEqual([first, second, third]);
    expect(submitted[0]).toMatchObject({ queue: "submitted", state: "submitted", type: "IMAGE", userId: alice.account.id });
    const images = (await (await get("/api/v1/admin/uploads/jobs/queue/submitted?type=IMAGE&order=desc")).json()) as JobJson[];
    expect(images.map((job) => job.id)).toEqual([third, first]);
    const paged = (await (await get("/api/v1/admin/uploads/jobs/queue/submitted?limit=1&offset=1")).json()) as JobJson[];
    expect(paged.map((job) => job.id)).toEqual([second]);

    await kith.start();
    await eventually(async () => {
      const completed = (await (await get("/api/v1/admin/uploads/jobs/queue/completed?sort=processingDuration")).json()) as JobJson[];
      expect(completed).toHaveLength(3);
      for (const job of completed) expect(job.processingMs).not.toBeNull();
    });
    expect(await (await get("/api/v1/admin/uploads/jobs/queue/submitted")).json()).toEqual([]);
    expect((await get("/api/v1/admin/uploads/jobs/queue/sideways")).status).toBe(404);
    expect((await get("/api/v1/admin/uploads/jobs/queue/completed?type=SPREADSHEET")).status).toBe(422);
  });

  it("sorts completed jobs by processing duration, longest first", async () => {
    const ids = [await upload("IMAGE", ["Post"], await makePng()), await upload("IMAGE", ["Post"], await makePng())];
    await kith.start();
    await eventually(async () => expect((await kith.services.media.admin.summary()).queues.completed).toBe(2));
    // The fake clock does not move while jobs run: give the jobs durations as a slow worker would have taken.
    await kith.storage.db
      .updateTable("media_attachments")
      .set({ processing_ms: 50 })
      .where("id", "=", ids[0] ?? "")
      .execute();
    await kith.storage.db
      .updateTable("media_attachments")
      .set({ processing_ms: 900 })
      .where("id", "=", ids[1] ?? "")
      .execute();
    const longest = (await (await get("/api/v1/admin/uploads/jobs/queue/completed?sort=processingDuration")).json()) as JobJson[];
    expect(longest.map((job) => job.processingMs)).toEqual([900, 50]);
    const shortest = (await (
      await get("/api/v1/admin/uploads/jobs/queue/completed?sort=processingDuration&order=asc")
    ).json()) as JobJson[];
    expect(shortest.map((job) => job.processingMs)).toEqual([50, 900]);
  });

  it.runIf(ffmpegInstalled)("lists a job in the in_progress queue while it runs, then in completed", async () => {
    // ffprobe behind a gate the test opens: the job stays in progress until then, with no timing involved.
    const dir = mkdtempSync(join(tmpdir(), "kith-gated-ffprobe-"));
    const gate = join(dir, "open");
    const entered = join(dir, "entered");
    const gated = join(dir, "ffprobe");
    writeFileSync(
      gated,
      `#!/bin/sh\ncase "$*" in *-show_streams*) touch '${entered}'; while [ ! -e '${gate}' ]; do sleep 0.05; done;; esac\nexec ffprobe "$@"\n`,
    );
    chmodSync(gated, 0o755);
    const files = mediaFileDir();
    try {
      new MediaService(kith, { ffmpeg: { ffmpeg: "ffmpeg", ffprobe: gated } });
      const id = await upload("AUDIO", ["Post"], files.audio(1));
      await kith.start();
      await eventually(() => expect(existsSync(entered)).toBe(true), { timeoutMs: 10_000 });
      const running = (await (await get("/api/v1/admin/uploads/jobs/queue/in_progress?type=AUDIO")).json()) as JobJson[];
      expect(running.map((job) => [job.id, job.state])).toEqual([[id, "in_progress"]]);
      expect(await (await get("/api/v1/admin/uploads/jobs/summary")).json()).toMatchObject({
        queues: { submitted: 0, in_progress: 1, completed: 0 },
      });
      writeFileSync(gate, "");
      await eventually(
        async () => {
          const done = (await (await get("/api/v1/admin/uploads/jobs/queue/completed?type=AUDIO")).json()) as JobJson[];
          expect(done.map((job) => job.id)).toEqual([id]);
        },
        { timeoutMs: 20_000 },
      );
      expect(await (await get("/api/v1/admin/uploads/jobs/queue/in_progress")).json()).toEqual([]);
    } finally {
      writeFileSync(gate, "");
      files.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("counts jobs per queue and per type", async () => {
    await upload("IMAGE", ["Post"], await makePng());
    await upload("DOCUMENT", ["Post"], PDF);
    await kith.request("POST", "/api/v1/uploads", { token: alice.token, json: { type: "VIDEO", tags: [] } });
    const summary = await (await get("/api/v1/admin/uploads/jobs/summary")).json();
    expect(summary).toMatchObject({
      queues: { submitted: 2, in_progress: 0, completed: 0 },
      byType: { IMAGE: { submitted: 1 }, DOCUMENT: { submitted: 1 }, VIDEO: { submitted: 0 } },
      byState: { awaiting_upload: 1, submitted: 2 },
    });
  });

  it("searches a user's uploads by type and tags, with pagination", async () => {
    const avatar = await upload("IMAGE", ["Avatar"], await makePng());
    const post = await upload("IMAGE", ["Post", "Header"], await makePng());
    const doc = await upload("DOCUMENT", ["Post"], PDF);
    const search = async (query: string): Promise<Response> => get(`/api/v1/admin/uploads/search?userId=${alice.account.id}${query}`);
    const ids = async (query: string): Promise<string[]> => ((await (await search(query)).json()) as UploadJson[]).map((item) => item.id);
    expect(await ids("")).toEqual([doc, post, avatar]);
    expect(await ids("&type=IMAGE")).toEqual([post, avatar]);
    expect(await ids("&tags=Post")).toEqual([doc, post]);
    expect(await ids("&tags[]=post&tags[]=header")).toEqual([post]);
    expect(await ids("&type=DOCUMENT&tags=Avatar")).toEqual([]);
    const firstPage = await search("&limit=2");
    expect(((await firstPage.json()) as UploadJson[]).map((item) => item.id)).toEqual([doc, post]);
    const next = /<([^>]+)>; rel="next"/.exec(firstPage.headers.get("link") ?? "")?.[1] ?? "";
    const url = new URL(next);
    expect(((await (await get(`${url.pathname}${url.search}`)).json()) as UploadJson[]).map((item) => item.id)).toEqual([avatar]);
    expect((await get("/api/v1/admin/uploads/search")).status).toBe(400);
    expect((await get("/api/v1/admin/uploads/search?userId=us_00000000000000000000000000")).status).toBe(404);
  });

  it("reports a user's storage with the limits, per-user overrides included", async () => {
    await upload("IMAGE", ["Post"], await makePng());
    await upload("DOCUMENT", ["Post"], PDF);
    const before = await (await get(`/api/v1/admin/uploads/storage/${alice.account.id}`)).json();
    expect(before).toMatchObject({
      userId: alice.account.id,
      fileCount: 2,
      countsByType: { IMAGE: 1, DOCUMENT: 1, VIDEO: 0, AUDIO: 0 },
      limits: { override: false },
    });
    expect(before.usedBytes).toBe(before.bytesByType.IMAGE + before.bytesByType.DOCUMENT);
    expect(before.limits.maxFileBytes.IMAGE).toBe(kith.config.limits.mediaAttachments.imageSizeLimit);
    await kith.services.media.quotas.setOverride(alice.account.id, { maxBytes: 5_000_000, maxFiles: null });
    const after = await (await get(`/api/v1/admin/uploads/storage/${alice.account.id}`)).json();
    expect(after.limits).toMatchObject({ maxBytes: 5_000_000, maxFiles: 10_000, override: true });
    expect((await get("/api/v1/admin/uploads/storage/us_00000000000000000000000000")).status).toBe(404);
  });

  it("shows an upload's processing log, a failure's reason included", async () => {
    const png = await makePng(200, 200);
    const id = await upload("IMAGE", ["Post"], png.subarray(0, png.byteLength / 2));
    await kith.start();
    const log = await eventually(async () => {
      const body = (await (await get(`/api/v1/admin/uploads/${id}/logs`)).json()) as {
        upload: UploadJson;
        entries: { step: string; outcome: string; message: string | null; at: string }[];
      };
      expect(body.upload.state).toBe("failed");
      return body;
    });
    expect(log.entries.map((entry) => `${entry.step}:${entry.outcome}`)).toEqual([
      "create:succeeded",
      "validate:succeeded",
      "upload:succeeded",
      "process:started",
      "detect:succeeded",
      "resize:started",
      "process:failed",
    ]);
    expect(log.entries.at(-1)?.message).toMatch(/image/i);
    for (const entry of log.entries) expect(entry.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect((await get("/api/v1/admin/uploads/md_00000000000000000000000000/logs")).status).toBe(404);
  });
});
