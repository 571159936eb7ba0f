import { afterAll, beforeAll, expect, it } from "vitest";
import { type LocalNoteValues, localNoteAt } from "../../packages/core/src/modules/statuses/local-note-uris.js";
import type { TestKith } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

type FedifyContext = ReturnType<Awaited<ReturnType<TestKith["federation"]["load"]>>["context"]>;

/** What Fedify's own parse of a URI says of it, as localNoteAt's answer. */
function fromFedify(parsed: ReturnType<FedifyContext["parseUri"]>): LocalNoteValues | null {
  // The statuses' route is registered as Object; a status's activity is an object of another route, not a status.
  if (parsed?.type !== "object" || parsed.typeId.href !== "https://www.w3.org/ns/activitystreams#Object") return null;
  const { identifier, id } = parsed.values;
  return identifier && id ? { identifier, id } : null;
}

describeOnEngines("our posts' URIs, read without Fedify's router", (engine) => {
  let kith: TestKith;
  beforeAll(async () => {
    kith = await engine.testKith({ config: { origin: "https://kith.test" } });
  });
  afterAll(async () => {
    await kith.close();
  });

  const uris = [
    "https://kith.test/users/alice/statuses/01HZX5Q0M8ZC9V8Y3J6K2N4P7R",
    "https://kith.test/users/alice/statuses/01HZX5Q0M8ZC9V8Y3J6K2N4P7R?reply=1",
    "https://kith.test/users/alice/statuses/01HZX5Q0M8ZC9V8Y3J6K2N4P7R#top",
    "https://kith.test/users/alice/statuses/01HZX5Q0M8ZC9V8Y3J6K2N4P7R/",
    "https://kith.test/users/alice/statuses/01HZX5Q0M8ZC9V8Y3J6K2N4P7R/activity",
    "https://kith.test/users/al%69ce/statuses/st%5F1",
    "https://kith.test/users/a%2Fb/statuses/1",
    "https://kith.test/users/alice/statuses/",
    "https://kith.test/users/alice/statuses",
    "https://kith.test/users/alice",
    "https://kith.test/users//statuses/1",
    "https://kith.test/users/alice/statuses/1/2",
    "https://kith.test/users/alice/status/1",
    "https://kith.test/@alice/01HZX5Q0M8ZC9V8Y3J6K2N4P7R",
    "https://kith.test:443/users/alice/statuses/1",
    "https://KITH.test/users/alice/statuses/1",
    "http://kith.test/users/alice/statuses/1",
    "https://kith.test.evil/users/alice/statuses/1",
    "https://other.example/users/alice/statuses/1",
    "https://kith.test/users/alice.b-c_d/statuses/x~y",
    "https://kith.test/users/alice/statuses/a;b,c",
    "https://kith.test/users/alice/statuses/a!b",
    "https://kith.test/users/alice/statuses/a$b",
    "https://kith.test/users/alice/statuses/a(b)*+'=@:",
    "https://kith.test/users/al%C3%ADce/statuses/1",
    "https://kith.test/users/alíce/statuses/1",
  ];

  it("reads each as Fedify's parseUri does", async () => {
    const ctx = (await kith.federation.load()).context();
    const seen = uris.map((uri) => ({ uri, ours: localNoteAt(ctx, new URL(uri)), fedify: fromFedify(ctx.parseUri(new URL(uri))) }));
    expect(seen.map(({ uri, ours }) => ({ uri, values: ours }))).toEqual(seen.map(({ uri, fedify }) => ({ uri, values: fedify })));
    // The list holds both answers, so an always-null reader would not pass.
    expect(seen.filter(({ fedify }) => fedify !== null).length).toBeGreaterThan(4);
  });
});
