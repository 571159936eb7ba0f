/**
 * masto.js as a real client, over real HTTP: a status scheduled with
 * `scheduledAt`, listed, moved and cancelled with `v1.scheduledStatuses`, one
 * posted when the server's clock reaches its time; and a status translated
 * with `translate`.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually } from "@kith/core/testing";
import { type CompatServer, startCompatServer } from "../support/compat-server.js";
import { describeOnEngines } from "../support/engines.js";

const MINUTE = 60_000;

describeOnEngines("masto.js scheduled statuses and translations", (engine) => {
  let compat: CompatServer;

  beforeAll(async () => {
    compat = await startCompatServer(engine);
    await compat.kith.start();
  });
  afterAll(() => compat?.close());

  const at = (ms: number) => new Date(compat.kith.clock.now().getTime() + ms).toISOString();

  it("schedules, lists, moves, cancels, and sees one posted on time", async () => {
    const user = await compat.kith.createUser("masto_scheduler");
    const client = compat.client(user);
    const scheduled = await client.v1.statuses.create({ status: "from masto.js", visibility: "unlisted", scheduledAt: at(10 * MINUTE) });
    expect(scheduled.params).toMatchObject({ text: "from masto.js", visibility: "unlisted" });
    expect(scheduled.mediaAttachments).toEqual([]);
    const other = await client.v1.statuses.create({ status: "cancel me", scheduledAt: at(20 * MINUTE) });

    const listed = await client.v1.scheduledStatuses.list();
    expect(listed.map((entry) => entry.id)).toEqual([other.id, scheduled.id]);
    expect((await client.v1.scheduledStatuses.$select(scheduled.id).fetch()).scheduledAt).toBe(scheduled.scheduledAt);

    const later = at(30 * MINUTE);
    const moved = await client.v1.scheduledStatuses.$select(scheduled.id).update({ scheduledAt: later });
    expect(moved.scheduledAt).toBe(later);
    await client.v1.scheduledStatuses.$select(other.id).remove();
    await expect(client.v1.scheduledStatuses.$select(other.id).fetch()).rejects.toMatchObject({ statusCode: 404 });
    await expect(client.v1.statuses.create({ status: "too soon", scheduledAt: at(MINUTE) })).rejects.toMatchObject({ statusCode: 422 });

    compat.kith.clock.advance(31 * MINUTE);
    await eventually(async () => {
      const statuses = await client.v1.accounts.$select(user.account.id).statuses.list();
      expect(statuses.map((status) => status.content)).toEqual(["<p>from masto.js</p>"]);
      expect(statuses[0]?.visibility).toBe("unlisted");
    });
    expect(await client.v1.scheduledStatuses.list()).toEqual([]);
  });

  it("translates a status", async () => {
    const [author, reader] = [await compat.kith.createUser("masto_author"), await compat.kith.createUser("masto_reader")];
    const status = await compat.client(author).v1.statuses.create({ status: "Bonjour", language: "fr" });
    const translation = await compat.client(reader).v1.statuses.$select(status.id).translate({ lang: "en" });
    expect(translation).toMatchObject({ content: "[en] <p>Bonjour</p>", detectedSourceLanguage: "fr", provider: "deterministic" });
    // The embedded stand-in translates (it tags the text) but is not offered to clients as a translation service.
    const instance = await compat.client().v2.instance.fetch();
    expect(instance.configuration.translation.enabled).toBe(false);
  });
});
