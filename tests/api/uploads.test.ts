import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { SqlQueue } from "@kith/core";
import { MediaService } from "../../packages/core/src/modules/media/media-service.js";
import { type TestKith, type TestUser, eventually } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { ffmpegInstalled, makePng, mediaFileDir, type MediaFileDir } from "../support/media-files.js";

interface UploadJson {
  id: string;
  accountId: string;
  type: string;
  tags: string[];
  state: string;
  mediaType: string;
  fileName: string | null;
  contentType: string | null;
  sizeBytes: number;
  url: string | null;
  previewUrl: string | null;
  error: string | null;
  meta: Record<string, unknown>;
}
interface CreatedJson {
  upload: UploadJson;
  uploadUrl: string;
  uploadUrlExpiresAt: string;
}

/** A minimal PDF: enough for its type to be detected from its first bytes. */
const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");

describeOnEngines("two-step uploads", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let files: MediaFileDir;

  beforeAll(() => {
    files = mediaFileDir();
  });
  afterAll(() => files.cleanup());
  beforeEach(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
  });
  afterEach(() => kith.close());

  const create = async (json: Record<string, unknown>, token = alice.token): Promise<Response> =>
    kith.request("POST", "/api/v1/uploads", { token, json });
  const created = async (json: Record<string, unknown>, token = alice.token): Promise<CreatedJson> => {
    const response = await create(json, token);
    expect(response.status).toBe(201);
    return (await response.json()) as CreatedJson;
  };
  const put = (uploadUrl: string, bytes: Uint8Array, token = alice.token): Promise<Response> => {
    const url = new URL(uploadUrl);
    return kith.request("PUT", `${url.pathname}${url.search}`, {
      token,
      body: Buffer.from(bytes),
      headers: { "content-type": "application/octet-stream" },
    });
  };
  const uploadOf = async (id: string, token = alice.token): Promise<UploadJson> => {
    const response = await kith.request("GET", `/api/v1/uploads/${id}`, { token });
    expect(response.status).toBe(200);
    return (await response.json()) as UploadJson;
  };
  const completed = (id: string, timeoutMs = 10_000): Promise<UploadJson> =>
    eventually(
      async () => {
        const upload = await uploadOf(id);
        expect(upload.state).toBe("completed");
        return upload;
      },
      { timeoutMs, intervalMs: 50 },
    );

  it("creates an upload, takes its content at the upload URL, and processes an image as a job", async () => {
    const { upload, uploadUrl, uploadUrlExpiresAt } = await created({
      type: "IMAGE",
      tags: ["Avatar"],
      fileName: "me.png",
      contentType: "image/png",
    });
    expect(upload).toMatchObject({
      type: "IMAGE",
      tags: ["Avatar"],
      state: "awaiting_upload",
      fileName: "me.png",
      accountId: alice.account.id,
      url: null,
    });
    expect(uploadUrl).toMatch(new RegExp(`^https://kith\\.test/api/v1/uploads/${upload.id}/content\\?token=[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(uploadUrlExpiresAt)).toBeGreaterThan(kith.clock.now().getTime());
    // Only the token's hash is stored.
    const token = new URL(uploadUrl).searchParams.get("token") ?? "";
    const rows = await kith.storage.db.selectFrom("upload_tokens").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);

    const response = await put(uploadUrl, await makePng(50, 50));
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ state: "submitted", contentType: "image/png" });

    await kith.start();
    const done = await completed(upload.id);
    expect(done).toMatchObject({ mediaType: "image", contentType: "image/png", error: null });
    expect(done.sizeBytes).toBeGreaterThan(0);
    expect((await kith.request("GET", new URL(done.url ?? "").pathname)).status).toBe(200);
    const steps = (await kith.services.media.log.list(upload.id)).map((entry) => `${entry.step}:${entry.outcome}`);
    expect(steps).toEqual([
      "create:succeeded",
      "validate:succeeded",
      "upload:succeeded",
      "process:started",
      "detect:succeeded",
      "resize:started",
      "resize:succeeded",
      "thumbnail:succeeded",
      "store:succeeded",
      "process:succeeded",
    ]);
  });

  it("queues processing on the durable SQL queue in the transaction that takes the content", async () => {
    const durable = await engine.testKith({
      queue: ({ storage, clock, ids }) => new SqlQueue({ storage, clock, ids, pollIntervalMs: 5, heartbeatIntervalMs: 20 }),
    });
    try {
      const carol = await durable.createUser("carol");
      const response = await durable.request("POST", "/api/v1/uploads", { token: carol.token, json: { type: "IMAGE", tags: ["Post"] } });
      const { upload, uploadUrl } = (await response.json()) as CreatedJson;
      const url = new URL(uploadUrl);
      const putResponse = await durable.request("PUT", `${url.pathname}${url.search}`, {
        token: carol.token,
        body: Buffer.from(await makePng()),
      });
      expect(putResponse.status).toBe(202);
      expect((await durable.queue.counts("media")).submitted).toBe(1);
      await durable.start();
      await eventually(async () => {
        const current = await durable.request("GET", `/api/v1/uploads/${upload.id}`, { token: carol.token });
        expect(((await current.json()) as UploadJson).state).toBe("completed");
      });
      await eventually(async () => expect((await durable.queue.counts("media")).finished).toBe(1));
    } finally {
      await durable.close();
    }
  });

  it.runIf(ffmpegInstalled)("processes a video and an audio file end to end", async () => {
    await kith.start();
    const video = await created({ type: "VIDEO", tags: ["Post"] });
    expect((await put(video.uploadUrl, files.video(1))).status).toBe(202);
    const audio = await created({ type: "AUDIO", tags: ["Post"] });
    expect((await put(audio.uploadUrl, files.mp3(1))).status).toBe(202);
    const doneVideo = await completed(video.upload.id, 30_000);
    expect(doneVideo).toMatchObject({ mediaType: "video", contentType: "video/mp4" });
    expect(doneVideo.previewUrl).toMatch(/\.webp$/);
    const doneAudio = await completed(audio.upload.id, 30_000);
    expect(doneAudio).toMatchObject({ mediaType: "audio", contentType: "audio/mpeg" });
    // The test's own budget: up to 30 s for each file's transcoding, which the default 20 s test timeout cut short.
  }, 70_000);

  it("keeps a document as it came and serves it as a download", async () => {
    const { upload, uploadUrl } = await created({ type: "DOCUMENT", tags: ["Post"] });
    expect((await put(uploadUrl, PDF)).status).toBe(202);
    await kith.start();
    const done = await completed(upload.id);
    const file = await kith.request("GET", new URL(done.url ?? "").pathname);
    expect(file.headers.get("content-type")).toBe("application/pdf");
    expect(file.headers.get("content-disposition")).toBe("attachment");
    expect(file.headers.get("content-security-policy")).toContain("sandbox");
  });

  it("ends unsupported, with the reason logged, when ffmpeg is not installed", async () => {
    // A media service that looks for ffmpeg where there is none takes over the media queue.
    new MediaService(kith, { ffmpeg: { ffmpeg: "/nonexistent/ffmpeg", ffprobe: "/nonexistent/ffprobe" } });
    const { upload, uploadUrl } = await created({ type: "AUDIO", tags: ["Post"] });
    const wav = ffmpegInstalled
      ? files.audio(1)
      : new Uint8Array([...new TextEncoder().encode("RIFF"), 36, 0, 0, 0, ...new TextEncoder().encode("WAVEfmt ")]);
    expect((await put(uploadUrl, wav)).status).toBe(202);
    await kith.start();
    const done = await eventually(async () => {
      const current = await uploadOf(upload.id);
      expect(current.state).toBe("unsupported");
      return current;
    });
    expect(done.error).toMatch(/ffmpeg/);
  });

  it("refuses content of another type than the upload's, and keeps the upload waiting", async () => {
    const { upload, uploadUrl } = await created({ type: "VIDEO", tags: ["Post"] });
    const response = await put(uploadUrl, await makePng());
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "media.type_mismatch" });
    expect((await uploadOf(upload.id)).state).toBe("awaiting_upload");
    const text = await put(uploadUrl, new TextEncoder().encode("<html><script>alert(1)</script></html>"));
    expect(await text.json()).toMatchObject({ code: "media.unsupported_type" });
  });

  it("the upload URL is refused to another user, with a wrong token, after it expired, and once used", async () => {
    const { upload, uploadUrl } = await created({ type: "IMAGE", tags: ["Post"] });
    const png = await makePng();
    expect((await put(uploadUrl, png, bob.token)).status).toBe(404);
    const wrong = uploadUrl.replace(/token=.*/, "token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    expect((await put(wrong, png)).status).toBe(404);
    expect((await put(uploadUrl.replace(/\?.*/, ""), png)).status).toBe(404);
    expect((await put(uploadUrl, png)).status).toBe(202);
    expect((await put(uploadUrl, png)).status).toBe(404);

    const late = await created({ type: "IMAGE", tags: ["Post"] });
    kith.clock.advance(16 * 60_000);
    const expired = await put(late.uploadUrl, png);
    expect(expired.status).toBe(404);
    expect(await expired.json()).toMatchObject({ code: "upload.url_invalid" });
    expect((await uploadOf(upload.id)).state).not.toBe("awaiting_upload");
  });

  it("an upload URL works only for its own upload", async () => {
    const first = await created({ type: "IMAGE", tags: ["Post"] });
    const second = await created({ type: "IMAGE", tags: ["Post"] });
    const token = new URL(first.uploadUrl).searchParams.get("token");
    const crossed = `https://kith.test/api/v1/uploads/${second.upload.id}/content?token=${token}`;
    expect((await put(crossed, await makePng())).status).toBe(404);
  });

  it("another user's upload id is 404", async () => {
    const { upload } = await created({ type: "IMAGE", tags: ["Post"] });
    expect((await kith.request("GET", `/api/v1/uploads/${upload.id}`, { token: bob.token })).status).toBe(404);
    expect((await kith.request("GET", "/api/v1/uploads/md_00000000000000000000000000", { token: alice.token })).status).toBe(404);
  });

  it("refuses uploads over the per-type size limit with 413", async () => {
    const limit = kith.config.limits.mediaAttachments.imageSizeLimit;
    const response = await create({ type: "IMAGE", tags: ["Post"], size: limit + 1 });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "media.too_large" });
    const { uploadUrl } = await created({ type: "IMAGE", tags: ["Post"] });
    const tooBig = new Uint8Array(limit + 1);
    const put413 = await put(uploadUrl, tooBig);
    expect(put413.status).toBe(413);
  });

  it("refuses uploads over the user's quota before storing the bytes", async () => {
    await kith.services.media.quotas.setOverride(alice.account.id, { maxBytes: 1_000, maxFiles: 3 });
    expect((await create({ type: "IMAGE", tags: ["Post"], size: 5_000 })).status).toBe(422);
    const { upload, uploadUrl } = await created({ type: "IMAGE", tags: ["Post"] });
    const response = await put(uploadUrl, await makePng(300, 300));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "media.quota_exceeded" });
    const row = await kith.storage.db.selectFrom("media_attachments").selectAll().where("id", "=", upload.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: "awaiting_upload", original_key: null });
    // The same limit holds for Mastodon's media API.
    const body = new FormData();
    body.set("file", new File([Buffer.from(await makePng(300, 300))], "a.png"));
    expect((await kith.request("POST", "/api/v1/media", { token: alice.token, body })).status).toBe(422);

    await created({ type: "IMAGE", tags: ["Post"] });
    await created({ type: "IMAGE", tags: ["Post"] });
    const fourth = await create({ type: "IMAGE", tags: ["Post"] });
    expect(fourth.status).toBe(422);
    expect(await fourth.json()).toMatchObject({ code: "media.quota_exceeded" });
    // Uploads whose URL expired without content stop counting.
    kith.clock.advance(16 * 60_000);
    expect((await create({ type: "IMAGE", tags: ["Post"] })).status).toBe(201);
  });

  it("of two concurrent contents that each fit the quota but not together, exactly one is taken", async () => {
    const png = await makePng(300, 300);
    await kith.services.media.quotas.setOverride(alice.account.id, { maxBytes: Math.floor(png.byteLength * 1.5), maxFiles: null });
    const first = await created({ type: "IMAGE", tags: ["Post"] });
    const second = await created({ type: "IMAGE", tags: ["Post"] });
    const statuses = (await Promise.all([put(first.uploadUrl, png), put(second.uploadUrl, png)])).map((response) => response.status);
    expect(statuses.sort()).toEqual([202, 422]);
    const storage = await (await kith.request("GET", "/api/v1/uploads/storage", { token: alice.token })).json();
    expect(storage.usedBytes).toBe(png.byteLength);

    const body = () => {
      const data = new FormData();
      data.set("file", new File([Buffer.from(png)], "a.png"));
      return data;
    };
    await kith.services.media.quotas.setOverride(bob.account.id, { maxBytes: Math.floor(png.byteLength * 1.5), maxFiles: null });
    const media = await Promise.all([
      kith.request("POST", "/api/v2/media", { token: bob.token, body: body() }),
      kith.request("POST", "/api/v2/media", { token: bob.token, body: body() }),
    ]);
    expect(media.map((response) => response.status).sort()).toEqual([202, 422]);
  });

  it("of concurrent creations past the file count, only those that fit are made", async () => {
    await kith.services.media.quotas.setOverride(alice.account.id, { maxBytes: null, maxFiles: 1 });
    const statuses = (await Promise.all([1, 2, 3].map(() => create({ type: "IMAGE", tags: ["Post"] })))).map((response) => response.status);
    expect(statuses.sort()).toEqual([201, 422, 422]);
  });

  it("reports the caller's storage", async () => {
    const { uploadUrl } = await created({ type: "IMAGE", tags: ["Post"] });
    await put(uploadUrl, await makePng());
    const response = await kith.request("GET", "/api/v1/uploads/storage", { token: alice.token });
    expect(response.status).toBe(200);
    const storage = await response.json();
    expect(storage).toMatchObject({
      userId: alice.account.id,
      fileCount: 1,
      countsByType: { IMAGE: 1, VIDEO: 0 },
      limits: { override: false },
    });
    expect(storage.usedBytes).toBeGreaterThan(0);
  });

  it("keeps a client's file name for display only, without its path", async () => {
    const { upload } = await created({ type: "IMAGE", tags: ["Post"], fileName: "..\\..\\windows/../../etc/evil.png" });
    expect(upload.fileName).toBe("evil.png");
  });

  it("refuses bad values: unknown type, bad tags, bad focus", async () => {
    expect((await create({ type: "SPREADSHEET", tags: [] })).status).toBe(422);
    expect((await create({ type: "IMAGE", tags: ["no spaces allowed"] })).status).toBe(422);
    expect((await create({ type: "IMAGE", tags: ['"%'] })).status).toBe(422);
    expect((await create({ type: "IMAGE", tags: [], focus: "left" })).status).toBe(422);
  });

  it("a truncated file ends failed with its reason in the upload", async () => {
    const png = await makePng(300, 300);
    const { upload, uploadUrl } = await created({ type: "IMAGE", tags: ["Post"] });
    expect((await put(uploadUrl, png.subarray(0, png.byteLength / 2))).status).toBe(202);
    await kith.start();
    const failed = await eventually(async () => {
      const current = await uploadOf(upload.id);
      expect(current.state).toBe("failed");
      return current;
    });
    expect(failed.error).toMatch(/image/i);
    expect(failed.url).toBeNull();
  });
});
