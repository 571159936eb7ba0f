import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assembleKith } from "./assemble.js";
import { type CliIo, runCli } from "./cli.js";
import { loadConfig } from "./config.js";

interface Captured extends CliIo {
  readonly stdout: string[];
  readonly stderr: string[];
}

function io(env: NodeJS.ProcessEnv): Captured {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { env, out: (line) => stdout.push(line), err: (line) => stderr.push(line), stdout, stderr };
}

describe("kith's administration commands", () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "kith-cli-admin-"));
    env = { KITH_DATA_DIR: dataDir, KITH_LOG_LEVEL: "error" };
    expect(await runCli(["migrate"], io(env))).toBe(0);
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  async function create(username: string, ...flags: string[]): Promise<string> {
    const run = io(env);
    expect(await runCli(["accounts", "create", username, `--email=${username}@example.com`, "--confirmed", ...flags], run)).toBe(0);
    return /^New password: (\S+)$/.exec(run.stdout.at(-1) ?? "")?.[1] ?? "";
  }

  /** Whether a username and password get a token from the password grant: the way back in the command line gives. */
  async function canSignIn(username: string, password: string): Promise<boolean> {
    const kith = await assembleKith(loadConfig(env));
    try {
      const { app, clientSecret } = await kith.services.oauth.registerApp({
        name: "cli test",
        redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
        scopes: "read",
      });
      const response = await kith.fetch(
        new Request(new URL("/oauth/token", kith.config.origin), {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "password",
            username: `${username}@example.com`,
            password,
            client_id: app.clientId,
            client_secret: clientSecret,
            scope: "read",
          }),
        }),
        { clientIp: "127.0.0.1" },
      );
      return response.status === 200;
    } finally {
      await kith.close();
    }
  }

  async function withStorage<T>(work: (storage: ReturnType<typeof createSqliteStorage>) => Promise<T>): Promise<T> {
    const storage = createSqliteStorage({ filename: join(dataDir, "kith.sqlite") });
    try {
      return await work(storage);
    } finally {
      await storage.close();
    }
  }

  it("resets a forgotten password: the new one signs in, the old one no longer", async () => {
    const old = await create("owner", "--role=Owner");
    const run = io(env);
    expect(await runCli(["accounts", "modify", "owner", "--reset-password"], run)).toBe(0);
    expect(run.stdout[0]).toBe("OK");
    const fresh = /^New password: (\S{20,})$/.exec(run.stdout[1] ?? "")?.[1];
    expect(fresh).toBeDefined();
    expect(await canSignIn("owner", fresh ?? "")).toBe(true);
    expect(await canSignIn("owner", old)).toBe(false);
  });

  it("approves and rejects accounts waiting for approval, one or all", async () => {
    for (const name of ["ann", "ben", "cat", "dan"]) await create(name);
    await withStorage((storage) =>
      storage.db
        .updateTable("users")
        .set({ approved: 0 as never })
        .where("email", "in", ["ann@example.com", "ben@example.com", "cat@example.com"])
        .execute(),
    );
    expect(await runCli(["accounts", "approve", "ann"], io(env))).toBe(0);
    expect(await runCli(["accounts", "reject", "ben"], io(env))).toBe(0);
    const notPending = io(env);
    expect(await runCli(["accounts", "approve", "dan"], notPending)).toBe(1);
    expect(notPending.stderr).toHaveLength(1);
    const all = io(env);
    expect(await runCli(["accounts", "approve", "--all"], all)).toBe(0);
    expect(all.stdout).toEqual(["OK, approved 1"]);
    const rows = await withStorage((storage) =>
      storage.db
        .selectFrom("accounts")
        .innerJoin("users", "users.account_id", "accounts.id")
        .select(["username", "approved"])
        .orderBy("username")
        .execute(),
    );
    expect(rows.map((row) => [row.username, Boolean(row.approved)])).toEqual([
      ["ann", true],
      ["cat", true],
      ["dan", true],
    ]);
  });

  it("deletes an account, and refuses to delete the last Owner", async () => {
    await create("owner", "--role=Owner");
    await create("eve");
    expect(await runCli(["accounts", "delete", "eve"], io(env))).toBe(0);
    const gone = io(env);
    expect(await runCli(["accounts", "modify", "eve", "--confirm"], gone)).toBe(1);
    const last = io(env);
    expect(await runCli(["accounts", "delete", "owner"], last)).toBe(1);
    expect(last.stderr).toHaveLength(1);
  });

  it("lists jobs and runs a failed one again", async () => {
    const kith = await assembleKith(loadConfig(env));
    let id: string;
    try {
      id = (await kith.queue.enqueue("probe", { n: 1 })).id;
    } finally {
      await kith.close();
    }
    const list = io(env);
    expect(await runCli(["jobs", "list", "--queue=probe"], list)).toBe(0);
    expect(list.stdout).toEqual([expect.stringMatching(new RegExp(`^${id}\\tprobe\\tsubmitted\\t0/\\d+\\t`))]);
    const notFailed = io(env);
    expect(await runCli(["jobs", "retry", id], notFailed)).toBe(1);
    expect(await runCli(["jobs", "list", "--status=sometimes"], io(env))).toBe(64);
    const all = io(env);
    expect(await runCli(["jobs", "retry", "--queue=probe"], all)).toBe(0);
    expect(all.stdout).toEqual(["OK, 0 to run again"]);
  });

  it("prints a command's usage with kith help <command>, and its own --help", async () => {
    const run = io(env);
    expect(await runCli(["help", "accounts"], run)).toBe(0);
    expect(run.stdout[0]).toMatch(
      /^Create, change, approve, reject and delete local accounts\n\nUsage:\n {2}kith accounts create USERNAME/,
    );
    expect(run.stdout[0]).toContain(
      "kith accounts modify USERNAME [--role=ROLE] [--approve] [--disable|--enable] [--confirm] [--reset-password]",
    );
    const flag = io(env);
    expect(await runCli(["jobs", "--help"], flag)).toBe(0);
    expect(flag.stdout[0]).toContain("kith jobs retry JOB_ID | --queue=QUEUE");
    const unknown = io(env);
    expect(await runCli(["help", "frobnicate"], unknown)).toBe(64);
    const list = io(env);
    expect(await runCli(["help"], list)).toBe(0);
    for (const name of ["serve", "migrate", "accounts", "settings", "emoji", "jobs", "version"])
      expect(list.stdout[0]).toMatch(new RegExp(`\\n {2}${name} +\\S`));
  });
});
