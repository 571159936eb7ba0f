import type { TestKith } from "@kith/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountJson, CredentialAccountJson } from "../../packages/core/src/mastodon/entities/account.js";
import { missingKeys } from "../support/entity-keys.js";
import { makePng } from "../support/media-files.js";
import { describeOnEngines } from "../support/engines.js";
import { json, remoteAccount } from "./relationships-support.js";

describeOnEngines("profiles", (engine) => {
  let kith: TestKith;
  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  describe("GET /api/v1/accounts/:id", () => {
    it("shows a local account to a guest with every key of Mastodon's Account", async () => {
      const alice = await kith.createUser("pa_alice");
      const response = await kith.request("GET", `/api/v1/accounts/${alice.account.id}`);
      expect(response.status).toBe(200);
      const body = await json(response);
      expect(missingKeys(AccountJson, body)).toEqual([]);
      expect(body).toMatchObject({ id: alice.account.id, acct: "pa_alice", url: "https://kith.test/@pa_alice", statuses_count: 0 });
    });

    it("shows a remote account with its own urls and user@domain", async () => {
      const id = await remoteAccount(kith, "far", "remote.example");
      const body = await json(await kith.request("GET", `/api/v1/accounts/${id}`));
      expect(body).toMatchObject({
        acct: "far@remote.example",
        url: "https://remote.example/@far",
        uri: "https://remote.example/users/far",
        avatar: "https://remote.example/avatar.png",
        header: "https://kith.test/headers/original/missing.png",
      });
    });

    it("shows a suspended account as an empty profile marked suspended", async () => {
      const id = await remoteAccount(kith, "gone", "remote.example");
      await kith.storage.db.updateTable("accounts").set({ suspended_at: kith.clock.now().toISOString() }).where("id", "=", id).execute();
      const body = await json(await kith.request("GET", `/api/v1/accounts/${id}`));
      expect(body).toMatchObject({ suspended: true, display_name: "", note: "", fields: [], statuses_count: 0 });
    });

    it("answers 404 for an unknown id", async () => {
      expect((await kith.request("GET", "/api/v1/accounts/us_00000000000000000000000000")).status).toBe(404);
    });

    it("renders the account an account moved to, one level deep", async () => {
      const target = await remoteAccount(kith, "newhome", "remote.example");
      const mover = await kith.createUser("pa_mover");
      await kith.storage.db.updateTable("accounts").set({ moved_to_account_id: target }).where("id", "=", mover.account.id).execute();
      const body = await json<{ moved: { id: string; moved: unknown } }>(await kith.request("GET", `/api/v1/accounts/${mover.account.id}`));
      expect(body.moved).toMatchObject({ id: target, moved: null });
    });
  });

  describe("lookup and multiple", () => {
    it("finds local accounts by acct, with or without this host", async () => {
      const bob = await kith.createUser("pa_Bob");
      for (const acct of ["pa_bob", "@pa_Bob", "pa_bob@kith.test"]) {
        const response = await kith.request("GET", `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);
        expect(response.status).toBe(200);
        expect((await json(response)).id).toBe(bob.account.id);
      }
    });

    it("finds remote accounts and answers 404 for unknown ones", async () => {
      const id = await remoteAccount(kith, "Seen", "other.example");
      expect((await json(await kith.request("GET", "/api/v1/accounts/lookup?acct=seen@other.example"))).id).toBe(id);
      expect((await kith.request("GET", "/api/v1/accounts/lookup?acct=nobody@other.example")).status).toBe(404);
      expect((await kith.request("GET", "/api/v1/accounts/lookup")).status).toBe(400);
    });

    it("returns several accounts in the order asked, skipping unknown ids", async () => {
      const one = await kith.createUser("pa_one");
      const two = await kith.createUser("pa_two");
      const response = await kith.request(
        "GET",
        `/api/v1/accounts?id[]=${two.account.id}&id[]=us_00000000000000000000000000&id[]=${one.account.id}`,
      );
      expect((await json<{ id: string }[]>(response)).map((account) => account.id)).toEqual([two.account.id, one.account.id]);
    });
  });

  describe("PATCH /api/v1/accounts/update_credentials", () => {
    it("changes the profile, renders the note and fields to HTML and keeps their source", async () => {
      const carol = await kith.createUser("pa_carol");
      const events: string[] = [];
      const off = kith.services.events.on("account.updated", (event) => {
        events.push(event.accountId);
      });
      const response = await kith.request("PATCH", "/api/v1/accounts/update_credentials", {
        token: carol.token,
        form: {
          display_name: "Carol C.",
          note: "Hello @pa_carol, see https://example.org/about #intro",
          "fields_attributes[0][name]": "Site",
          "fields_attributes[0][value]": "https://carol.example",
          "fields_attributes[1][name]": "Pronouns",
          "fields_attributes[1][value]": "she/her",
          locked: "true",
          bot: "true",
          hide_collections: "true",
          "source[privacy]": "unlisted",
          "source[sensitive]": "true",
          "source[language]": "fr",
        },
      });
      off();
      expect(response.status).toBe(200);
      const body = await json<Record<string, unknown> & { source: Record<string, unknown>; fields: { name: string; value: string }[] }>(
        response,
      );
      expect(missingKeys(CredentialAccountJson, body)).toEqual([]);
      expect(body).toMatchObject({ display_name: "Carol C.", locked: true, bot: true, hide_collections: true });
      expect(body.note).toContain('<a href="https://example.org/about"');
      expect(body.note).toContain('class="u-url mention"');
      expect(body.note).toContain("#<span>intro</span>");
      expect(body.fields[0]?.value).toContain('href="https://carol.example"');
      expect(body.fields[1]).toMatchObject({ name: "Pronouns", value: "she/her" });
      expect(body.source).toMatchObject({
        privacy: "unlisted",
        sensitive: true,
        language: "fr",
        note: "Hello @pa_carol, see https://example.org/about #intro",
        fields: [
          { name: "Site", value: "https://carol.example", verified_at: null },
          { name: "Pronouns", value: "she/her", verified_at: null },
        ],
      });
      expect(events).toEqual([carol.account.id]);
      const verify = await json(await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: carol.token }));
      expect(verify.source).toMatchObject({ privacy: "unlisted", note: body.source.note });
    });

    it("accepts JSON with fields_attributes as an object keyed by index", async () => {
      const dan = await kith.createUser("pa_dan");
      const response = await kith.request("PATCH", "/api/v1/accounts/update_credentials", {
        token: dan.token,
        json: { fields_attributes: { "0": { name: "a", value: "b" } }, discoverable: false },
      });
      expect(response.status).toBe(200);
      expect(await json(response)).toMatchObject({ fields: [{ name: "a", value: "b" }], discoverable: false });
    });

    it("refuses more fields than the instance allows, and over-long values", async () => {
      const erin = await kith.createUser("pa_erin");
      const fields = Object.fromEntries(
        Array.from({ length: 5 }, (_, i) => [
          [`fields_attributes[${i}][name]`, `n${i}`],
          [`fields_attributes[${i}][value]`, `v${i}`],
        ]).flat(),
      );
      const tooMany = await kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: erin.token, form: fields });
      expect(tooMany.status).toBe(422);
      const longName = await kith.request("PATCH", "/api/v1/accounts/update_credentials", {
        token: erin.token,
        json: { display_name: "x".repeat(31) },
      });
      expect(longName.status).toBe(422);
      const badPrivacy = await kith.request("PATCH", "/api/v1/accounts/update_credentials", {
        token: erin.token,
        json: { source: { privacy: "everyone" } },
      });
      expect([400, 422]).toContain(badPrivacy.status);
    });

    it("stores an avatar and a header sent as multipart files", async () => {
      const fay = await kith.createUser("pa_fay");
      const data = new FormData();
      data.set("avatar", new File([await makePng(120, 120)], "me.png", { type: "image/png" }));
      data.set("header", new File([await makePng(300, 100)], "banner.png", { type: "image/png" }));
      const response = await kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: fay.token, body: data });
      expect(response.status).toBe(200);
      const body = await json<{ avatar: string; header: string }>(response);
      expect(body.avatar).not.toContain("missing.png");
      expect(body.header).not.toContain("missing.png");
      const avatar = await kith.request("GET", new URL(body.avatar).pathname);
      expect(avatar.status).toBe(200);
    });

    it("needs a signed-in user", async () => {
      expect((await kith.request("PATCH", "/api/v1/accounts/update_credentials", { json: { display_name: "x" } })).status).toBe(401);
    });
  });
});
