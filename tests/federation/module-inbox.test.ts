/**
 * A feature module's inbox listeners get the activities of their type from
 * the shared and personal inboxes, signed as any other, beside the core's
 * listeners for the same type.
 */
import { type KithModule, defaultModules, defineModule } from "@kith/core";
import { type RemoteServer, type TestKith, eventually, startRemoteServer, vocab } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

/** Remembers the ids of the Listen and Like activities it is given. */
function recordingModule(): KithModule<"recorder", { readonly heard: string[] }> {
  return defineModule({
    name: "recorder",
    services: () => ({ heard: [] as string[] }),
    inbox: (recorder, inbox) => {
      inbox
        .on(vocab.Listen, (_ctx, activity) => {
          if (activity.id) recorder.heard.push(activity.id.href);
        })
        .on(vocab.Like, (_ctx, activity) => {
          if (activity.id) recorder.heard.push(activity.id.href);
        });
    },
  });
}

describeOnEngines("a module's inbox listeners", (engine) => {
  let remote: RemoteServer;
  let kith: TestKith;
  const recorder = recordingModule();

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory"]);
    kith = await engine.testKith({
      config: { origin: "https://kith.test", allowPrivateAddress: true },
      modules: [...defaultModules, recorder],
    });
    await kith.createUser("alice");
    await kith.start();
  });
  afterAll(async () => {
    await kith.close();
    await remote.close();
  });

  const mallory = () => remote.actors.mallory ?? expect.unreachable("mallory");

  async function deliver(inbox: string, activity: Record<string, unknown>): Promise<number> {
    const response = await kith.fetch(await remote.signedPost(inbox, activity, mallory()), { clientIp: "127.0.0.1" });
    return response.status;
  }

  it("gets an activity type the core does not listen for, from either inbox", async () => {
    const shared = `${mallory().id.href}/listens/1`;
    const personal = `${mallory().id.href}/listens/2`;
    const listen = (id: string) => ({
      "@context": "https://www.w3.org/ns/activitystreams",
      id,
      type: "Listen",
      actor: mallory().id.href,
      to: [PUBLIC],
      object: `${remote.origin}/tracks/1`,
    });
    expect(await deliver("https://kith.test/inbox", listen(shared))).toBe(202);
    expect(await deliver("https://kith.test/users/alice/inbox", listen(personal))).toBe(202);
    await eventually(() => expect(kith.module(recorder).heard).toEqual(expect.arrayContaining([shared, personal])));
  });

  it("gets a type the core listens for too, and the core still takes it", async () => {
    const status = await kith.request("POST", "/api/v1/statuses", {
      token: (await kith.createUser("bob")).token,
      json: { status: "like me", visibility: "public" },
    });
    const { uri } = (await status.json()) as { uri: string; id: string };
    const like = `${mallory().id.href}/likes/1`;
    const activity = { "@context": "https://www.w3.org/ns/activitystreams", id: like, type: "Like", actor: mallory().id.href, object: uri };
    expect(await deliver("https://kith.test/inbox", activity)).toBe(202);
    await eventually(async () => {
      expect(kith.module(recorder).heard).toContain(like);
      const favourites = await kith.storage.db.selectFrom("favourites").select("id").execute();
      expect(favourites).toHaveLength(1);
    });
  });

  it("is not set on an instance without the module", async () => {
    expect(() => kith.module(defineModule({ name: "absent", services: () => null }))).toThrow(/not composed/);
  });
});
