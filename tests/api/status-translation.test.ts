/**
 * `POST /api/v1/statuses/{id}/translate` through the AI port (the
 * deterministic provider, which tags a text with its target language):
 * Mastodon's Translation entity, kept per status, language and edit; 404 for
 * a status the caller may not see, 403 for one Mastodon does not translate;
 * 503, and `translation.enabled` false, where the module is left out;
 * translation offered to clients only with a service behind the AI port.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import type { AiProvider } from "@kith/core";
import { DeterministicAiProvider, defaultModules } from "@kith/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { insertCompletedMedia } from "../support/completed-media.js";
import { describeOnEngines } from "../support/engines.js";
import { type StatusBody, post } from "./statuses-support.js";

interface TranslationBody {
  content: string;
  spoiler_text: string;
  poll: { id: string; options: { title: string }[] } | null;
  media_attachments: { id: string; description: string }[];
  detected_source_language: string;
  provider: string;
}

/** The deterministic provider, counting its calls. */
class CountingAi extends DeterministicAiProvider implements AiProvider {
  calls = 0;
  override async translate(input: { text: string; from?: string; to: string }) {
    this.calls += 1;
    return super.translate(input);
  }
}

/** A provider standing for a translation service (any provider but the embedded stand-in). */
class ServiceAi extends DeterministicAiProvider {
  override readonly name = "test-translation-service";
}

describeOnEngines("translating statuses", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  const ai = new CountingAi();

  beforeAll(async () => {
    kith = await engine.testKith({ ai });
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
  });
  afterAll(() => kith.close());

  const translate = (user: TestUser | null, id: string, json: Record<string, unknown> = {}) =>
    kith.request("POST", `/api/v1/statuses/${id}/translate`, { ...(user && { token: user.token }), json });

  it("answers Mastodon's Translation entity, poll options included", async () => {
    const status = await post(kith, alice, {
      status: "Bonjour",
      spoiler_text: "salut",
      language: "fr",
      poll: { options: ["oui", "non"], expires_in: 3600 },
    });
    const response = await translate(bob, status.id, { lang: "en" });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({
      content: "[en] <p>Bonjour</p>",
      spoiler_text: "[en] salut",
      poll: { id: status.poll?.id ?? "", options: [{ title: "[en] oui" }, { title: "[en] non" }] },
      media_attachments: [],
      detected_source_language: "fr",
      provider: "deterministic",
    } satisfies TranslationBody);
  });

  it("translates the media's descriptions", async () => {
    const media = await insertCompletedMedia(kith, alice.account.id, "md_translated");
    await kith.storage.db.updateTable("media_attachments").set({ description: "un chat" }).where("id", "=", media).execute();
    const status = await post(kith, alice, { status: "Regarde", language: "fr", media_ids: [media] });
    const translation = (await (await translate(bob, status.id, { lang: "en" })).json()) as TranslationBody;
    expect(translation.media_attachments).toEqual([{ id: media, description: "[en] un chat" }]);
    expect(translation.poll).toBeNull();
  });

  it("keeps a translation until the status is edited", async () => {
    const status = await post(kith, alice, { status: "Hallo Welt", language: "de" });
    const first = (await (await translate(bob, status.id, { lang: "en" })).json()) as TranslationBody;
    const calls = ai.calls;
    const again = (await (await translate(alice, status.id, { lang: "en" })).json()) as TranslationBody;
    expect(again).toEqual(first);
    expect(ai.calls).toBe(calls);
    // Another language is another translation.
    expect(((await (await translate(bob, status.id, { lang: "es" })).json()) as TranslationBody).content).toBe("[es] <p>Hallo Welt</p>");
    kith.clock.advance(1_000);
    const edited = await kith.request("PUT", `/api/v1/statuses/${status.id}`, { token: alice.token, json: { status: "Guten Tag" } });
    expect(edited.status).toBe(200);
    const fresh = (await (await translate(bob, status.id, { lang: "en" })).json()) as TranslationBody;
    expect(fresh.content).toBe("[en] <p>Guten Tag</p>");
    expect(ai.calls).toBeGreaterThan(calls);
  });

  it("defaults to English", async () => {
    const status = await post(kith, alice, { status: "Ciao", language: "it" });
    expect(((await (await translate(bob, status.id)).json()) as TranslationBody).content).toBe("[en] <p>Ciao</p>");
  });

  it("refuses what Mastodon does not translate, and what the caller may not see", async () => {
    const mine = await post(kith, alice, { status: "secret", language: "fr", visibility: "private" });
    expect((await translate(bob, mine.id, { lang: "en" })).status).toBe(404);
    expect((await translate(alice, mine.id, { lang: "en" })).status).toBe(403);
    const direct = await post(kith, alice, { status: "@bob psst", language: "fr", visibility: "direct" });
    expect((await translate(bob, direct.id, { lang: "en" })).status).toBe(403);
    const english = await post(kith, alice, { status: "Hello", language: "en" });
    expect((await translate(bob, english.id, { lang: "en" })).status).toBe(403);
    expect((await translate(bob, "st_nothere", { lang: "en" })).status).toBe(404);
    expect((await translate(null, english.id, { lang: "fr" })).status).toBe(401);
    expect((await translate(bob, english.id, { lang: "x" })).status).toBe(422);
  });

  it("forgets translations with their status", async () => {
    const status: StatusBody = await post(kith, alice, { status: "Adieu", language: "fr" });
    expect((await translate(bob, status.id, { lang: "en" })).status).toBe(200);
    expect((await kith.request("DELETE", `/api/v1/statuses/${status.id}`, { token: alice.token })).status).toBe(200);
    const db = kith.storage.db.withTables<{ status_translations: { status_id: string } }>();
    expect(await db.selectFrom("status_translations").select("status_id").where("status_id", "=", status.id).execute()).toEqual([]);
  });

  it("offers translation to clients only with a translation service behind the AI port, not with the stand-in", async () => {
    const offered = async (server: TestKith) => {
      const instance = (await (await server.request("GET", "/api/v2/instance")).json()) as {
        configuration: { translation: { enabled: boolean } };
      };
      const languages = (await (await server.request("GET", "/api/v1/instance/translation_languages")).json()) as Record<string, string[]>;
      return { enabled: instance.configuration.translation.enabled, languages };
    };
    // The stand-in answers the route (as above) but tags texts; no client is told to show a button for it.
    expect(await offered(kith)).toEqual({ enabled: false, languages: {} });
    const served = await engine.testKith({ ai: new ServiceAi() });
    try {
      const { enabled, languages } = await offered(served);
      expect(enabled).toBe(true);
      expect(languages.fr).toContain("en");
      expect(languages.und).toContain("fr");
    } finally {
      await served.close();
    }
  });

  it("answers 503, and is not enabled, where the module is left out", async () => {
    const bare = await engine.testKith({ modules: defaultModules.filter((module) => module.name !== "translations") });
    try {
      const user = await bare.createUser("bare");
      const status = await post(bare, user, { status: "Bonjour", language: "fr" });
      const response = await bare.request("POST", `/api/v1/statuses/${status.id}/translate`, { token: user.token, json: { lang: "en" } });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { code: string }).code).toBe("translation.unavailable");
      const instance = (await (await bare.request("GET", "/api/v2/instance")).json()) as {
        configuration: { translation: { enabled: boolean } };
      };
      expect(instance.configuration.translation.enabled).toBe(false);
    } finally {
      await bare.close();
    }
  });
});
