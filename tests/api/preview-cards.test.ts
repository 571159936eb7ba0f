/**
 * Link previews (the preview-cards module): the first link of a new status
 * is read on the queue from a real HTTP server on loopback, and its card
 * (OpenGraph and Twitter card tags, oEmbed) shows in `status.card`; one read
 * per page, mentions and hashtags never previewed, direct statuses never
 * read, nothing for a page that is not HTML or on a private address when
 * those are refused.
 */
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestKith, TestUser } from "@kith/core/testing";
import { eventually, sleep } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

interface StatusBody {
  id: string;
  card: Record<string, unknown> | null;
}

const ARTICLE = `<!doctype html><html lang="fr"><head>
<title>Fallback title</title>
<meta property="og:title" content="Les &amp; chats">
<meta property="og:description" content="  Tout sur   les chats.  ">
<meta property="og:image" content="/images/cat.jpg">
<meta property="og:image:width" content="640"><meta property="og:image:height" content="480">
<meta property="og:image:alt" content="Un chat">
<meta property="og:site_name" content="Chats Quotidiens">
<meta property="article:published_time" content="2026-11-30T10:00:00Z">
<meta name="author" content="Camille">
</head><body><p>Body</p></body></html>`;

const VIDEO = `<!doctype html><html><head><title>A clip</title>
<link rel="alternate" type="application/json+oembed" href="/oembed.json">
</head><body></body></html>`;

const OEMBED = {
  type: "video",
  title: "A clip, by oEmbed",
  author_name: "Director",
  author_url: "https://video.example/director",
  provider_name: "Video Example",
  provider_url: "https://video.example/",
  html: '<iframe src="https://video.example/embed/1?a=1&amp;b=2" onload="steal()"></iframe><script>steal()</script>',
  width: 560,
  height: 315,
};

describeOnEngines("preview cards", (engine) => {
  let pages: Server;
  let base: string;
  const hits: string[] = [];
  let kith: TestKith;
  let alice: TestUser;

  beforeAll(async () => {
    pages = createServer((req, res) => {
      hits.push(req.url ?? "");
      if (req.url?.startsWith("/article")) {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(ARTICLE);
      } else if (req.url === "/video") {
        res.writeHead(200, { "content-type": "text/html" });
        res.end(VIDEO);
      } else if (req.url === "/oembed.json") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(OEMBED));
      } else if (req.url === "/file.zip") {
        res.writeHead(200, { "content-type": "application/zip" });
        res.end("PK");
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
    base = `http://localhost:${(pages.address() as AddressInfo).port}`;
    // The linked pages are on loopback: this test's network only.
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
    await kith.start();
    alice = await kith.createUser("alice");
  });
  afterAll(async () => {
    await kith?.close();
    await new Promise<void>((resolve) => pages.close(() => resolve()));
  });

  const post = async (status: string, extra: Record<string, unknown> = {}): Promise<StatusBody> => {
    const response = await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status, ...extra } });
    expect(response.status).toBe(200);
    return (await response.json()) as StatusBody;
  };
  const fetchStatus = async (id: string): Promise<StatusBody> =>
    (await (await kith.request("GET", `/api/v1/statuses/${id}`, { token: alice.token })).json()) as StatusBody;
  const cardOf = (id: string) =>
    eventually(async () => {
      const { card } = await fetchStatus(id);
      if (card === null) throw new Error("no card yet");
      return card;
    });
  const settled = () =>
    eventually(async () => expect(await kith.queue.counts("preview_cards.fetch")).toMatchObject({ submitted: 0, retries: 0, active: 0 }));

  it("shows the card of a status's first link, read from the page's tags", async () => {
    const status = await post(`Read this: ${base}/article/1 and ${base}/video`);
    expect(status.card).toBeNull();
    expect(await cardOf(status.id)).toEqual({
      url: `${base}/article/1`,
      title: "Les & chats",
      description: "Tout sur les chats.",
      type: "link",
      author_name: "Camille",
      author_url: "",
      provider_name: "Chats Quotidiens",
      provider_url: "",
      html: "",
      width: 640,
      height: 480,
      image: `${base}/images/cat.jpg`,
      image_description: "Un chat",
      embed_url: "",
      blurhash: null,
      published_at: "2026-11-30T10:00:00.000Z",
      language: "fr",
      authors: [],
    });
    // In timelines too: the card is part of the status wherever it is rendered.
    const home = (await (await kith.request("GET", "/api/v1/timelines/home", { token: alice.token })).json()) as StatusBody[];
    expect(home.find((entry) => entry.id === status.id)?.card).toMatchObject({ title: "Les & chats" });
  });

  it("reads a page once for every status linking it", async () => {
    const before = hits.filter((hit) => hit === "/article/2").length;
    const first = await post(`${base}/article/2`);
    await cardOf(first.id);
    const second = await post(`again ${base}/article/2`);
    expect(await cardOf(second.id)).toMatchObject({ url: `${base}/article/2` });
    expect(hits.filter((hit) => hit === "/article/2").length - before).toBe(1);
  });

  it("makes a video card from the page's oEmbed, with an iframe of its own and nothing else of the provider's markup", async () => {
    const status = await post(`${base}/video`);
    const card = await cardOf(status.id);
    expect(card).toMatchObject({
      type: "video",
      title: "A clip, by oEmbed",
      author_name: "Director",
      author_url: "https://video.example/director",
      provider_name: "Video Example",
      width: 560,
      height: 315,
    });
    expect(card.html).toBe(
      '<iframe src="https://video.example/embed/1?a=1&amp;b=2" width="560" height="315" frameborder="0" allowfullscreen="true"></iframe>',
    );
  });

  it("previews no mention, hashtag, direct status, page that is not HTML or page that is missing", async () => {
    await kith.createUser("bob");
    const mention = await post("hello @bob #cats");
    const direct = await post(`@bob ${base}/article/direct`, { visibility: "direct" });
    const zip = await post(`${base}/file.zip`);
    const missing = await post(`${base}/nowhere`);
    await settled();
    await sleep(50);
    for (const status of [mention, direct, zip, missing]) expect((await fetchStatus(status.id)).card).toBeNull();
    expect(hits).not.toContain("/article/direct");
  });

  it("lets a status deleted before its page is read go without a card", async () => {
    const status = await post(`${base}/article/3`);
    expect((await kith.request("DELETE", `/api/v1/statuses/${status.id}`, { token: alice.token })).status).toBe(200);
    await settled();
    expect((await kith.request("GET", `/api/v1/statuses/${status.id}`, { token: alice.token })).status).toBe(404);
  });

  it("trends the links shared by the most accounts lately, with history, as moderators review them", async () => {
    // Past the week the trends look back on, and past the ranking kept for five minutes.
    kith.clock.advance(8 * 86_400_000);
    const [carol, dave, admin, plain] = [
      await kith.createUser("carol"),
      await kith.createUser("dave"),
      await kith.createUser("trendadmin", { role: "Admin" }),
      await kith.createUser("trendplain"),
    ];
    await kith.storage.db.updateTable("accounts").set({ discoverable: true }).execute();
    const as = async (user: TestUser, status: string, visibility = "public") => {
      const response = await kith.request("POST", "/api/v1/statuses", { token: user.token, json: { status, visibility } });
      return ((await response.json()) as StatusBody).id;
    };
    const shared = [
      await as(carol, `${base}/article/trend-a`),
      await as(dave, `see ${base}/article/trend-a`),
      await as(alice, `${base}/article/trend-b`),
    ];
    // Private shares count for nothing.
    shared.push(await as(carol, `${base}/article/trend-b`, "private"), await as(dave, `${base}/article/trend-b`, "private"));
    for (const id of shared) await eventually(async () => expect((await fetchStatus(id)).card).not.toBeNull());
    const trending = async () =>
      (await (await kith.request("GET", "/api/v1/trends/links")).json()) as (Record<string, unknown> & { history: unknown[] })[];
    const links = await trending();
    expect(links.map((link) => link.url)).toEqual([`${base}/article/trend-a`, `${base}/article/trend-b`]);
    expect(links[0]).toMatchObject({ title: "Les & chats", type: "link" });
    expect(links[0]).not.toHaveProperty("id");
    expect(links[0]?.history).toHaveLength(7);
    expect(links[0]?.history[0]).toEqual({ day: expect.stringMatching(/^\d+$/), uses: "2", accounts: "2" });
    expect(links[1]?.history[0]).toMatchObject({ uses: "1", accounts: "1" });

    const review = async (token: string | undefined, path = "/api/v1/admin/trends/links", method = "GET") =>
      kith.request(method, path, token ? { token } : {});
    expect((await review(undefined)).status).toBe(401);
    expect((await review(plain.token)).status).toBe(403);
    const candidates = (await (await review(admin.token)).json()) as { id: string; url: string; requires_review: boolean }[];
    expect(candidates.map((link) => [link.url, link.requires_review])).toEqual([
      [`${base}/article/trend-a`, true],
      [`${base}/article/trend-b`, true],
    ]);
    const first = candidates[0]?.id ?? "";
    expect((await review(plain.token, `/api/v1/admin/trends/links/${first}/reject`, "POST")).status).toBe(403);
    const rejected = await review(admin.token, `/api/v1/admin/trends/links/${first}/reject`, "POST");
    expect(await rejected.json()).toMatchObject({ id: first, requires_review: false });
    expect((await trending()).map((link) => link.url)).toEqual([`${base}/article/trend-b`]);
    expect((await review(admin.token, `/api/v1/admin/trends/links/${first}/approve`, "POST")).status).toBe(200);
    expect((await trending()).map((link) => link.url)).toEqual([`${base}/article/trend-a`, `${base}/article/trend-b`]);
    expect((await review(admin.token, "/api/v1/admin/trends/links/pc_missing/approve", "POST")).status).toBe(404);

    kith.clock.advance(8 * 86_400_000);
    expect(await trending()).toEqual([]);
  });

  it("never reads a page on a private address where those are refused", async () => {
    const guarded = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: false } });
    try {
      await guarded.start();
      const user = await guarded.createUser("guarded");
      const before = hits.length;
      const response = await guarded.request("POST", "/api/v1/statuses", { token: user.token, json: { status: `${base}/article/4` } });
      const { id } = (await response.json()) as StatusBody;
      await eventually(async () =>
        expect(await guarded.queue.counts("preview_cards.fetch")).toMatchObject({ submitted: 0, retries: 0, active: 0 }),
      );
      const status = (await (await guarded.request("GET", `/api/v1/statuses/${id}`, { token: user.token })).json()) as StatusBody;
      expect(status.card).toBeNull();
      expect(hits.length).toBe(before);
    } finally {
      await guarded.close();
    }
  });
});
