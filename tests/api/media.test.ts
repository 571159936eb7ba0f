import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { type TestKith, type TestUser, eventually } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import {
  ffmpegInstalled,
  imageInfo,
  makeJpegWithExif,
  makePixelBomb,
  makePng,
  makeWebp,
  mediaFileDir,
  type MediaFileDir,
} from "../support/media-files.js";

interface MediaJson {
  id: string;
  type: string;
  url: string | null;
  preview_url: string | null;
  remote_url: string | null;
  preview_remote_url: string | null;
  text_url: string | null;
  meta: Record<string, unknown> & {
    original?: { width?: number; height?: number };
    small?: { width?: number };
    focus?: { x: number; y: number };
  };
  description: string | null;
  blurhash: string | null;
}

function form(file: Uint8Array, name: string, type: string, fields: Record<string, string> = {}): FormData {
  const data = new FormData();
  data.set("file", new File([Buffer.from(file)], name, { type }));
  for (const [key, value] of Object.entries(fields)) data.set(key, value);
  return data;
}

describeOnEngines("Mastodon's media API", (engine) => {
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

  const upload = (version: "v1" | "v2", body: FormData, token = alice.token) =>
    kith.request("POST", `/api/${version}/media`, { token, body });
  const fetchPath = (url: string) => kith.request("GET", new URL(url).pathname);

  it("POST /api/v2/media answers 202 while processing, GET answers 206, then 200 with the files once the job ran", async () => {
    const response = await upload("v2", form(await makePng(64, 48), "cat.png", "image/png", { description: "A blue square" }));
    expect(response.status).toBe(202);
    const created = (await response.json()) as MediaJson;
    expect(created).toMatchObject({ type: "image", url: null, description: "A blue square", remote_url: null, text_url: null });
    expect(created.id).toMatch(/^md_/);
    expect((await kith.request("GET", `/api/v1/media/${created.id}`, { token: alice.token })).status).toBe(206);

    await kith.start();
    const done = await eventually(async () => {
      const poll = await kith.request("GET", `/api/v1/media/${created.id}`, { token: alice.token });
      expect(poll.status).toBe(200);
      return (await poll.json()) as MediaJson;
    });
    expect(done.url).toMatch(/^https:\/\/kith\.test\/media\/md_[0-9a-z]+\/file-[0-9a-f]{32}\.png$/);
    expect(done.preview_url).toMatch(/small-[0-9a-f]{32}\.webp$/);
    expect(done.meta.original).toMatchObject({ width: 64, height: 48, size: "64x48" });
    expect(typeof done.blurhash).toBe("string");

    const file = await fetchPath(done.url ?? "");
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(file.headers.get("cache-control")).toContain("immutable");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await imageInfo(new Uint8Array(await file.arrayBuffer()))).format).toBe("png");
    const preview = await fetchPath(done.preview_url ?? "");
    expect(preview.headers.get("content-type")).toBe("image/webp");
  });

  it("POST /api/v1/media processes at once; EXIF is removed and the orientation applied", async () => {
    const response = await upload("v1", form(await makeJpegWithExif(80, 40), "photo.jpg", "image/jpeg"));
    expect(response.status).toBe(200);
    const media = (await response.json()) as MediaJson;
    expect(media.type).toBe("image");
    // Orientation 6 turns the 80x40 picture upright as 40x80.
    expect(media.meta.original).toMatchObject({ width: 40, height: 80 });
    const bytes = new Uint8Array(await (await fetchPath(media.url ?? "")).arrayBuffer());
    expect(Buffer.from(bytes).includes("KITH-SECRET-ARTIST")).toBe(false);
    const info = await imageInfo(bytes);
    expect(info).toMatchObject({ format: "jpeg", width: 40, height: 80 });
    expect(info.exif).toBeUndefined();
  });

  it("keeps WebP as WebP", async () => {
    const media = (await (await upload("v1", form(await makeWebp(30, 20), "a.webp", "image/webp"))).json()) as MediaJson;
    expect(media.url).toMatch(/\.webp$/);
    expect((await fetchPath(media.url ?? "")).headers.get("content-type")).toBe("image/webp");
  });

  it.runIf(ffmpegInstalled)("transcodes a video through the queue: MP4 with a preview frame and its duration", async () => {
    await kith.start();
    const response = await upload("v2", form(files.video(1), "clip.mov", "video/quicktime"));
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as MediaJson;
    const done = await eventually(
      async () => {
        const poll = await kith.request("GET", `/api/v1/media/${id}`, { token: alice.token });
        expect(poll.status).toBe(200);
        return (await poll.json()) as MediaJson;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(done.type).toBe("video");
    expect(done.url).toMatch(/\.mp4$/);
    expect(done.preview_url).toMatch(/\.webp$/);
    expect(done.meta.original).toMatchObject({ width: 320, height: 240 });
    expect(Number(done.meta.duration)).toBeGreaterThan(0.5);
    const file = await fetchPath(done.url ?? "");
    expect(file.headers.get("content-type")).toBe("video/mp4");
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp");
  });

  it.runIf(ffmpegInstalled)("refuses a video over the frame size or the frame rate the instance allows, with the reason", async () => {
    const limits = kith.config.limits;
    const strict = await engine.testKith({
      limits: { ...limits, mediaAttachments: { ...limits.mediaAttachments, videoMatrixLimit: 160 * 120 } },
    });
    try {
      const carol = await strict.createUser("carol");
      const refused = await strict.request("POST", "/api/v1/media", { token: carol.token, body: form(files.video(1), "clip.mp4", "video/mp4") });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { error: string }).error).toMatch(/320x240 pixels, more than the 19200/);

      const fast = await engine.testKith({
        limits: { ...limits, mediaAttachments: { ...limits.mediaAttachments, videoFrameRateLimit: 10 } },
      });
      try {
        const dave = await fast.createUser("dave");
        const tooFast = await fast.request("POST", "/api/v1/media", { token: dave.token, body: form(files.video(1), "clip.mp4", "video/mp4") });
        expect(tooFast.status).toBe(422);
        expect(((await tooFast.json()) as { error: string }).error).toMatch(/25\.0 frames a second, more than 10/);
      } finally {
        await fast.close();
      }
    } finally {
      await strict.close();
    }
  });

  it.runIf(ffmpegInstalled)("transcodes audio to MP3 with its length", async () => {
    const response = await upload("v1", form(files.audio(1), "tone.wav", "audio/wav"));
    expect(response.status).toBe(200);
    const media = (await response.json()) as MediaJson;
    expect(media.type).toBe("audio");
    expect(media.url).toMatch(/\.mp3$/);
    expect(media.meta.length).toMatch(/^0:00:0[01]/);
    expect((await fetchPath(media.url ?? "")).headers.get("content-type")).toBe("audio/mpeg");
  });

  it("refuses a file whose content is no media type, whatever its name and declared type", async () => {
    const script = new TextEncoder().encode("#!/bin/sh\necho pwned\n");
    const response = await upload("v1", form(script, "cat.png", "image/png"));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "media.unsupported_type" });
  });

  it("judges the type from the content, not from a spoofed extension", async () => {
    const media = (await (await upload("v1", form(await makePng(10, 10), "song.mp3", "audio/mpeg"))).json()) as MediaJson;
    expect(media.type).toBe("image");
    expect(media.url).toMatch(/\.png$/);
  });

  it("a truncated image ends failed with its reason, never a 500", async () => {
    const png = await makePng(200, 200);
    const truncated = png.subarray(0, Math.floor(png.byteLength / 2));
    const sync = await upload("v1", form(truncated, "half.png", "image/png"));
    expect(sync.status).toBe(422);
    expect(await sync.json()).toMatchObject({ code: "media.processing_failed" });

    await kith.start();
    const queued = (await (await upload("v2", form(truncated, "half.png", "image/png"))).json()) as MediaJson;
    await eventually(async () => {
      const poll = await kith.request("GET", `/api/v1/media/${queued.id}`, { token: alice.token });
      expect(poll.status).toBe(422);
      expect(((await poll.json()) as { error: string }).error).toMatch(/image/i);
    });
  });

  it("refuses a decompression bomb by its pixel count", async () => {
    const bomb = await makePixelBomb(7_000, 7_000);
    expect(bomb.byteLength).toBeLessThan(kith.config.limits.mediaAttachments.imageSizeLimit);
    const response = await upload("v1", form(bomb, "bomb.png", "image/png"));
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: string }).error).toMatch(/pixels/);
  });

  it("refuses an image over the size limit with 413 before storing it", async () => {
    const small = await engine.testKith({
      limits: { ...kith.config.limits, mediaAttachments: { ...kith.config.limits.mediaAttachments, imageSizeLimit: 100 } },
    });
    try {
      const user = await small.createUser("carol");
      const response = await small.request("POST", "/api/v1/media", {
        token: user.token,
        body: form(await makePng(64, 64), "a.png", "image/png"),
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ code: "media.too_large" });
      expect(await small.storage.db.selectFrom("media_attachments").selectAll().execute()).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it("another user's attachment is 404 for GET, PUT and DELETE", async () => {
    const media = (await (await upload("v1", form(await makePng(), "a.png", "image/png"))).json()) as MediaJson;
    expect((await kith.request("GET", `/api/v1/media/${media.id}`, { token: bob.token })).status).toBe(404);
    expect((await kith.request("PUT", `/api/v1/media/${media.id}`, { token: bob.token, json: { description: "mine" } })).status).toBe(404);
    expect((await kith.request("DELETE", `/api/v1/media/${media.id}`, { token: bob.token })).status).toBe(404);
    expect((await kith.request("GET", "/api/v1/media/md_00000000000000000000000000", { token: alice.token })).status).toBe(404);
  });

  it("PUT /api/v1/media/:id changes the description and focal point, and refuses bad values", async () => {
    const media = (await (await upload("v1", form(await makePng(), "a.png", "image/png"))).json()) as MediaJson;
    const response = await kith.request("PUT", `/api/v1/media/${media.id}`, {
      token: alice.token,
      form: { description: "Now described", focus: "0.5,-0.25" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ description: "Now described", meta: { focus: { x: 0.5, y: -0.25 } } });
    const badFocus = await kith.request("PUT", `/api/v1/media/${media.id}`, { token: alice.token, json: { focus: "2,0" } });
    expect(badFocus.status).toBe(422);
    const long = await kith.request("PUT", `/api/v1/media/${media.id}`, { token: alice.token, json: { description: "x".repeat(1_501) } });
    expect(long.status).toBe(422);
  });

  it("a custom thumbnail becomes the preview", async () => {
    const body = form(await makePng(64, 48), "a.png", "image/png");
    body.set("thumbnail", new File([Buffer.from(await makeWebp(20, 20))], "thumb.webp", { type: "image/webp" }));
    const media = (await (await upload("v1", body)).json()) as MediaJson;
    const preview = await fetchPath(media.preview_url ?? "");
    expect((await imageInfo(new Uint8Array(await preview.arrayBuffer()))).width).toBe(20);
  });

  it("a client's file name never reaches a storage key or URL", async () => {
    const media = (await (await upload("v1", form(await makePng(), "../../../etc/passwd.png", "image/png"))).json()) as MediaJson;
    expect(media.url).not.toContain("passwd");
    const row = await kith.storage.db.selectFrom("media_attachments").selectAll().where("id", "=", media.id).executeTakeFirstOrThrow();
    expect(row.file_name).toBe("passwd.png");
    expect(row.file_key).toMatch(new RegExp(`^media/${media.id}/file-[0-9a-f]{32}\\.png$`));
    for (const path of [
      `/media/${media.id}/..%2F..%2Fetc%2Fpasswd`,
      `/media/${media.id}/passwd.png`,
      `/media/${media.id}/%2e%2e`,
      "/media/..%2Fmedia/x",
    ]) {
      expect((await kith.request("GET", path)).status).toBe(404);
    }
  });

  it("a request without a file is refused", async () => {
    const body = new FormData();
    body.set("description", "no file");
    const response = await upload("v2", body);
    expect([400, 422]).toContain(response.status);
  });

  it("serves byte ranges, and 304 for a matching ETag", async () => {
    const media = (await (await upload("v1", form(await makePng(64, 64), "a.png", "image/png"))).json()) as MediaJson;
    const path = new URL(media.url ?? "").pathname;
    const whole = await kith.request("GET", path);
    const bytes = new Uint8Array(await whole.arrayBuffer());
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    const etag = whole.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"file-[0-9a-f]{32}\.png"$/);

    const part = await kith.request("GET", path, { headers: { range: "bytes=1-3" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 1-3/${bytes.byteLength}`);
    expect([...new Uint8Array(await part.arrayBuffer())]).toEqual([...bytes.subarray(1, 4)]);
    const tail = await kith.request("GET", path, { headers: { range: "bytes=-4" } });
    expect([...new Uint8Array(await tail.arrayBuffer())]).toEqual([...bytes.subarray(bytes.byteLength - 4)]);
    const beyond = await kith.request("GET", path, { headers: { range: `bytes=${bytes.byteLength}-` } });
    expect(beyond.status).toBe(416);
    expect((await kith.request("GET", path, { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  it("DELETE removes an unattached attachment and its files", async () => {
    const media = (await (await upload("v1", form(await makePng(), "a.png", "image/png"))).json()) as MediaJson;
    const response = await kith.request("DELETE", `/api/v1/media/${media.id}`, { token: alice.token });
    expect(response.status).toBe(200);
    expect((await kith.request("GET", `/api/v1/media/${media.id}`, { token: alice.token })).status).toBe(404);
    expect((await fetchPath(media.url ?? "")).status).toBe(404);
  });
});
