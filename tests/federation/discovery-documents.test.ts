/**
 * The discovery documents another server or a crawler reads first, over
 * real HTTP: host-meta in XML and JSON (by its `.json` name or by Accept),
 * whose WebFinger template resolves an account, and NodeInfo 2.0 beside 2.1,
 * both listed at /.well-known/nodeinfo and counting the same accounts.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { jsonOf } from "../support/activitypub-answers.js";
import { describeOnEngines } from "../support/engines.js";
import { type PairedKith, startServedKith } from "../support/federation-pair.js";

describeOnEngines("discovery documents", (engine) => {
  let served: PairedKith & { close(): Promise<void> };
  beforeAll(async () => {
    served = await startServedKith(engine);
    await served.kith.createUser("alice");
  });
  afterAll(async () => {
    await served?.close();
  });

  const template = () => `${served.origin}/.well-known/webfinger?resource={uri}`;

  it("serves host-meta as XRD, pointing at the WebFinger template, which resolves an account", async () => {
    const response = await fetch(`${served.origin}/.well-known/host-meta`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/xrd\+xml/);
    const xml = await response.text();
    expect(xml).toContain('<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">');
    expect(xml).toContain(`<Link rel="lrdd" template="${template()}"/>`);
    const resolved = await fetch(template().replace("{uri}", encodeURIComponent(`acct:alice@${served.host}`)));
    expect((await jsonOf(resolved)).body).toMatchObject({ subject: `acct:alice@${served.host}` });
  });

  it("serves host-meta as JSON at host-meta.json and to a request that prefers JSON", async () => {
    const expected = { status: 200, body: { links: [{ rel: "lrdd", template: template() }] } };
    expect(await jsonOf(await fetch(`${served.origin}/.well-known/host-meta.json`))).toEqual(expected);
    const negotiated = await fetch(`${served.origin}/.well-known/host-meta`, { headers: { accept: "application/json" } });
    expect(negotiated.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await jsonOf(negotiated)).toEqual(expected);
    const xmlFirst = await fetch(`${served.origin}/.well-known/host-meta`, {
      headers: { accept: "application/xrd+xml, application/json;q=0.5" },
    });
    expect(xmlFirst.headers.get("content-type")).toMatch(/^application\/xrd\+xml/);
  });

  it("lists NodeInfo 2.0 and 2.1, and serves both with the same counts", async () => {
    const listed = await jsonOf(await fetch(`${served.origin}/.well-known/nodeinfo`));
    expect(listed.status).toBe(200);
    const links = listed.body.links as { rel: string; href: string }[];
    expect(links.map((link) => link.rel)).toEqual([
      "http://nodeinfo.diaspora.software/ns/schema/2.1",
      "http://nodeinfo.diaspora.software/ns/schema/2.0",
    ]);
    const [newer, older] = await Promise.all(links.map(async (link) => fetch(link.href)));
    if (!older || !newer) throw new Error("two NodeInfo documents expected");
    expect(older.headers.get("content-type")).toContain('profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"');
    const [two, twoOne] = await Promise.all([jsonOf(older), jsonOf(newer)]);
    expect(two).toMatchObject({
      status: 200,
      body: {
        version: "2.0",
        software: { name: "kith", version: expect.any(String) },
        protocols: ["activitypub"],
        services: { inbound: [], outbound: [] },
        openRegistrations: expect.any(Boolean),
        usage: { users: { total: 1 }, localPosts: 0 },
        metadata: expect.any(Object),
      },
    });
    // 2.0's schema has no repository or homepage for the software.
    expect(Object.keys(two.body.software as object).sort()).toEqual(["name", "version"]);
    expect(twoOne).toMatchObject({ status: 200, body: { version: "2.1", usage: (two.body as { usage: unknown }).usage } });
  });

  it("answers other methods on them without a server error", async () => {
    for (const path of ["/.well-known/host-meta", "/nodeinfo/2.0"]) {
      const response = await fetch(`${served.origin}${path}`, { method: "POST", body: "{}" });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    }
  });
});
