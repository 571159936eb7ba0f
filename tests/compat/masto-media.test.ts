/**
 * masto.js uploading media over real HTTP, on both engines: `v2.media.create`
 * answers 202 and masto.js polls `GET /api/v1/media/:id` until `url` is set;
 * then the description is changed, the served file fetched, and the image
 * attached to a post; an avatar and a header set through update_credentials.
 */
import type { TestUser } from "@kith/core/testing";
import { MastoHttpError } from "masto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type CompatServer, startCompatServer } from "../support/compat-server.js";
import { describeOnEngines } from "../support/engines.js";
import { imageInfo, makePng } from "../support/media-files.js";

describeOnEngines("masto.js media", (engine) => {
  let compat: CompatServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    compat = await startCompatServer(engine);
    await compat.kith.start();
    alice = await compat.kith.createUser("alice");
    bob = await compat.kith.createUser("bob");
  });
  afterAll(() => compat?.close());

  /** The served file, fetched from the test server (the media URL names the configured origin). */
  const served = (url: string): Promise<Response> => fetch(new URL(new URL(url).pathname, compat.url));

  it("uploads an image with v2.media and polls it until it is processed", async () => {
    const client = compat.client(alice);
    const png = await makePng(120, 90);
    const media = await client.v2.media.create({
      file: new Blob([Buffer.from(png)], { type: "image/png" }),
      description: "A test card",
      focus: "0.1,0.2",
    });
    expect(media.type).toBe("image");
    expect(media.url).toMatch(/\/media\/md_[0-9a-z]+\/file-[0-9a-f]{32}\.png$/);
    expect(media.previewUrl).toMatch(/\.webp$/);
    expect(media.description).toBe("A test card");
    expect(media.meta?.original).toMatchObject({ width: 120, height: 90 });
    expect(media.meta?.focus).toEqual({ x: 0.1, y: 0.2 });
    expect(typeof media.blurhash).toBe("string");

    const file = await served(media.url ?? "");
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(file.headers.get("cache-control")).toContain("immutable");
    expect(await imageInfo(new Uint8Array(await file.arrayBuffer()))).toMatchObject({ width: 120, height: 90 });

    const updated = await client.v1.media.$select(media.id).update({ description: "Described again" });
    expect(updated.description).toBe("Described again");
    const fetched = await client.v1.media.$select(media.id).fetch();
    expect(fetched.url).toBe(media.url);
  });

  it("attaches the uploaded image to a post, which shows it", async () => {
    const client = compat.client(alice);
    const media = await client.v2.media.create({
      file: new Blob([Buffer.from(await makePng(64, 64))], { type: "image/png" }),
      description: "For a post",
    });
    const status = await client.v1.statuses.create({ status: "A picture", mediaIds: [media.id] });
    expect(status.mediaAttachments.map((item) => item.id)).toEqual([media.id]);
    expect(status.mediaAttachments[0]).toMatchObject({ type: "image", url: media.url, description: "For a post" });
    const seen = await compat.client(bob).v1.statuses.$select(status.id).fetch();
    expect(seen.mediaAttachments[0]?.url).toBe(media.url);
    const again = await client.v1.statuses
      .create({ status: "The same picture again", mediaIds: [media.id] })
      .catch((caught: unknown) => caught);
    expect(again).toBeInstanceOf(MastoHttpError);
    expect((again as MastoHttpError).statusCode).toBe(422);
  });

  it("sets an avatar and a header through update_credentials, served from the media store", async () => {
    const client = compat.client(alice);
    const account = await client.v1.accounts.updateCredentials({
      avatar: new Blob([Buffer.from(await makePng(200, 200))], { type: "image/png" }),
      header: new Blob([Buffer.from(await makePng(600, 200))], { type: "image/png" }),
    });
    expect(account.avatar).toMatch(/\/media\/md_[0-9a-z]+\/file-[0-9a-f]{32}\.png$/);
    expect(account.header).toMatch(/\/media\/md_[0-9a-z]+\/file-[0-9a-f]{32}\.png$/);
    const avatar = await served(account.avatar);
    expect(avatar.headers.get("content-type")).toBe("image/png");
    expect(await imageInfo(new Uint8Array(await avatar.arrayBuffer()))).toMatchObject({ width: 200, height: 200 });
    const seen = await compat.client(bob).v1.accounts.$select(alice.account.id).fetch();
    expect(seen.avatar).toBe(account.avatar);
  });

  it("uploads synchronously with v1.media, and hides one user's media from another", async () => {
    const media = await compat
      .client(alice)
      .v1.media.create({ file: new Blob([Buffer.from(await makePng(16, 16))], { type: "image/png" }) });
    expect(media.url).not.toBeNull();
    const error = await compat
      .client(bob)
      .v1.media.$select(media.id)
      .fetch()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MastoHttpError);
    expect((error as MastoHttpError).statusCode).toBe(404);
  });

  it("shows the refusal of a file that is not media as Mastodon does", async () => {
    const error = await compat
      .client(alice)
      .v2.media.create({ file: new Blob(["just some text"], { type: "image/png" }) })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MastoHttpError);
    expect((error as MastoHttpError).statusCode).toBe(422);
    expect((error as MastoHttpError).message).toMatch(/not supported|no supported type/);
  });
});
