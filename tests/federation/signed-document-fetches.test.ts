/**
 * Every fetch of another server's document is signed, as servers in secure
 * ("authorized fetch") mode require of all of them: the key of a request's
 * signer fetched by its fragment id when a signed GET arrives, and the parts
 * of a post given by reference (an attachment, a hashtag) when a post is
 * resolved by its URL. The remote server refuses unsigned GETs with 401.
 */
import { type RemoteServer, startRemoteServer } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type PairedKith, startServedKith } from "../support/federation-pair.js";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

describeOnEngines("signed fetches of remote documents", (engine) => {
  let remote: RemoteServer;
  let served: PairedKith & { close(): Promise<void> };

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory"]);
  });
  afterAll(async () => {
    await remote.close();
  });
  beforeEach(async () => {
    remote.requireSignedFetch = true;
    remote.fetched.length = 0;
    served = await startServedKith(engine);
  });
  afterEach(async () => {
    await served.close();
  });

  const mallory = () => remote.actors.mallory ?? expect.unreachable("mallory");
  const instanceKey = () => `keyId="${served.origin}/users/instance.actor#main-key"`;

  it("signs the fetch of a signer's key, named by its fragment id, when a signed GET arrives", async () => {
    await served.kith.createUser("alice");
    const response = await fetch(await remote.signedGet(`${served.origin}/users/alice`, mallory()));
    expect(response.status).toBe(200);
    const keyFetches = remote.fetched.filter((request) => request.path === "/users/mallory");
    expect(keyFetches.length).toBeGreaterThan(0);
    for (const request of keyFetches) expect(String(request.headers.signature)).toContain(instanceKey());
  });

  it("signs the fetches of an attachment and a hashtag a resolved post gives by reference", async () => {
    const alice = await served.kith.createUser("alice");
    remote.serve("/media/1", {
      "@context": "https://www.w3.org/ns/activitystreams",
      type: "Document",
      id: `${remote.origin}/media/1`,
      mediaType: "image/png",
      url: `${remote.origin}/files/1.png`,
      name: "a square",
    });
    remote.serve("/tags/quince", {
      "@context": ["https://www.w3.org/ns/activitystreams", { Hashtag: "as:Hashtag" }],
      type: "Hashtag",
      id: `${remote.origin}/tags/quince`,
      href: `${remote.origin}/tags/quince`,
      name: "#quince",
    });
    const note = `${remote.origin}/users/mallory/statuses/by-reference`;
    remote.serve(new URL(note).pathname, {
      "@context": "https://www.w3.org/ns/activitystreams",
      type: "Note",
      id: note,
      attributedTo: mallory().id.href,
      content: "<p>#quince</p>",
      to: [PUBLIC],
      published: new Date().toISOString(),
      attachment: [`${remote.origin}/media/1`],
      tag: [`${remote.origin}/tags/quince`],
    });

    const found = await served.kith.request("GET", `/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(note)}`, {
      token: alice.token,
    });
    expect(found.status).toBe(200);
    const statuses = ((await found.json()) as { statuses: { media_attachments: { description: string }[]; tags: { name: string }[] }[] })
      .statuses;
    expect(statuses).toHaveLength(1);
    expect(statuses[0]?.media_attachments.map((media) => media.description)).toEqual(["a square"]);
    expect(statuses[0]?.tags.map((tag) => tag.name)).toEqual(["quince"]);
    const paths = remote.fetched.map((request) => request.path);
    expect(paths).toEqual(expect.arrayContaining(["/media/1", "/tags/quince", new URL(note).pathname]));
    for (const request of remote.fetched) expect(String(request.headers.signature)).toContain(instanceKey());
  });
});
