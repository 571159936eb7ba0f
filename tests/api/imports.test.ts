/**
 * CSV imports and Mastodon's CSV exports over the API, on both engines:
 * each kind and mode with files shaped as Mastodon writes them (header or
 * none, blank lines, repeated rows, unknown and local accounts), the job's
 * states, progress and row errors, the refusals, and a round trip from the
 * exports of one account to the imports of a fresh one.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { describeOnEngines } from "../support/engines.js";

interface ImportJob {
  id: string;
  type: string;
  mode: string;
  state: string;
  progress: { processed: number; total: number };
  results: { imported: number; skipped: number; failed: number };
  errors: { row: number; account: string | null; outcome: string; reason: string }[];
}

interface Relationship {
  following: boolean;
  requested: boolean;
  blocking: boolean;
  muting: boolean;
  muting_notifications: boolean;
  showing_reblogs: boolean;
  notifying: boolean;
  languages: string[] | null;
}

describeOnEngines("CSV imports and exports", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let host: string;

  beforeAll(async () => {
    kith = await engine.testKith();
    host = new URL(kith.config.origin).host;
    [alice, bob, carol, dave] = await Promise.all([
      kith.createUser("alice"),
      kith.createUser("bob"),
      kith.createUser("carol"),
      kith.createUser("dave"),
    ]);
    await kith.start();
  });
  afterAll(() => kith.close());

  const upload = (user: TestUser, type: string, csv: string, mode = "merge", name = "file.csv"): Promise<Response> => {
    const form = new FormData();
    form.set("type", type);
    form.set("mode", mode);
    form.set("data", new File([csv], name, { type: "text/csv" }));
    return kith.request("POST", "/api/v1/import", { token: user.token, body: form });
  };

  const job = async (user: TestUser, id: string): Promise<ImportJob> =>
    (await (await kith.request("GET", `/api/v1/import/${id}`, { token: user.token })).json()) as ImportJob;

  /** Uploads, starts, and waits until the job is FINISHED. */
  const runImport = async (user: TestUser, type: string, csv: string, mode = "merge"): Promise<ImportJob> => {
    const created = await upload(user, type, csv, mode);
    expect(created.status, await created.clone().text()).toBe(200);
    const pending = (await created.json()) as ImportJob;
    expect(pending.state).toBe("PENDING");
    const started = await kith.request("POST", `/api/v1/import/start/${pending.id}`, { token: user.token });
    expect(started.status).toBe(200);
    return vi.waitFor(
      async () => {
        const now = await job(user, pending.id);
        expect(now.state).toBe("FINISHED");
        return now;
      },
      { timeout: 20_000, interval: 50 },
    );
  };

  const relationship = async (viewer: TestUser, id: string): Promise<Relationship> => {
    const response = await kith.request("GET", `/api/v1/accounts/relationships?id[]=${id}`, { token: viewer.token });
    return ((await response.json()) as Relationship[])[0] as Relationship;
  };

  const exported = async (user: TestUser, file: string): Promise<string> => {
    const response = await kith.request("GET", `/api/v1/exports/${file}`, { token: user.token });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/csv");
    return response.text();
  };

  describe("following", () => {
    it("follows the accounts of a following_accounts.csv with its options; blank lines, repeats and unknown accounts reported", async () => {
      const csv = [
        "Account address,Show boosts,Notify on new posts,Languages",
        `bob@${host},false,true,"en, de"`,
        "",
        `@carol@${host},true,false,`,
        `BOB@${host},true,false,`,
        `nobody@${host},true,false,`,
        `alice@${host},true,false,`,
        "",
      ].join("\n");
      const done = await runImport(alice, "following", csv);
      expect(done.progress).toEqual({ processed: 5, total: 5 });
      expect(done.results).toEqual({ imported: 2, skipped: 2, failed: 1 });
      expect(done.errors).toEqual([
        { row: 5, account: `BOB@${host}`, outcome: "skipped", reason: "Repeats an earlier row" },
        { row: 6, account: `nobody@${host}`, outcome: "failed", reason: "Account not found" },
        { row: 7, account: `alice@${host}`, outcome: "skipped", reason: "That is the importing account itself" },
      ]);
      expect(await relationship(alice, bob.account.id)).toMatchObject({
        following: true,
        showing_reblogs: false,
        notifying: true,
        languages: ["en", "de"],
      });
      expect(await relationship(alice, carol.account.id)).toMatchObject({ following: true, showing_reblogs: true, notifying: false });
    });

    it("reads the spec's followers kind as accounts to follow, from a file without a header; overwrite unfollows the rest", async () => {
      const done = await runImport(alice, "followers", `dave@${host}\n`, "overwrite");
      expect(done.results).toEqual({ imported: 1, skipped: 0, failed: 0 });
      expect(await relationship(alice, dave.account.id)).toMatchObject({ following: true });
      expect(await relationship(alice, bob.account.id)).toMatchObject({ following: false });
      expect(await relationship(alice, carol.account.id)).toMatchObject({ following: false });
    });
  });

  it("blocks the accounts of a blocked_accounts.csv (no header), ending follows both ways; overwrite unblocks the rest", async () => {
    await kith.request("POST", `/api/v1/accounts/${bob.account.id}/follow`, { token: carol.token });
    await kith.request("POST", `/api/v1/accounts/${carol.account.id}/follow`, { token: bob.token });
    const done = await runImport(bob, "blocks", `carol@${host}\r\n\r\ndave@${host}\r\n`);
    expect(done.results).toEqual({ imported: 2, skipped: 0, failed: 0 });
    expect(await relationship(bob, carol.account.id)).toMatchObject({ blocking: true, following: false });
    expect(await relationship(carol, bob.account.id)).toMatchObject({ following: false });
    expect(await exported(bob, "blocked_accounts.csv")).toBe(`dave@${host}\ncarol@${host}\n`);

    await runImport(bob, "blocks", `Account address\ndave@${host}\n`, "overwrite");
    expect(await relationship(bob, carol.account.id)).toMatchObject({ blocking: false });
    expect(await relationship(bob, dave.account.id)).toMatchObject({ blocking: true });
  });

  it("mutes with and without notifications from a muted_accounts.csv, and exports it as Mastodon does", async () => {
    const done = await runImport(carol, "mutes", `Account address,Hide notifications\nalice@${host},false\ndave@${host},true\n`);
    expect(done.results.imported).toBe(2);
    expect(await relationship(carol, alice.account.id)).toMatchObject({ muting: true, muting_notifications: false });
    expect(await relationship(carol, dave.account.id)).toMatchObject({ muting: true, muting_notifications: true });
    expect(await exported(carol, "muted_accounts.csv")).toBe(
      `Account address,Hide notifications\ndave@${host},true\nalice@${host},false\n`,
    );
  });

  it("blocks domains from a blocked_domains.csv with or without its #domain header; overwrite unblocks the others", async () => {
    const done = await runImport(dave, "domain_blocking", "#domain\nSpam.Example\nspam.example\nbad.example\n");
    expect(done.results).toEqual({ imported: 2, skipped: 1, failed: 0 });
    expect(await exported(dave, "blocked_domains.csv")).toBe("spam.example\nbad.example\n");
    await runImport(dave, "domain_blocking", "bad.example\nworse.example\n", "overwrite");
    expect(await exported(dave, "blocked_domains.csv")).toBe("bad.example\nworse.example\n");
  });

  it("bookmarks statuses by URI from a bookmarks.csv; an unknown status is a row error", async () => {
    const posted = (await (
      await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status: "keep this" } })
    ).json()) as {
      id: string;
      uri: string;
    };
    const done = await runImport(dave, "bookmarks", `${posted.uri}\n${kith.config.origin}/users/alice/statuses/st_missing\n`);
    expect(done.results, JSON.stringify(done.errors)).toEqual({ imported: 1, skipped: 0, failed: 1 });
    const bookmarks = (await (await kith.request("GET", "/api/v1/bookmarks", { token: dave.token })).json()) as { id: string }[];
    expect(bookmarks.map((status) => status.id)).toEqual([posted.id]);
    expect(await exported(dave, "bookmarks.csv")).toBe(`${posted.uri}\n`);
  });

  it("makes lists from a lists.csv (no header), following their members first", async () => {
    const done = await runImport(dave, "lists", `Friends,alice@${host}\nFriends,carol@${host}\n"Work, mostly",carol@${host}\n`);
    expect(done.results, JSON.stringify(done.errors)).toEqual({ imported: 3, skipped: 0, failed: 0 });
    expect(await relationship(dave, alice.account.id)).toMatchObject({ following: true });
    // Members in the order they were added; two added in the same instant, in either order.
    expect((await exported(dave, "lists.csv")).split("\n").sort()).toEqual(
      ["", `"Work, mostly",carol@${host}`, `Friends,alice@${host}`, `Friends,carol@${host}`].sort(),
    );
    await runImport(dave, "lists", `Friends,carol@${host}\n`, "overwrite");
    expect(await exported(dave, "lists.csv")).toBe(`Friends,carol@${host}\n`);
  });

  it("refuses a file of another kind, a file not CSV, an empty one, and a start from any state but PENDING", async () => {
    const refused = async (response: Response, status: number, code: string) => {
      expect(response.status).toBe(status);
      expect(((await response.json()) as { code?: string }).code).toBe(code);
    };
    await refused(await upload(alice, "mutes", "Account address,Show boosts\nbob@x.example,true\n"), 422, "import.invalid_file");
    await refused(await upload(alice, "blocks", "#domain\nx.example\n"), 422, "import.invalid_file");
    await refused(await upload(alice, "blocks", "https://x.example/users/a/statuses/1\n"), 422, "import.invalid_file");
    await refused(await upload(alice, "bookmarks", `bob@${host}\n`), 422, "import.invalid_file");
    await refused(await upload(alice, "blocks", 'bob@x.example,"unclosed\n'), 422, "import.invalid_file");
    await refused(await upload(alice, "blocks", "\n\n"), 422, "import.empty_file");
    const binary = new FormData();
    binary.set("type", "blocks");
    binary.set("data", new File([new Uint8Array([0xff, 0xfe, 0x00, 0x01])], "x.csv"));
    await refused(await kith.request("POST", "/api/v1/import", { token: alice.token, body: binary }), 422, "import.invalid_file");
    expect((await upload(alice, "statuses", `bob@${host}\n`)).status).toBe(422);

    const done = await runImport(alice, "blocks", `nobody@${host}\n`);
    await refused(await kith.request("POST", `/api/v1/import/start/${done.id}`, { token: alice.token }), 409, "import.not_pending");
    await refused(await kith.request("POST", `/api/v1/import/start/${done.id}`, { token: bob.token }), 404, "import.not_found");
    expect((await kith.request("GET", `/api/v1/import/${done.id}`, { token: bob.token })).status).toBe(404);
  });

  it("lists the caller's jobs, newest first, and refuses a fourth waiting one", async () => {
    const user = await kith.createUser("lister");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await (await upload(user, "blocks", `bob@${host}\n`)).json()) as ImportJob).id);
    const fourth = await upload(user, "blocks", `bob@${host}\n`);
    expect(fourth.status).toBe(409);
    const listed = (await (await kith.request("GET", "/api/v1/import", { token: user.token })).json()) as ImportJob[];
    expect(listed.map((one) => one.id)).toEqual([...ids].reverse());
    expect(listed.every((one) => one.state === "PENDING" && one.progress.total === 1)).toBe(true);
  });

  it("round trip: what one account exports, a fresh account imports to the same relationships", async () => {
    const source = await kith.createUser("source");
    const fresh = await kith.createUser("fresh");
    await kith.request("POST", `/api/v1/accounts/${bob.account.id}/follow`, {
      token: source.token,
      json: { reblogs: false, languages: ["fr"] },
    });
    await kith.request("POST", `/api/v1/accounts/${carol.account.id}/follow`, { token: source.token, json: { notify: true } });
    await kith.request("POST", `/api/v1/accounts/${dave.account.id}/block`, { token: source.token });
    await kith.request("POST", `/api/v1/accounts/${alice.account.id}/mute`, { token: source.token, json: { notifications: false } });
    await kith.request("POST", "/api/v1/domain_blocks", { token: source.token, form: { domain: "noise.example" } });
    const list = (await (await kith.request("POST", "/api/v1/lists", { token: source.token, json: { title: "Close" } })).json()) as {
      id: string;
    };
    await kith.request("POST", `/api/v1/lists/${list.id}/accounts`, { token: source.token, json: { account_ids: [carol.account.id] } });
    const status = (await (await kith.request("POST", "/api/v1/statuses", { token: carol.token, json: { status: "mark me" } })).json()) as {
      id: string;
    };
    await kith.request("POST", `/api/v1/statuses/${status.id}/bookmark`, { token: source.token });

    const files: [string, string][] = [
      ["following", "following_accounts.csv"],
      ["blocks", "blocked_accounts.csv"],
      ["mutes", "muted_accounts.csv"],
      ["domain_blocking", "blocked_domains.csv"],
      ["bookmarks", "bookmarks.csv"],
      ["lists", "lists.csv"],
    ];
    for (const [type, file] of files) {
      const csv = await exported(source, file);
      const done = await runImport(fresh, type, csv);
      expect(done.results.failed, `${file}: ${JSON.stringify(done.errors)}`).toBe(0);
    }
    // The same rows; the order is the order of making, which an import of a newest-first file reverses.
    const lines = (csv: string) => csv.split("\n").sort();
    for (const [, file] of files) expect(lines(await exported(fresh, file)), file).toEqual(lines(await exported(source, file)));
    expect(await exported(source, "following_accounts.csv")).toBe(
      `Account address,Show boosts,Notify on new posts,Languages\ncarol@${host},true,true,\nbob@${host},false,false,fr\n`,
    );
  });
});
