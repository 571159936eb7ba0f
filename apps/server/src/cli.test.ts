import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** An 8x8 blue PNG. */
const BLUE_SQUARE_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEUlEQVQImWMwTjuDFTEMLQkAuYZZQQ0kCIcAAAAASUVORK5CYII=";

describe("kith command line", () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "kith-cli-"));
    env = { KITH_DATA_DIR: dataDir, KITH_LOG_LEVEL: "error" };
    // Most commands refuse to make a database: each test starts from a migrated one.
    expect(await runCli(["migrate"], io(env))).toBe(0);
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it("creates an account and prints its generated password last, as tootctl does", async () => {
    const run = io(env);
    expect(await runCli(["accounts", "create", "alice", "--email=alice@example.com", "--confirmed", "--role=Owner"], run)).toBe(0);
    const last = run.stdout.at(-1) ?? "";
    expect(last).toMatch(/^New password: [A-Za-z0-9_-]{20,}$/);
    const storage = createSqliteStorage({ filename: join(dataDir, "kith.sqlite") });
    const row = await storage.db
      .selectFrom("accounts")
      .innerJoin("users", "users.account_id", "accounts.id")
      .innerJoin("actor_roles", "actor_roles.actor_id", "accounts.id")
      .innerJoin("roles", "roles.id", "actor_roles.role_id")
      .select(["accounts.username", "users.email", "users.email_confirmed_at", "roles.name"])
      .executeTakeFirstOrThrow();
    await storage.close();
    expect(row).toMatchObject({ username: "alice", email: "alice@example.com", name: "Owner" });
    expect(row.email_confirmed_at).not.toBeNull();
  });

  it("refuses a taken username and an unknown role with one line on stderr", async () => {
    await runCli(["accounts", "create", "bob", "--email=bob@example.com"], io(env));
    const taken = io(env);
    expect(await runCli(["accounts", "create", "Bob", "--email=other@example.com"], taken)).toBe(1);
    expect(taken.stderr).toEqual(["kith: That username is already taken"]);
    const role = io(env);
    expect(await runCli(["accounts", "create", "carol", "--email=carol@example.com", "--role=Wizard"], role)).toBe(1);
    expect(role.stderr[0]).toMatch(/No global role named Wizard/);
  });

  it("takes the addresses tootctl takes for an account it creates, such as admin@localhost, and refuses what is no address", async () => {
    const local = io(env);
    expect(await runCli(["accounts", "create", "admin", "--email=admin@localhost", "--confirmed", "--role=Owner"], local)).toBe(0);
    const storage = createSqliteStorage({ filename: join(dataDir, "kith.sqlite") });
    const row = await storage.db.selectFrom("users").select("email").executeTakeFirstOrThrow();
    await storage.close();
    expect(row.email).toBe("admin@localhost");
    for (const email of ["no-at-sign", "two@@example.com", "a b@example.com", "@example.com", "someone@"]) {
      const refused = io(env);
      expect(await runCli(["accounts", "create", "other", `--email=${email}`], refused), email).toBe(1);
    }
  });

  it("modifies role and state of an account", async () => {
    await runCli(["accounts", "create", "dave", "--email=dave@example.com"], io(env));
    const run = io(env);
    expect(await runCli(["accounts", "modify", "dave", "--role=Moderator", "--disable"], run)).toBe(0);
    expect(run.stdout).toEqual(["OK"]);
    const storage = createSqliteStorage({ filename: join(dataDir, "kith.sqlite") });
    const user = await storage.db.selectFrom("users").select("disabled_at").executeTakeFirstOrThrow();
    const role = await storage.db
      .selectFrom("roles")
      .innerJoin("actor_roles", "actor_roles.role_id", "roles.id")
      .select("name")
      .executeTakeFirstOrThrow();
    await storage.close();
    expect(user.disabled_at).not.toBeNull();
    expect(role.name).toBe("Moderator");
    expect(await runCli(["accounts", "modify", "dave", "--enable"], io(env))).toBe(0);
    expect(await runCli(["accounts", "modify", "nobody", "--enable"], io(env))).toBe(1);
  });

  it("sets the registrations mode with tootctl's words", async () => {
    expect(await runCli(["settings", "registrations", "approval"], io(env))).toBe(0);
    expect(await runCli(["settings", "registrations", "close"], io(env))).toBe(0);
    const storage = createSqliteStorage({ filename: join(dataDir, "kith.sqlite") });
    const row = await storage.db
      .selectFrom("instance_settings")
      .select("value")
      .where("key", "=", "registrationsMode")
      .executeTakeFirstOrThrow();
    await storage.close();
    expect(JSON.parse(row.value)).toBe("closed");
    const bad = io(env);
    expect(await runCli(["settings", "registrations", "sometimes"], bad)).toBe(64);
    expect(bad.stderr[0]).toMatch(/open, approval or close/);
  });

  it("takes sign-ups for approval on a new server, until settings registrations opens them", async () => {
    const registrations = async () => {
      const kith = await assembleKith(loadConfig(env));
      try {
        const response = await kith.fetch(new Request(new URL("/api/v2/instance", kith.config.origin)), { clientIp: "127.0.0.1" });
        return ((await response.json()) as { registrations: { enabled: boolean; approval_required: boolean } }).registrations;
      } finally {
        await kith.close();
      }
    };
    expect(await registrations()).toMatchObject({ enabled: true, approval_required: true });
    expect(await runCli(["settings", "registrations", "open"], io(env))).toBe(0);
    expect(await registrations()).toMatchObject({ enabled: true, approval_required: false });
  });

  it("prints its version, which the server announces too", async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "../package.json"), "utf8")) as { version: string };
    for (const words of [["version"], ["--version"]]) {
      const run = io(env);
      expect(await runCli(words, run)).toBe(0);
      expect(run.stdout).toEqual([version]);
    }
    const kith = await assembleKith(loadConfig(env));
    try {
      const response = await kith.fetch(new Request(new URL("/nodeinfo/2.1", kith.config.origin)), { clientIp: "127.0.0.1" });
      expect(((await response.json()) as { software: { version: string } }).software.version).toBe(version);
    } finally {
      await kith.close();
    }
  });

  it("migrates, then reports the database up to date", async () => {
    env = { ...env, KITH_DATA_DIR: join(dataDir, "fresh") };
    const first = io(env);
    expect(await runCli(["migrate"], first)).toBe(0);
    expect(first.stdout[0]).toMatch(/^Applied: 0001_foundation/);
    const second = io(env);
    await runCli(["migrate"], second);
    expect(second.stdout).toEqual(["Up to date"]);
  });

  it("stops on a bad configuration value with one line naming the variable", async () => {
    const run = io({ ...env, KITH_PORT: "http" });
    expect(await runCli(["migrate"], run)).toBe(78);
    expect(run.stderr).toEqual(['kith: invalid configuration: KITH_PORT must be a whole number (got "http")']);
  });

  it("imports an archive's PNG and GIF files as custom emojis, as tootctl emoji import does", async () => {
    const pack = join(dataDir, "pack");
    mkdirSync(pack);
    writeFileSync(join(pack, "blobcat.png"), Buffer.from(BLUE_SQUARE_PNG, "base64"));
    writeFileSync(join(pack, "broken.gif"), "GIF89a but not really");
    const archive = join(dataDir, "pack.tar.gz");
    execFileSync("tar", ["-czf", archive, "-C", dataDir, "pack"]);
    const run = io(env);
    expect(await runCli(["emoji", "import", archive, "--prefix=k_", "--category=Kith"], run)).toBe(0);
    expect(run.stdout.at(-1)).toBe("Imported 1, skipped 0, failed to import 1");
    expect(run.stderr).toEqual([expect.stringMatching(/^pack\/broken\.gif: /)]);
    const again = io(env);
    expect(await runCli(["emoji", "import", archive, "--prefix=k_"], again)).toBe(0);
    expect(again.stdout.at(-1)).toBe("Imported 0, skipped 1, failed to import 1");
    const storage = createSqliteStorage({ filename: join(dataDir, "kith.sqlite") });
    const rows = await storage.db.selectFrom("custom_emojis").select(["shortcode", "category", "image_content_type"]).execute();
    await storage.close();
    expect(rows).toEqual([{ shortcode: "k_blobcat", category: "Kith", image_content_type: "image/png" }]);

    const notArchive = io(env);
    writeFileSync(join(dataDir, "plain.txt"), "hello");
    expect(await runCli(["emoji", "import", join(dataDir, "plain.txt")], notArchive)).toBe(65);
    expect(notArchive.stderr[0]).toMatch(/^kith: .*plain\.txt: Not a gzip archive/);
    const missing = io(env);
    expect(await runCli(["emoji", "import", join(dataDir, "nowhere.tar.gz")], missing)).toBe(66);
    const usage = io(env);
    expect(await runCli(["emoji", "import"], usage)).toBe(64);
    expect(await runCli(["emoji", "export", archive], io(env))).toBe(64);
  });

  it("reads a relative data directory from the project's root, whatever the working directory", async () => {
    const root = join(dataDir, "checkout");
    const elsewhere = join(dataDir, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    const relative = { KITH_LOG_LEVEL: "error" };
    expect(await runCli(["migrate"], { ...io(relative), projectRoot: root, cwd: elsewhere })).toBe(0);
    expect(existsSync(join(root, "data", "kith.sqlite"))).toBe(true);
    expect(existsSync(join(elsewhere, "data"))).toBe(false);
    const run = { ...io(relative), projectRoot: root, cwd: elsewhere };
    expect(await runCli(["settings", "registrations", "open"], run)).toBe(0);
  });

  it("refuses, in one line, to make a new database for a command other than serve, migrate and accounts create", async () => {
    const elsewhere = join(dataDir, "elsewhere");
    const run = { ...io({ KITH_LOG_LEVEL: "error" }), projectRoot: null, cwd: elsewhere };
    expect(await runCli(["accounts", "modify", "alice", "--confirm"], run)).toBe(66);
    expect(run.stderr).toEqual([
      `kith: no database at ${join(elsewhere, "data", "kith.sqlite")}: set KITH_DATA_DIR to the server's data directory, or run 'kith migrate' to make a new one`,
    ]);
    expect(existsSync(elsewhere)).toBe(false);
  });

  it("answers unknown commands and options with usage", async () => {
    const unknown = io(env);
    expect(await runCli(["frobnicate"], unknown)).toBe(64);
    expect(unknown.stderr[0]).toBe("kith: unknown command frobnicate");
    const option = io(env);
    expect(await runCli(["accounts", "create", "erin", "--email=e@example.com", "--colour=red"], option)).toBe(64);
    expect(option.stderr[0]).toMatch(/colour/);
    const missing = io(env);
    expect(await runCli(["accounts", "create", "erin"], missing)).toBe(64);
    expect(missing.stderr[0]).toMatch(/--email/);
  });
});
