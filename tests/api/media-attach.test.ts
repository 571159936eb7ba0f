import { afterEach, beforeEach, expect, it } from "vitest";
import { statusOf } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { makePng } from "../support/media-files.js";

/** What posts and profiles call: attaching media in the post's transaction, rendering, public URLs. */
describeOnEngines("media for posts and profiles", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;

  beforeEach(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
  });
  afterEach(() => kith.close());

  const pngFile = async (width = 16, height = 16): Promise<File> =>
    new File([Buffer.from(await makePng(width, height))], "a.png", { type: "image/png" });
  const ingest = async (user: TestUser, tags: string[] = ["Post"]): Promise<string> =>
    (await kith.services.media.ingestFile({ accountId: user.account.id, file: await pngFile(), tags })).id;
  const post = async (user: TestUser, text: string): Promise<string> => {
    const response = await kith.request("POST", "/api/v1/statuses", { token: user.token, json: { status: text } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  };
  const attach = (user: TestUser, statusId: string, mediaIds: string[]) =>
    kith.storage.transaction((trx) => kith.services.media.attachToStatus(trx, { accountId: user.account.id, statusId, mediaIds }));

  it("attaches processed media of the author and renders them per post in id order", async () => {
    const first = await ingest(alice);
    const second = await ingest(alice);
    const statusId = await post(alice, "with pictures");
    await attach(alice, statusId, [second, first]);
    const rendered = await kith.services.media.renderForStatuses([statusId, "st_00000000000000000000000000"]);
    expect(rendered.get(statusId)?.map((media) => media.id)).toEqual([first, second]);
    expect(rendered.get(statusId)?.[0]).toMatchObject({ type: "image", url: expect.stringMatching(/^https:\/\/kith\.test\/media\//) });
    expect(rendered.has("st_00000000000000000000000000")).toBe(false);
    // As Mastodon: the media API no longer reaches an attachment a post uses, and will not delete it.
    expect((await kith.request("GET", `/api/v1/media/${first}`, { token: alice.token })).status).toBe(404);
    expect((await kith.request("PUT", `/api/v1/media/${first}`, { token: alice.token, json: { description: "x" } })).status).toBe(404);
    const deletion = await kith.request("DELETE", `/api/v1/media/${first}`, { token: alice.token });
    expect(deletion.status).toBe(422);
    expect(await deletion.json()).toMatchObject({ code: "media.attached" });
  });

  it("refuses another user's media, unknown ids, unprocessed media, media of another post and too many, with 422", async () => {
    const statusId = await post(alice, "refusals");
    await expect(attach(alice, statusId, [await ingest(bob)])).rejects.toMatchObject({ code: "media.not_found" });
    await expect(attach(alice, statusId, ["md_00000000000000000000000000"])).rejects.toMatchObject({ code: "media.not_found" });

    const body = new FormData();
    body.set("file", await pngFile());
    const queued = (await (await kith.request("POST", "/api/v2/media", { token: alice.token, body })).json()) as { id: string };
    await expect(attach(alice, statusId, [queued.id])).rejects.toMatchObject({ code: "media.not_ready" });

    const taken = await ingest(alice);
    await attach(alice, await post(alice, "first owner"), [taken]);
    await expect(attach(alice, statusId, [taken])).rejects.toMatchObject({ code: "media.already_attached" });

    const five = await Promise.all([1, 2, 3, 4, 5].map(() => ingest(alice)));
    const error = await attach(alice, statusId, five).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "media.too_many" });
    expect(statusOf((error as { code: "media.too_many" }).code)).toBe(422);
  });

  it("attaches inside the caller's transaction: a rollback leaves the media free", async () => {
    const media = await ingest(alice);
    const statusId = await post(alice, "rolled back");
    await expect(
      kith.storage.transaction(async (trx) => {
        await kith.services.media.attachToStatus(trx, { accountId: alice.account.id, statusId, mediaIds: [media] });
        throw new Error("the post failed later");
      }),
    ).rejects.toThrow("the post failed later");
    const row = await kith.storage.db.selectFrom("media_attachments").select("status_id").where("id", "=", media).executeTakeFirstOrThrow();
    expect(row.status_id).toBeNull();
  });

  it("gives avatars and headers public URLs, and refuses a non-image where an image is expected", async () => {
    const avatar = await kith.services.media.ingestFile({
      accountId: alice.account.id,
      file: await pngFile(400, 400),
      uploadType: "IMAGE",
      tags: ["Avatar"],
    });
    const urls = await kith.services.media.publicUrls([avatar.id, "md_00000000000000000000000000"]);
    expect([...urls.keys()]).toEqual([avatar.id]);
    // With the file's type, which the actor's icon names for other servers.
    expect(await kith.services.media.publicUrl(avatar.id)).toEqual({ url: avatar.url, previewUrl: avatar.preview_url, contentType: "image/png" });
    const pdf = new File([new TextEncoder().encode("%PDF-1.4\n%%EOF\n")], "me.png", { type: "image/png" });
    await expect(
      kith.services.media.ingestFile({ accountId: alice.account.id, file: pdf, uploadType: "IMAGE", tags: ["Avatar"] }),
    ).rejects.toMatchObject({
      code: "media.type_mismatch",
    });
  });

  it("announces in /api/v2/instance the limits it enforces", async () => {
    const instance = (await (await kith.request("GET", "/api/v2/instance")).json()) as {
      configuration: { media_attachments: { image_size_limit: number; video_size_limit: number; supported_mime_types: string[] } };
    };
    const storage = await kith.services.media.admin.storage(alice.account.id);
    expect(instance.configuration.media_attachments.image_size_limit).toBe(storage.limits.maxFileBytes.IMAGE);
    expect(instance.configuration.media_attachments.video_size_limit).toBe(storage.limits.maxFileBytes.VIDEO);
    expect(instance.configuration.media_attachments.supported_mime_types).toEqual(kith.config.limits.mediaAttachments.supportedMimeTypes);
  });
});
