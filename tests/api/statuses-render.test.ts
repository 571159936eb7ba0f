import type { TestKith, TestUser } from "@kith/core/testing";
import type { Storage } from "@kith/core";
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { insertCompletedMedia } from "../support/completed-media.js";
import { describeOnEngines } from "../support/engines.js";
import { type StatusBody, follow, post } from "./statuses-support.js";
import { StatusViews } from "../../packages/core/src/modules/statuses/status-views.js";

/** Counts the statements a Kysely instance runs. */
class QueryCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

describeOnEngines("rendering posts", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
  });
  afterAll(() => kith.close());

  const completedMedia = (owner: TestUser, id: string): Promise<string> => insertCompletedMedia(kith, owner.account.id, id);

  it("renders any number of posts with the same number of queries", async () => {
    const counter = new QueryCounter();
    const storage = kith.storage;
    const counted = new Proxy(storage, {
      get(target, property) {
        if (property === "db") return target.db.withPlugin(counter);
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as Storage;
    let accountCalls = 0;
    let mediaCalls = 0;
    // The account and media renderers are the other parts' batches: counted as calls, each one batch.
    const renderAccounts = async (ids: readonly string[]) => {
      accountCalls++;
      const rows = await kith.storage.db.selectFrom("accounts").select(["id", "username"]).where("id", "in", ids).execute();
      return new Map(rows.map((row) => [row.id, { id: row.id, username: row.username } as never]));
    };
    const accounts = {
      render: renderAccounts,
      renderVersions: (versions: readonly { id: string }[]) => renderAccounts(versions.map((version) => version.id)),
    };
    const media = {
      renderForStatuses: (ids: readonly string[]) => {
        mediaCalls++;
        return kith.services.media.renderForStatuses(ids);
      },
    };
    const views = new StatusViews({ storage: counted, config: kith.config, clock: kith.clock, blob: kith.blob }, accounts, media);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const status = await post(kith, i % 2 === 0 ? alice : bob, {
        status: `post ${i} @bob #tag${i}`,
        ...(i % 3 === 0 && { poll: { options: ["a", "b"], expires_in: 3600 } }),
      });
      ids.push(status.id);
      const boost = await kith.request("POST", `/api/v1/statuses/${status.id}/reblog`, { token: i % 2 === 0 ? bob.token : alice.token });
      ids.push(((await boost.json()) as StatusBody).id);
    }
    counter.count = 0;
    const few = await views.render(ids.slice(0, 2), alice.account.id);
    const fewQueries = counter.count;
    counter.count = 0;
    const many = await views.render(ids, alice.account.id);
    expect(few.size).toBe(2);
    expect(many.size).toBe(24);
    expect(counter.count).toBe(fewQueries);
    expect(accountCalls).toBe(2);
    expect(mediaCalls).toBe(2);
  });

  it("attaches completed media, renders it, and refuses media with a poll or someone else's media", async () => {
    const first = await completedMedia(alice, "md_0000000000000000000000000a");
    const status = await post(kith, alice, { status: "", media_ids: [first] });
    expect(status.media_attachments).toHaveLength(1);
    expect((status.media_attachments[0] as { id: string }).id).toBe(first);
    const onlyMedia = (await (
      await kith.request("GET", `/api/v1/accounts/${alice.account.id}/statuses?only_media=true`)
    ).json()) as StatusBody[];
    expect(onlyMedia.map((s) => s.id)).toEqual([status.id]);
    const second = await completedMedia(alice, "md_0000000000000000000000000b");
    const withPoll = await kith.request("POST", "/api/v1/statuses", {
      token: alice.token,
      json: { status: "x", media_ids: [second], poll: { options: ["a", "b"], expires_in: 3600 } },
    });
    expect(withPoll.status).toBe(422);
    const notMine = await kith.request("POST", "/api/v1/statuses", { token: bob.token, json: { status: "x", media_ids: [second] } });
    expect(notMine.status).toBe(422);
    const reused = await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status: "x", media_ids: [first] } });
    expect(reused.status).toBe(422);
    // An edit can swap the media; the history keeps what each version had.
    const edited = await kith.request("PUT", `/api/v1/statuses/${status.id}`, {
      token: alice.token,
      json: { status: "now with text", media_ids: [second] },
    });
    expect(edited.status).toBe(200);
    expect(((await edited.json()) as StatusBody).media_attachments.map((m) => (m as { id: string }).id)).toEqual([second]);
  });

  it("marks the viewer's own reactions and leaves them out for guests", async () => {
    await follow(kith, bob, alice);
    const status = await post(kith, alice, { status: "marks" });
    await kith.request("POST", `/api/v1/statuses/${status.id}/favourite`, { token: bob.token });
    await kith.request("POST", `/api/v1/statuses/${status.id}/bookmark`, { token: bob.token });
    const forBob = await kith.services.statusViews.renderOne(status.id, bob.account.id);
    expect(forBob).toMatchObject({ favourited: true, bookmarked: true, reblogged: false, muted: false, pinned: false });
    const forGuest = await kith.services.statusViews.renderOne(status.id, null);
    expect(forGuest?.favourited).toBeUndefined();
    expect(forGuest?.favourites_count).toBe(1);
  });

  it("asks for the media of kept posts only when they have some, and again after an edit", async () => {
    const asked: string[][] = [];
    const media = {
      renderForStatuses: (ids: readonly string[]) => {
        asked.push([...ids].sort());
        return kith.services.media.renderForStatuses(ids);
      },
    };
    const views = new StatusViews(kith, kith.services.feedAccounts, media);
    const plain = await post(kith, alice, { status: "no media yet" });
    const withMedia = await post(kith, alice, { status: "", media_ids: [await completedMedia(alice, "md_00000000000000000000000k01")] });
    const both = [plain.id, withMedia.id];

    await views.render(both, alice.account.id);
    await views.render(both, alice.account.id);
    expect(asked).toEqual([[...both].sort(), [withMedia.id]]);

    const added = await completedMedia(alice, "md_00000000000000000000000k02");
    const edited = await kith.request("PUT", `/api/v1/statuses/${plain.id}`, {
      token: alice.token,
      json: { status: "with media now", media_ids: [added] },
    });
    expect(edited.status).toBe(200);
    asked.length = 0;
    const rendered = await views.render(both, alice.account.id);
    expect(asked).toEqual([[...both].sort()]);
    expect(rendered.get(plain.id)?.media_attachments.map((attachment) => attachment.id)).toEqual([added]);
  });
});
