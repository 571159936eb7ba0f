/**
 * Imports naming accounts of another Kith server, over real HTTP, on both
 * engines: a follow resolves the account by WebFinger and is sent as a
 * Follow, which the other server accepts; an account that server does not
 * have is a row error; a block ends the follow both ways on both servers;
 * and the file the first server exports names the remote accounts as the
 * other server's handles.
 */
import type { TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type KithPair, type PairedKith, eventually, startKithPair } from "../support/federation-pair.js";

interface ImportJob {
  id: string;
  state: string;
  progress: { processed: number; total: number };
  results: { imported: number; skipped: number; failed: number };
  errors: { row: number; account: string | null; reason: string }[];
}

describeOnEngines("imports of accounts on another server", (engine) => {
  let pair: KithPair;
  let a: PairedKith;
  let b: PairedKith;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    pair = await startKithPair(engine);
    ({ a, b } = pair);
    alice = await a.kith.createUser("alice");
    [bob, carol] = await Promise.all([b.kith.createUser("bob"), b.kith.createUser("carol")]);
  });
  afterAll(() => pair.close());

  const runImport = async (type: string, csv: string): Promise<ImportJob> => {
    const form = new FormData();
    form.set("type", type);
    form.set("data", new File([csv], "import.csv", { type: "text/csv" }));
    const created = (await (await a.kith.request("POST", "/api/v1/import", { token: alice.token, body: form })).json()) as ImportJob;
    expect((await a.kith.request("POST", `/api/v1/import/start/${created.id}`, { token: alice.token })).status).toBe(200);
    return eventually(
      async () => (await (await a.kith.request("GET", `/api/v1/import/${created.id}`, { token: alice.token })).json()) as ImportJob,
      (job) => job.state === "FINISHED",
    );
  };

  const followersOn = async (user: TestUser): Promise<string[]> => {
    const response = await b.kith.request("GET", `/api/v1/accounts/${user.account.id}/followers`, { token: user.token });
    return ((await response.json()) as { acct: string }[]).map((account) => account.acct);
  };

  it("follows accounts of the other server through WebFinger and federation, and reports one it does not have", {
    timeout: 90_000,
  }, async () => {
    const done = await runImport(
      "following",
      `Account address,Show boosts\nbob@${b.host},true\n@carol@${b.host},false\nghost@${b.host},true\n`,
    );
    expect(done.progress).toEqual({ processed: 3, total: 3 });
    expect(done.results).toEqual({ imported: 2, skipped: 0, failed: 1 });
    expect(done.errors).toEqual([{ row: 4, account: `ghost@${b.host}`, outcome: "failed", reason: "Account not found" }]);
    const aliceOnB = `alice@${a.host}`;
    expect(
      await eventually(
        () => followersOn(bob),
        (list) => list.includes(aliceOnB),
      ),
    ).toEqual([aliceOnB]);
    expect(
      await eventually(
        () => followersOn(carol),
        (list) => list.includes(aliceOnB),
      ),
    ).toEqual([aliceOnB]);
    const exported = await eventually(
      async () => (await a.kith.request("GET", "/api/v1/exports/following_accounts.csv", { token: alice.token })).text(),
      (text) => text.split("\n").length === 4,
    );
    expect(exported.split("\n").sort()).toEqual(
      ["", "Account address,Show boosts,Notify on new posts,Languages", `bob@${b.host},true,false,`, `carol@${b.host},false,false,`].sort(),
    );
  });

  it("blocks an account of the other server: the follow ends there too", async () => {
    const done = await runImport("blocks", `carol@${b.host}\n`);
    expect(done.results).toEqual({ imported: 1, skipped: 0, failed: 0 });
    expect(
      await eventually(
        () => followersOn(carol),
        (list) => list.length === 0,
      ),
    ).toEqual([]);
    expect(await followersOn(bob)).toEqual([`alice@${a.host}`]);
  });
});
