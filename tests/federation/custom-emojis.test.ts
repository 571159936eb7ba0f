/**
 * Custom emojis between two Kith instances served over real HTTP: an
 * emoji added on one server is sent as an `Emoji` tag with the posts and
 * the profile that name it, and the other server shows it in the post's
 * and the account's `emojis`, with the image its server serves.
 */
import { afterAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type KithPair, eventually, startKithPair } from "../support/federation-pair.js";
import { makePng } from "../support/media-files.js";
import { giveGrants } from "../support/roles.js";

interface Emoji {
  shortcode: string;
  url: string;
  static_url: string;
  uri?: string;
}

describeOnEngines("custom emojis between two instances", { timeout: 60_000 }, (engine) => {
  let pair: KithPair | undefined;
  afterAll(async () => {
    await pair?.close();
  });

  it("sends the emojis a post and a profile name, and the other server shows them", async () => {
    pair = await startKithPair(engine);
    const { a, b } = pair;
    const [staff, dave, bob] = await Promise.all([a.kith.createUser("staff"), a.kith.createUser("dave"), b.kith.createUser("bob")]);
    await giveGrants(a.kith, staff.account.id, [{ resource: "CustomEmojis", access: ["Add", "Modify", "Delete"], scope: "global" }]);
    const png = await makePng(32, 32);
    const body = new FormData();
    body.set("shortcode", "blobcat");
    body.set("image", new File([png], "blobcat.png", { type: "image/png" }));
    const added = await a.kith.request("POST", "/api/v1/admin/custom_emojis", { token: staff.token, body });
    expect(added.status).toBe(200);
    const emoji = (await added.json()) as Emoji;
    expect(
      (await a.kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: dave.token, json: { display_name: "Dave :blobcat:" } })).status,
    ).toBe(200);

    const search = await b.kith.request("GET", `/api/v2/search?q=${encodeURIComponent(`@dave@${a.host}`)}&resolve=true&type=accounts`, {
      token: bob.token,
    });
    const [daveOnB] = ((await search.json()) as { accounts: { id: string; emojis: Emoji[] }[] }).accounts;
    const daveId = daveOnB?.id ?? expect.unreachable("dave resolved");
    expect(daveOnB?.emojis.map((each) => [each.shortcode, each.url])).toEqual([["blobcat", emoji.url]]);
    expect((await b.kith.request("POST", `/api/v1/accounts/${daveId}/follow`, { token: bob.token })).status).toBe(200);
    const relationship = async () =>
      ((await (await b.kith.request("GET", `/api/v1/accounts/relationships?id[]=${daveId}`, { token: bob.token })).json()) as { following: boolean }[])[0];
    expect(await eventually(relationship, (rel) => rel?.following === true)).toMatchObject({ following: true });

    const posted = await a.kith.request("POST", "/api/v1/statuses", { token: dave.token, json: { status: "Look :blobcat: here", visibility: "public" } });
    expect(posted.status).toBe(200);
    const home = async () => (await (await b.kith.request("GET", "/api/v1/timelines/home", { token: bob.token })).json()) as { content: string; emojis: Emoji[] }[];
    const [received] = await eventually(home, (list) => list.length === 1);
    expect(received?.content).toContain(":blobcat:");
    expect(received?.emojis).toEqual([{ shortcode: "blobcat", url: emoji.url, static_url: emoji.url, visible_in_picker: true, category: null }]);

    // The image is fetched from the server it belongs to, over HTTP.
    const image = await fetch(emoji.url);
    expect(image.status).toBe(200);
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(png);
    const kept = await b.kith.storage.db.selectFrom("custom_emojis").select(["shortcode", "domain", "image_remote_url", "uri"]).execute();
    expect(kept).toEqual([{ shortcode: "blobcat", domain: a.host, image_remote_url: emoji.url, uri: emoji.uri }]);
    // The tag's id opens: the Emoji object, as Mastodon serves it.
    const object = await fetch(emoji.uri ?? "", { headers: { accept: "application/activity+json" } });
    expect(object.headers.get("content-type")).toContain("application/activity+json");
    expect(await object.json()).toMatchObject({ id: emoji.uri, type: "Emoji", name: ":blobcat:", icon: { type: "Image", mediaType: "image/png", url: emoji.url } });
  });
});
