/**
 * Vitest global setup: starts a throwaway PostgreSQL and Redis for the run,
 * when their binaries are installed, and hands their URLs to the tests through
 * `provide` (read them with the helpers in `tests/support/real-servers.ts`).
 *
 * - PostgreSQL: `initdb` and `pg_ctl` from PATH or /usr/lib/postgresql/<n>/bin
 *   (Debian keeps them off PATH). A cluster is made in a temporary directory
 *   (on /dev/shm when it has room) and started on a free port of 127.0.0.1, with its socket in that directory,
 *   fsync off and a `postgres` superuser that needs no password. PostgreSQL
 *   refuses to run as root, so under root the binaries run as the `postgres`
 *   system user (else `nobody`) through `runuser`.
 * - Redis: `redis-server` from PATH, /usr/bin or /usr/local/bin, on a free
 *   port, without persistence.
 *
 * A missing binary skips the suites that need it, with a notice on stderr;
 * when CI=true it fails the run instead, so CI cannot pass without them. A
 * server that is installed but fails to start always fails the run.
 * The projects that need the servers each name this setup, and vitest runs it
 * once per project: the first call starts the servers, the others share them,
 * and the last teardown stops them.
 *
 * KITH_TEST_POSTGRES_URL / KITH_TEST_REDIS_URL point the tests at servers
 * already running (a CI service, say) instead; the tests then create and drop
 * databases on it, so it should be one for tests.
 */
import { randomBytes } from "node:crypto";
import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from "node:child_process";
import { accessSync, chownSync, closeSync, constants, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statfsSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import type {} from "../support/provided-context.js";

const HOST = "127.0.0.1";
const START_ATTEMPTS = 3;
const READY_TIMEOUT_MS = 30_000;

interface SystemUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

interface RunningServer {
  readonly url: string;
  /** The same server over its Unix socket, where it has one. */
  readonly socketUrl?: string;
  stop(): Promise<void>;
  /** Synchronous last resort when the process exits without teardown. */
  stopNow(): void;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function pathDirs(): string[] {
  return (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "");
}

/** The first directory that holds every one of `names` as an executable. */
function findBinDir(names: readonly string[], extraDirs: readonly string[]): string | null {
  for (const dir of [...pathDirs(), ...extraDirs]) {
    if (names.every((name) => isExecutable(join(dir, name)))) return dir;
  }
  return null;
}

/** /usr/lib/postgresql/<version>/bin, newest version first. */
function debianPostgresBinDirs(): string[] {
  try {
    return readdirSync("/usr/lib/postgresql")
      .filter((version) => /^\d+(\.\d+)?$/.test(version))
      .sort((a, b) => Number(b) - Number(a))
      .map((version) => join("/usr/lib/postgresql", version, "bin"));
  } catch {
    return [];
  }
}

function lookupUser(name: string): SystemUser | null {
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const [user, , uid, gid] = line.split(":");
      if (user === name && uid !== undefined && gid !== undefined) return { name, uid: Number(uid), gid: Number(gid) };
    }
  } catch {
    // No /etc/passwd: not a system where we run as root anyway.
  }
  return null;
}

/** PostgreSQL will not run as root; under root, the unprivileged user to run it as. */
function postgresRunAs(): SystemUser | null {
  if (process.getuid?.() !== 0) return null;
  const user = lookupUser("postgres") ?? lookupUser("nobody");
  if (!user) throw new Error("Running as root, and neither a `postgres` nor a `nobody` user exists to run PostgreSQL as");
  return user;
}

/** The environment without PG* variables, so a developer's PGDATA or PGPORT cannot redirect the harness. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("PG")));
}

/** The command line that runs `command` as `user`: `runuser` when present, else spawn's own uid/gid switch. */
function asUser(
  command: string,
  args: readonly string[],
  user: SystemUser | null,
): { command: string; args: string[]; options: SpawnOptions } {
  if (!user) return { command, args: [...args], options: {} };
  const runuser = findBinDir(["runuser"], ["/usr/sbin", "/sbin"]);
  if (runuser) return { command: join(runuser, "runuser"), args: ["-u", user.name, "--", command, ...args], options: {} };
  return { command, args: [...args], options: { uid: user.uid, gid: user.gid } };
}

/** Runs a short command to completion; rejects with its output when it fails. */
function run(command: string, args: readonly string[], user: SystemUser | null, cwd: string): Promise<void> {
  const line = asUser(command, args, user);
  return new Promise((resolve, reject) => {
    const child = spawn(line.command, line.args, { ...line.options, cwd, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8_000);
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    let settled = false;
    const settle = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${[command, ...args].join(" ")} failed (${signal ?? `exit ${code}`}):\n${output.trim()}`));
    };
    child.on("error", (error) => {
      settled = true;
      clearTimeout(timer);
      reject(error);
    });
    // "close" waits for the output pipes; should a daemon the command starts keep them open, "exit" settles it shortly after.
    child.on("close", settle);
    child.on("exit", (code, signal) => setTimeout(() => settle(code, signal), 500).unref());
  });
}

/**
 * Where the cluster lives: a memory file system when there is a roomy one, as
 * CREATE DATABASE (once per contract case) is about ten times faster there
 * than on disk; else the temporary directory. Docker's default 64 MB /dev/shm
 * is too small, hence the check.
 */
function clusterBaseDir(): string {
  try {
    const stats = statfsSync("/dev/shm");
    accessSync("/dev/shm", constants.W_OK);
    if (stats.bavail * stats.bsize >= 1024 ** 3) return "/dev/shm";
  } catch {
    // No /dev/shm (not Linux): the temporary directory it is.
  }
  return tmpdir();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error("No free port"))));
    });
  });
}

function tail(path: string): string {
  try {
    return readFileSync(path, "utf8").trim().split("\n").slice(-20).join("\n");
  } catch {
    return "(no log)";
  }
}

/** Resolves once a TCP connection to `port` opens and, given `probe`, the server answers it with `expect`. */
async function waitForPort(port: number, isDead: () => boolean, probe?: { send: string; expect: string }): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: HOST, port });
      let answer = "";
      const done = (result: boolean) => {
        socket.destroy();
        resolve(result);
      };
      socket.setTimeout(1_000, () => done(false));
      socket.on("error", () => done(false));
      socket.on("connect", () => (probe ? socket.write(probe.send) : done(true)));
      socket.on("data", (chunk) => {
        answer += chunk.toString();
        if (probe && answer.includes(probe.expect)) done(true);
      });
    });
    if (ok) return;
    if (isDead()) throw new Error("the server exited");
    if (Date.now() > deadline) throw new Error(`not accepting connections on port ${port} after ${READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startPostgres(binDir: string): Promise<RunningServer> {
  const user = postgresRunAs();
  const dir = mkdtempSync(join(clusterBaseDir(), "kith-pg-"));
  try {
    // The cluster's owner must be able to write here: the data directory, socket and log live in it.
    if (user) chownSync(dir, user.uid, user.gid);
    const data = join(dir, "data");
    const log = join(dir, "postgres.log");
    const pgCtl = join(binDir, "pg_ctl");
    // --no-sync: nothing here has to survive a crash, and syncing is most of initdb's time.
    await run(join(binDir, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"], user, dir);
    const stopArgs = ["-D", data, "-m", "immediate", "-w", "-s", "stop"];
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const settings = [
        `-p ${port}`,
        `-k '${dir}'`,
        `-c listen_addresses=${HOST}`,
        "-c fsync=off",
        "-c synchronous_commit=off",
        "-c full_page_writes=off",
        // Test files run in parallel, each storage with a pool of up to 10.
        "-c max_connections=300",
      ].join(" ");
      try {
        // -w: pg_ctl returns once the server reports itself ready to accept connections.
        await run(pgCtl, ["-D", data, "-l", log, "-w", "-t", "30", "-s", "-o", settings, "start"], user, dir);
        await waitForPort(port, () => false);
      } catch (error) {
        await run(pgCtl, stopArgs, user, dir).catch(() => {});
        // Another process may have taken the port between our probe and the server's bind: try another.
        if (attempt < START_ATTEMPTS) continue;
        throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- postgres.log ---\n${tail(log)}`);
      }
      const stopLine = asUser(pgCtl, stopArgs, user);
      const url = `postgres://postgres@${HOST}:${port}/postgres`;
      // pg reads a `host` parameter that names a directory as the directory of the server's socket (`-k` above).
      const socketUrl = new URL(url);
      socketUrl.searchParams.set("host", dir);
      return {
        url,
        socketUrl: socketUrl.toString(),
        async stop() {
          await run(pgCtl, stopArgs, user, dir).catch((error) => process.stderr.write(`Stopping the test PostgreSQL: ${String(error)}\n`));
          rmSync(dir, { recursive: true, force: true });
        },
        stopNow() {
          spawnSync(stopLine.command, stopLine.args, { ...stopLine.options, cwd: dir, env: cleanEnv(), stdio: "ignore", timeout: 10_000 });
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Could not start the test PostgreSQL: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

async function startRedis(binary: string): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), "kith-redis-"));
  const log = join(dir, "redis.log");
  try {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      // Output goes to a file, not a pipe, so the long-lived child holds nothing of ours open.
      const out = openSync(log, "a");
      let child: ChildProcess;
      try {
        child = spawn(
          binary,
          ["--port", String(port), "--bind", HOST, "--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no"],
          { cwd: dir, stdio: ["ignore", out, out] },
        );
      } finally {
        closeSync(out);
      }
      child.unref();
      let exited = false;
      child.on("exit", () => {
        exited = true;
      });
      const spawnError = new Promise<never>((_, reject) => child.on("error", reject));
      // Only the race below listens; a later error (say, a failed kill) must not surface as an unhandled rejection.
      spawnError.catch(() => {});
      try {
        await Promise.race([waitForPort(port, () => exited, { send: "PING\r\n", expect: "+PONG" }), spawnError]);
      } catch (error) {
        child.kill("SIGKILL");
        if (attempt < START_ATTEMPTS) continue;
        throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- redis.log ---\n${tail(log)}`);
      }
      return {
        url: `redis://${HOST}:${port}`,
        async stop() {
          if (!exited) {
            const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
            child.kill("SIGTERM");
            const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
            await gone;
            clearTimeout(timer);
          }
          rmSync(dir, { recursive: true, force: true });
        },
        stopNow() {
          if (!exited) child.kill("SIGKILL");
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Could not start the test Redis: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** DROP DATABASE IF EXISTS, ending any session still on it. */
async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

interface Backend {
  readonly label: string;
  readonly envUrl: string | undefined;
  /** Finds the binaries; null when not installed. */
  find(): string | null;
  start(found: string): Promise<RunningServer>;
  readonly lookedIn: string;
}

/** The URL to provide, and the server to stop at teardown (none when missing or external). */
async function bringUp(backend: Backend): Promise<{ url: string | null; server: RunningServer | null }> {
  if (backend.envUrl) return { url: backend.envUrl, server: null };
  const found = backend.find();
  if (!found) {
    const message = `${backend.label} not installed: ${backend.label} suites are skipped (looked for ${backend.lookedIn})`;
    if (process.env.CI === "true") throw new Error(`${message.split(":")[0]}, and CI=true requires it`);
    process.stderr.write(`\n\u26a0  ${message}\n\n`);
    return { url: null, server: null };
  }
  const server = await backend.start(found);
  return { url: server.url, server };
}

/** What the projects of a run are given, and how to stop it all. */
interface TestServers {
  readonly provided: {
    readonly postgresUrl: string | null;
    readonly postgresSocketUrl: string | null;
    readonly postgresTemplate: string;
    readonly redisUrl: string | null;
  };
  stop(): Promise<void>;
}

async function startTestServers(): Promise<TestServers> {
  const backends: [Backend, Backend] = [
    {
      label: "PostgreSQL",
      envUrl: process.env.KITH_TEST_POSTGRES_URL,
      find: () => findBinDir(["initdb", "pg_ctl"], debianPostgresBinDirs()),
      start: startPostgres,
      lookedIn: "initdb and pg_ctl on PATH and in /usr/lib/postgresql/*/bin",
    },
    {
      label: "Redis",
      envUrl: process.env.KITH_TEST_REDIS_URL,
      find: () => {
        const dir = findBinDir(["redis-server"], ["/usr/bin", "/usr/local/bin"]);
        return dir ? join(dir, "redis-server") : null;
      },
      start: startRedis,
      lookedIn: "redis-server on PATH, in /usr/bin and /usr/local/bin",
    },
  ];
  // Both start at once; whichever did start is stopped again if the other fails.
  const [postgres, redis] = await Promise.allSettled([bringUp(backends[0]), bringUp(backends[1])]);
  const servers = [postgres, redis].flatMap((result) =>
    result.status === "fulfilled" && result.value.server ? [result.value.server] : [],
  );
  const stopNow = () => {
    for (const server of servers) server.stopNow();
  };
  if (postgres.status === "rejected" || redis.status === "rejected") {
    stopNow();
    const errors = [postgres, redis].flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
    throw errors.length === 1 ? errors[0] : new AggregateError(errors, "Could not start the test servers");
  }
  // New each run, so no run copies a template migrated by older code (see tests/support/migrated-postgres.ts).
  const template = `kith_template_${process.pid}_${randomBytes(4).toString("hex")}`;
  // Should vitest exit without running teardown (a crash, process.exit), the servers still stop.
  process.once("exit", stopNow);
  return {
    provided: {
      postgresUrl: postgres.value.url,
      postgresSocketUrl: postgres.value.server?.socketUrl ?? null,
      postgresTemplate: template,
      redisUrl: redis.value.url,
    },
    async stop() {
      process.off("exit", stopNow);
      // A server of our own goes with its template; on one that outlives the run, the template is dropped.
      if (postgres.value.url && !postgres.value.server) await dropDatabase(postgres.value.url, template);
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}

/** The run's servers, shared by the projects that name this setup (each runs it): started by the first, stopped after the last. */
interface SharedServers {
  readonly started: Promise<TestServers>;
  users: number;
}

const SHARED = Symbol.for("kith.tests.realServers");

export default async function setup(project: Pick<TestProject, "provide">): Promise<() => Promise<void>> {
  const holder = globalThis as { [SHARED]?: SharedServers };
  holder[SHARED] ??= { started: startTestServers(), users: 0 };
  const shared = holder[SHARED];
  shared.users++;
  let servers: TestServers;
  try {
    servers = await shared.started;
  } catch (error) {
    if (--shared.users === 0) delete holder[SHARED];
    throw error;
  }
  for (const [key, value] of Object.entries(servers.provided)) project.provide(key as keyof TestServers["provided"], value);
  return async () => {
    if (--shared.users > 0) return;
    delete holder[SHARED];
    await servers.stop();
  };
}
