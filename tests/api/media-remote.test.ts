import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { type EngineKithOptions, describeOnEngines } from "../support/engines.js";
import { imageInfo, makePng } from "../support/media-files.js";

/** Another server's media, on loopback: a PNG, a text file, and a count of requests. */
describeOnEngines("remote media", (engine) => {
  let server: Server;
  let base: string;
  let png: Uint8Array;
  const hits: string[] = [];
  let kith: TestKith | null = null;

  beforeAll(async () => {
    png = await makePng(40, 30);
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      if (req.url === "/cat.png") {
        res.writeHead(200, { "content-type": "image/png" });
        res.end(Buffer.from(png));
      } else if (req.url === "/notes.txt") {
        // Claims to be an image; the content says otherwise.
        res.writeHead(200, { "content-type": "image/png" });
        res.end("plain words");
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(async () => {
    hits.length = 0;
    await kith?.close();
    kith = null;
  });

  async function start(
    allowPrivateAddress: boolean,
    limits?: EngineKithOptions["limits"],
  ): Promise<{ kith: TestKith; user: TestUser }> {
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress }, ...(limits && { limits }) });
    return { kith, user: await kith.createUser("alice") };
  }

  it("records a remote attachment without fetching it, then fetches and processes it when first asked for", async () => {
    const { kith, user } = await start(true);
    const media = await kith.services.media.registerRemote({
      accountId: user.account.id,
      remoteUrl: `${base}/cat.png`,
      type: "image",
      description: "A cat",
    });
    expect(media).toMatchObject({
      type: "image",
      remote_url: `${base}/cat.png`,
      description: "A cat",
      url: `https://kith.test/media/${media.id}/original`,
    });
    expect(hits).toEqual([]);

    const response = await kith.request("GET", `/media/${media.id}/original`);
    expect(response.status).toBe(302);
    const location = response.headers.get("location") ?? "";
    expect(location).toMatch(new RegExp(`/media/${media.id}/file-[0-9a-f]{32}\\.png$`));
    expect(hits).toEqual(["/cat.png"]);
    const file = await kith.request("GET", new URL(location).pathname);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(await imageInfo(new Uint8Array(await file.arrayBuffer()))).toMatchObject({ width: 40, height: 30 });

    const rendered = (await kith.services.media.render([media.id])).get(media.id);
    expect(rendered?.url).toBe(location);
    expect(rendered?.remote_url).toBe(`${base}/cat.png`);
    // Fetched once: later requests are served from storage.
    expect((await kith.request("GET", `/media/${media.id}/small`)).status).toBe(302);
    expect(hits).toEqual(["/cat.png"]);
    const steps = (await kith.services.media.log.list(media.id)).map((entry) => `${entry.step}:${entry.outcome}`);
    expect(steps).toContain("fetch:succeeded");
    expect(steps.at(-1)).toBe("process:succeeded");
  });

  it("refuses loopback and private addresses unless the config allows them", async () => {
    const { kith, user } = await start(false);
    const media = await kith.services.media.registerRemote({ accountId: user.account.id, remoteUrl: `${base}/cat.png`, type: "image" });
    expect((await kith.request("GET", `/media/${media.id}/original`)).status).toBe(404);
    expect(hits).toEqual([]);
    const row = await kith.storage.db.selectFrom("media_attachments").selectAll().where("id", "=", media.id).executeTakeFirstOrThrow();
    expect(row.state).toBe("failed");
    expect(row.error).toMatch(/refused/);
  });

  it("checks remote content like an upload: type from the bytes, size limits", async () => {
    const { kith, user } = await start(true);
    const text = await kith.services.media.registerRemote({ accountId: user.account.id, remoteUrl: `${base}/notes.txt`, type: "image" });
    expect((await kith.request("GET", `/media/${text.id}/original`)).status).toBe(404);
    const row = await kith.storage.db.selectFrom("media_attachments").selectAll().where("id", "=", text.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: "failed", error: expect.stringMatching(/no supported type/) });
    await kith.close();

    const limits = kith.config.limits;
    const { kith: small, user: carol } = await start(true, {
      ...limits,
      mediaAttachments: { ...limits.mediaAttachments, imageSizeLimit: 50, videoSizeLimit: 50 },
    });
    const big = await small.services.media.registerRemote({ accountId: carol.account.id, remoteUrl: `${base}/cat.png`, type: "image" });
    expect((await small.request("GET", `/media/${big.id}/original`)).status).toBe(404);
    const bigRow = await small.storage.db.selectFrom("media_attachments").selectAll().where("id", "=", big.id).executeTakeFirstOrThrow();
    expect(bigRow.state).toBe("failed");
  });

  it("refuses addresses that are not http or https", async () => {
    const { kith, user } = await start(true);
    for (const remoteUrl of ["file:///etc/passwd", "not a url", "ftp://example.com/a.png"]) {
      await expect(kith.services.media.registerRemote({ accountId: user.account.id, remoteUrl })).rejects.toMatchObject({
        code: "media.remote_refused",
      });
    }
  });
});
