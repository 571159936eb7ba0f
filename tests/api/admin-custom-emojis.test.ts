/**
 * Custom emojis administered at /api/v1/admin/custom_emojis: permissions
 * (401 without a token, 403 without CustomEmojis or an admin scope), an
 * image uploaded with its shortcode, refused when its shortcode is bad or
 * taken, its file of another type or too large; category and picker
 * changes, enable, disable, delete; the images served; the emojis shown in
 * `GET /api/v1/custom_emojis`, in posts and in profiles; an archive
 * imported as `tootctl emoji import` does.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AccessType, customEmojisModule } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { imageInfo, makeAnimatedGif, makePixelBomb, makePng, makeWebp } from "../support/media-files.js";
import { giveGrants } from "../support/roles.js";

const BASE = "/api/v1/admin/custom_emojis";
const MANAGE: AccessType[] = ["Add", "Modify", "Delete"];

interface AdminEmoji {
  id: string;
  shortcode: string;
  url: string;
  static_url: string;
  visible_in_picker: boolean;
  category: string | null;
  domain: string | null;
  disabled: boolean;
  content_type: string | null;
  total_file_size: number | null;
}

function form(fields: Record<string, string>, image?: { bytes: Uint8Array; name: string; type: string }): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.set(name, value);
  if (image) data.set("image", new File([image.bytes as Uint8Array<ArrayBuffer>], image.name, { type: image.type }));
  return data;
}

describeOnEngines("custom emoji administration", (engine) => {
  let kith: TestKith;
  let serial = 0;
  beforeEach(async () => {
    kith = await engine.testKith();
  });
  afterEach(() => kith.close());

  async function staff(access: AccessType[] | null, scopes?: string[]): Promise<TestUser> {
    const user = await kith.createUser(`emojistaff${++serial}`, scopes ? { scopes } : {});
    if (access) await giveGrants(kith, user.account.id, [{ resource: "CustomEmojis", access, scope: "global" }]);
    return user;
  }

  async function create(token: string, shortcode: string, bytes: Uint8Array, extra: Record<string, string> = {}): Promise<Response> {
    return kith.request("POST", BASE, { token, body: form({ shortcode, ...extra }, { bytes, name: "emoji.png", type: "image/png" }) });
  }

  async function created(token: string, shortcode: string, bytes?: Uint8Array, extra: Record<string, string> = {}): Promise<AdminEmoji> {
    const response = await create(token, shortcode, bytes ?? (await makePng(32, 32)), extra);
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as AdminEmoji;
  }

  describe("permissions", () => {
    it("answers 401 without a token on every route", async () => {
      const png = await makePng(16, 16);
      expect((await kith.request("GET", BASE)).status).toBe(401);
      expect((await kith.request("GET", `${BASE}/em_x`)).status).toBe(401);
      expect((await kith.request("POST", BASE, { body: form({ shortcode: "blob" }, { bytes: png, name: "a.png", type: "image/png" }) })).status).toBe(401);
      expect((await kith.request("PATCH", `${BASE}/em_x`, { json: { category: "x" } })).status).toBe(401);
      expect((await kith.request("DELETE", `${BASE}/em_x`)).status).toBe(401);
      expect((await kith.request("POST", `${BASE}/em_x/enable`)).status).toBe(401);
      expect((await kith.request("POST", `${BASE}/em_x/disable`)).status).toBe(401);
    });

    it("answers 403 to a user without CustomEmojis, and to a reader who would change", async () => {
      const nobody = await staff(null);
      const png = await makePng(16, 16);
      expect((await kith.request("GET", BASE, { token: nobody.token })).status).toBe(403);
      expect((await create(nobody.token, "blob", png)).status).toBe(403);
      const reader = await staff(["Read"]);
      expect((await kith.request("GET", BASE, { token: reader.token })).status).toBe(200);
      expect((await create(reader.token, "blob", png)).status).toBe(403);
      const manager = await staff(MANAGE);
      const emoji = await created(manager.token, "blob", png);
      expect((await kith.request("POST", `${BASE}/${emoji.id}/disable`, { token: reader.token })).status).toBe(403);
      expect((await kith.request("DELETE", `${BASE}/${emoji.id}`, { token: reader.token })).status).toBe(403);
      expect((await kith.request("GET", `${BASE}/${emoji.id}`, { token: reader.token })).status).toBe(200);
    });

    it("needs an admin scope on the token", async () => {
      const scoped = await staff(MANAGE, ["read", "write"]);
      expect((await kith.request("GET", BASE, { token: scoped.token })).status).toBe(403);
    });

    it("is the built-in Owner's and Admin's, not a Moderator's", async () => {
      const owner = await kith.createUser("emojiowner", { role: "Owner" });
      const admin = await kith.createUser("emojiadmin", { role: "Admin" });
      const moderator = await kith.createUser("emojimod", { role: "Moderator" });
      expect((await kith.request("GET", BASE, { token: owner.token })).status).toBe(200);
      expect((await kith.request("GET", BASE, { token: admin.token })).status).toBe(200);
      expect((await kith.request("GET", BASE, { token: moderator.token })).status).toBe(403);
    });
  });

  describe("routes", () => {
    let token: string;
    beforeEach(async () => {
      token = (await staff(MANAGE)).token;
    });

    it("adds an emoji from a PNG, serves its image, and lists it for clients", async () => {
      const png = await makePng(32, 32);
      const emoji = await created(token, "blobcat", png, { category: " cats ", visible_in_picker: "true" });
      expect(emoji).toMatchObject({
        shortcode: "blobcat",
        category: "cats",
        visible_in_picker: true,
        domain: null,
        disabled: false,
        content_type: "image/png",
        total_file_size: png.byteLength,
      });
      expect(emoji.static_url).toBe(emoji.url);
      const image = await kith.request("GET", new URL(emoji.url).pathname);
      expect(image.status).toBe(200);
      expect(image.headers.get("content-type")).toBe("image/png");
      expect(new Uint8Array(await image.arrayBuffer())).toEqual(png);
      const listed = (await (await kith.request("GET", "/api/v1/custom_emojis")).json()) as unknown[];
      expect(listed).toEqual([{ shortcode: "blobcat", url: emoji.url, static_url: emoji.url, visible_in_picker: true, category: "cats" }]);
      expect((await kith.request("GET", `/emojis/${emoji.id}/other.png`)).status).toBe(404);
    });

    it("keeps an animated GIF as it is, with a still PNG of its first frame", async () => {
      const gif = await makeAnimatedGif();
      const emoji = await created(token, "party_parrot", gif);
      expect(emoji.content_type).toBe("image/gif");
      expect(emoji.static_url).not.toBe(emoji.url);
      const still = await kith.request("GET", new URL(emoji.static_url).pathname);
      expect(still.headers.get("content-type")).toBe("image/png");
      expect((await imageInfo(new Uint8Array(await still.arrayBuffer()))).format).toBe("png");
      const animated = await kith.request("GET", new URL(emoji.url).pathname);
      expect(new Uint8Array(await animated.arrayBuffer())).toEqual(gif);
    });

    it("refuses a taken shortcode (409), a bad one (422), a file of another type (415) and one too large (413)", async () => {
      await created(token, "taken");
      const again = await create(token, "taken", await makeWebp(16, 16));
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ code: "custom_emoji.shortcode_taken" });
      for (const shortcode of ["a", "has space", "colon:s", "x".repeat(129)]) {
        const bad = await create(token, shortcode, await makePng(16, 16));
        expect(bad.status, shortcode).toBe(422);
        expect(await bad.json()).toMatchObject({ code: "custom_emoji.invalid_shortcode" });
      }
      const text = await kith.request("POST", BASE, {
        token,
        body: form({ shortcode: "texty" }, { bytes: new TextEncoder().encode("<svg onload=alert(1)></svg>"), name: "x.png", type: "image/png" }),
      });
      expect(text.status).toBe(415);
      expect(await text.json()).toMatchObject({ code: "custom_emoji.unsupported_image" });
      // A PNG's signature on what does not decode is no image either.
      const broken = (await makePng(16, 16)).slice(0, 60);
      expect((await create(token, "broken", broken)).status).toBe(415);
      // Millions of pixels in a few kilobytes: refused before decoding.
      expect((await create(token, "bomb", await makePixelBomb(4000, 4000))).status).toBe(415);
      const large = new Uint8Array(300 * 1024);
      large.set(await makePng(16, 16));
      const tooLarge = await create(token, "huge", large);
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.json()).toMatchObject({ code: "custom_emoji.image_too_large" });
      const missing = await kith.request("POST", BASE, { token, body: form({ shortcode: "noimage" }) });
      expect([400, 422]).toContain(missing.status);
      const listed = (await (await kith.request("GET", BASE, { token })).json()) as AdminEmoji[];
      expect(listed.map((emoji) => emoji.shortcode)).toEqual(["taken"]);
    });

    it("changes the category and the picker's choice, disables, enables and deletes", async () => {
      const emoji = await created(token, "wave", undefined, { category: "hands" });
      const patched = await kith.request("PATCH", `${BASE}/${emoji.id}`, { token, json: { visible_in_picker: false, category: "" } });
      expect(patched.status).toBe(200);
      expect(await patched.json()).toMatchObject({ visible_in_picker: false, category: null });
      expect((await kith.request("PATCH", `${BASE}/${emoji.id}`, { token, json: { visible_in_picker: "perhaps" } })).status).toBe(400);
      const disabled = await kith.request("POST", `${BASE}/${emoji.id}/disable`, { token });
      expect(await disabled.json()).toMatchObject({ disabled: true });
      expect(await (await kith.request("GET", "/api/v1/custom_emojis")).json()).toEqual([]);
      const enabled = await kith.request("POST", `${BASE}/${emoji.id}/enable`, { token });
      expect(await enabled.json()).toMatchObject({ disabled: false });
      expect(((await (await kith.request("GET", "/api/v1/custom_emojis")).json()) as unknown[]).length).toBe(1);
      const deleted = await kith.request("DELETE", `${BASE}/${emoji.id}`, { token });
      expect(deleted.status).toBe(200);
      expect((await kith.request("GET", `${BASE}/${emoji.id}`, { token })).status).toBe(404);
      expect((await kith.request("GET", new URL(emoji.url).pathname)).status).toBe(404);
      for (const [method, path] of [
        ["PATCH", `${BASE}/em_unknown`],
        ["DELETE", `${BASE}/em_unknown`],
        ["POST", `${BASE}/em_unknown/enable`],
      ] as const) {
        const response = await kith.request(method, path, { token, ...(method === "PATCH" && { json: { category: "x" } }) });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(await response.json()).toMatchObject({ code: "custom_emoji.not_found" });
      }
    });

    it("lists local and remote emojis apart, pages them, and changes only the state of another server's", async () => {
      const local = await created(token, "local_one");
      const now = kith.clock.now().toISOString();
      const remoteId = kith.ids.next("emoji");
      await kith.storage.db
        .insertInto("custom_emojis")
        .values({ id: remoteId, shortcode: "far", domain: "other.example", image_remote_url: "https://other.example/far.png", created_at: now, updated_at: now })
        .execute();
      const list = async (query: string) => ((await (await kith.request("GET", `${BASE}${query}`, { token })).json()) as AdminEmoji[]).map((emoji) => emoji.id);
      expect(await list("?filter=local")).toEqual([local.id]);
      expect(await list("?filter=remote")).toEqual([remoteId]);
      expect(await list("?by_domain=OTHER.example")).toEqual([remoteId]);
      expect(await list("?limit=1")).toEqual([remoteId]);
      const page = await kith.request("GET", `${BASE}?limit=1`, { token });
      expect(page.headers.get("link")).toContain("max_id=");
      expect((await kith.request("GET", `${BASE}?filter=everything`, { token })).status).toBe(422);
      const change = await kith.request("PATCH", `${BASE}/${remoteId}`, { token, json: { category: "stolen" } });
      expect(change.status).toBe(409);
      expect(await change.json()).toMatchObject({ code: "custom_emoji.remote" });
      expect((await kith.request("POST", `${BASE}/${remoteId}/disable`, { token })).status).toBe(200);
    });
  });

  describe("emojis where text names them", () => {
    it("shows this server's enabled emojis in posts and profiles that name them, and not once disabled", async () => {
      const manager = await staff(MANAGE);
      const emoji = await created(manager.token, "blobcat");
      const author = await kith.createUser("emojiauthor");
      const posted = await kith.request("POST", "/api/v1/statuses", {
        token: author.token,
        json: { status: "hello :blobcat: and :unknown: and word:blobcat:", spoiler_text: "cw :blobcat:" },
      });
      expect(posted.status).toBe(200);
      const entity = (await posted.json()) as { id: string; emojis: unknown[] };
      const expected = { shortcode: "blobcat", url: emoji.url, static_url: emoji.static_url, visible_in_picker: true, category: null };
      expect(entity.emojis).toEqual([expected]);
      const fetched = (await (await kith.request("GET", `/api/v1/statuses/${entity.id}`)).json()) as { emojis: unknown[] };
      expect(fetched.emojis).toEqual([expected]);

      const profile = await kith.request("PATCH", "/api/v1/accounts/update_credentials", {
        token: author.token,
        json: { display_name: "Author :blobcat:" },
      });
      expect(profile.status).toBe(200);
      expect(((await profile.json()) as { emojis: unknown[] }).emojis).toEqual([expected]);
      const account = (await (await kith.request("GET", `/api/v1/accounts/${author.account.id}`)).json()) as { emojis: unknown[] };
      expect(account.emojis).toEqual([expected]);

      await kith.request("POST", `${BASE}/${emoji.id}/disable`, { token: manager.token });
      const later = await kith.request("POST", "/api/v1/statuses", { token: author.token, json: { status: "again :blobcat:" } });
      expect(((await later.json()) as { emojis: unknown[] }).emojis).toEqual([]);
    });
  });

  describe("importing an archive", () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), "kith-emoji-archive-"));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** A tar.gz made by the system's tar, as an administrator would make one. */
    function archiveOf(files: Record<string, Uint8Array | string>): Uint8Array {
      const content = join(dir, "content");
      rmSync(content, { recursive: true, force: true });
      mkdirSync(join(content, "pack"), { recursive: true });
      for (const [name, bytes] of Object.entries(files)) writeFileSync(join(content, "pack", name), bytes);
      const archive = join(dir, "emojis.tar.gz");
      execFileSync("tar", ["-czf", archive, "-C", content, "pack"]);
      return new Uint8Array(readFileSync(archive));
    }

    it("adds the PNG and GIF files named after their shortcodes, skips taken ones unless told to overwrite", async () => {
      const service = kith.module(customEmojisModule);
      const first = await service.importArchive(
        archiveOf({ "blobcat.png": await makePng(16, 16), "parrot.gif": await makeAnimatedGif(), "notes.txt": "not an emoji", "bad.png": "not a png" }),
        { prefix: "x_", category: "imported" },
      );
      expect(first.imported.sort()).toEqual(["x_blobcat", "x_parrot"]);
      expect(first.failed.map((failure) => failure.file)).toEqual(["pack/bad.png"]);
      const listed = (await (await kith.request("GET", "/api/v1/custom_emojis")).json()) as { shortcode: string; category: string }[];
      expect(listed.map((emoji) => [emoji.shortcode, emoji.category])).toEqual([
        ["x_blobcat", "imported"],
        ["x_parrot", "imported"],
      ]);
      const replacement = await makePng(24, 24);
      const skipped = await service.importArchive(archiveOf({ "blobcat.png": replacement }), { prefix: "x_" });
      expect(skipped).toMatchObject({ imported: [], skipped: ["x_blobcat"] });
      const overwritten = await service.importArchive(archiveOf({ "blobcat.png": replacement }), { prefix: "x_", overwrite: true, unlisted: true });
      expect(overwritten.imported).toEqual(["x_blobcat"]);
      const after = (await (await kith.request("GET", "/api/v1/custom_emojis")).json()) as { shortcode: string; url: string; visible_in_picker: boolean }[];
      const blobcat = after.find((emoji) => emoji.shortcode === "x_blobcat") ?? expect.unreachable("x_blobcat");
      expect(blobcat.visible_in_picker).toBe(false);
      expect(new Uint8Array(await (await kith.request("GET", new URL(blobcat.url).pathname)).arrayBuffer())).toEqual(replacement);
      await expect(service.importArchive(new TextEncoder().encode("not an archive"))).rejects.toThrow(/gzip/);
    });
  });
});
