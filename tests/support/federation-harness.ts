/**
 * Several Kith servers as separate processes on loopback, speaking HTTPS
 * with certificates of a throwaway test CA made at test time, each trusting
 * that CA (NODE_EXTRA_CA_CERTS) and allowed to reach private addresses, so
 * they federate with each other as real servers do. Servers run from the
 * workspace's sources (no build needed), or from the built command when
 * KITH_TEST_SERVER=dist: the test command sets it after its build, since a
 * built server starts in a third of the time and is what users run.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Storage } from "@kith/core";
import { createPostgresStorage } from "@kith/storage-postgres";
import { createSqliteStorage } from "@kith/storage-sqlite";
import type { EngineName } from "./engines.js";
import { freshMigratedPostgresDatabase } from "./migrated-postgres.js";

const ROOT = resolve(import.meta.dirname, "../..");
const LOADER = join(ROOT, "tests/support/source-loader.mjs");
/** Node flags that run the workspace's TypeScript sources directly. */
export const NODE_FLAGS = ["--conditions=source", "--experimental-transform-types", "--no-warnings", "--import", LOADER];
/** How to start the server command: from its build, or from sources through the loader. */
const SERVER: readonly string[] =
  process.env.KITH_TEST_SERVER === "dist"
    ? ["--no-warnings", join(ROOT, "apps/server/dist/cli.js")]
    : [...NODE_FLAGS, join(ROOT, "apps/server/src/main.ts")];

export interface TestCa {
  readonly dir: string;
  readonly caFile: string;
  readonly ca: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** A CA and one server certificate for `localhost` and 127.0.0.1, made with openssl in a temporary directory. */
export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "kith-ca-"));
  const file = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  openssl([
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=Kith Test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  ]);
  openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr"]);
  writeFileSync(
    file("server.ext"),
    "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n",
  );
  openssl([
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    "server.ext",
    "-out",
    "server.pem",
  ]);
  return {
    dir,
    caFile: file("ca.pem"),
    ca: readFileSync(file("ca.pem"), "utf8"),
    certFile: file("server.pem"),
    keyFile: file("server.key"),
  };
}

/** A port free on 127.0.0.1 right now (the server takes it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

export interface JsonResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
}

export interface TestInstance {
  readonly name: string;
  /** The storage engine the instance runs on. */
  readonly engine: EngineName;
  /** e.g. https://localhost:41234 */
  readonly origin: string;
  /** e.g. localhost:41234 */
  readonly host: string;
  readonly dataDir: string;
  /** The environment the server runs with (for helper processes on the same data). */
  readonly env: Readonly<Record<string, string>>;
  output(): string;
  /** GET or POST over HTTPS, trusting the test CA; the body parsed as JSON when it is JSON. */
  request(method: string, path: string, options?: { headers?: Record<string, string>; body?: string }): Promise<JsonResponse>;
  /** A storage on the instance's database, to read or write behind the server's back. Close it after use. */
  openStorage(): Storage;
  /** Runs a script of tests/support in a separate process on this instance's data and config; resolves with its stdout. */
  runScript(script: string, args: readonly string[]): Promise<string>;
  /** Creates a confirmed local account from the command line; resolves with its password. */
  createAccount(username: string): Promise<string>;
  /** Ends the server's processes with `signal` (SIGKILL by default: a crash), keeping its data. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the server's processes again, on the same data and port, once they have stopped. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** How an instance runs: one process doing all, or a web and a worker process (`kith serve --role=...`). */
export type InstanceRoles = readonly ("all" | "web" | "worker")[];

/** One `kith serve` process of an instance. */
interface ServerProcess {
  readonly child: ChildProcess;
  readonly exit: Promise<void>;
  exited(): boolean;
}

export interface Federation {
  readonly ca: TestCa;
  readonly instances: readonly TestInstance[];
  stop(): Promise<void>;
}

function runNode(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { env, cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (code) => done({ code, stdout, stderr }));
  });
}

async function waitForOutput(read: () => string, exited: () => boolean, pattern: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(read())) {
    if (exited()) throw new Error(`The server exited before it listened:\n${read()}`);
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${pattern}; output so far:\n${read()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function httpsJson(
  origin: string,
  ca: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string },
): Promise<JsonResponse> {
  return new Promise((done, fail) => {
    const url = new URL(path, origin);
    const req = httpsRequest(url, { method, headers: options.headers ?? {}, ca }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on("end", () => {
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          // Not JSON: the text itself.
        }
        done({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on("error", fail);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Starts one `kith serve` process in `role` and waits until it says it is ready; its output goes to `log`. */
async function spawnServer(env: Record<string, string>, role: InstanceRoles[number], log: (text: string) => void): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [...SERVER, "serve", `--role=${role}`], {
    env,
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let exited = false;
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    log(chunk.toString());
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const exit = new Promise<void>((done) =>
    child.on("exit", () => {
      exited = true;
      done();
    }),
  );
  await waitForOutput(
    () => output,
    () => exited,
    role === "worker" ? /workers running/ : /listening on/,
    60_000,
  );
  return { child, exit, exited: () => exited };
}

/** Where an instance keeps its data: a SQLite file in its data directory, or a PostgreSQL database of its own. */
interface InstanceDatabase {
  /** What tells the server where it is. */
  readonly env: Record<string, string>;
  open(): Storage;
  drop(): Promise<void>;
}

async function instanceDatabase(engine: EngineName, dataDir: string): Promise<InstanceDatabase> {
  if (engine === "sqlite") {
    // The server's default: kith.sqlite in its data directory, which goes with the directory.
    return { env: {}, open: () => createSqliteStorage({ filename: join(dataDir, "kith.sqlite") }), drop: async () => {} };
  }
  const database = await freshMigratedPostgresDatabase();
  return {
    env: { KITH_DATABASE_URL: database.url },
    open: () => createPostgresStorage({ connectionString: database.url, max: 2 }),
    drop: () => database.drop(),
  };
}

/**
 * Starts an instance of `roles` processes (one doing all by default) with its
 * own data, port and test CA, on a fresh database of `engine`.
 */
export async function startInstance(
  name: string,
  ca: TestCa,
  extraEnv: Record<string, string>,
  roles: InstanceRoles = ["all"],
  engine: EngineName = "sqlite",
): Promise<TestInstance> {
  const port = await freePort();
  const host = `localhost:${port}`;
  const origin = `https://${host}`;
  const dataDir = mkdtempSync(join(tmpdir(), `kith-${name}-`));
  let database: InstanceDatabase;
  try {
    database = await instanceDatabase(engine, dataDir);
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    NODE_EXTRA_CA_CERTS: ca.caFile,
    KITH_HOST: "127.0.0.1",
    KITH_PORT: String(port),
    KITH_ORIGIN: origin,
    KITH_DATA_DIR: dataDir,
    KITH_TLS_CERT: ca.certFile,
    KITH_TLS_KEY: ca.keyFile,
    KITH_ALLOW_PRIVATE_ADDRESS: "true",
    KITH_LOG_LEVEL: "info",
    ...database.env,
    ...extraEnv,
  };
  let output = "";
  const log = (text: string) => {
    output += text;
  };
  const startAll = () => Promise.all(roles.map((role) => spawnServer(env, role, log)));
  let processes: ServerProcess[];
  try {
    processes = await startAll();
  } catch (error) {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const end = async (signal: NodeJS.Signals, graceMs: number) => {
    await Promise.all(
      processes.map(async (server) => {
        if (server.exited()) return;
        server.child.kill(signal);
        const timer = setTimeout(() => server.child.kill("SIGKILL"), graceMs);
        await server.exit;
        clearTimeout(timer);
      }),
    );
  };
  return {
    name,
    engine,
    origin,
    host,
    dataDir,
    env,
    output: () => output,
    openStorage: () => database.open(),
    request: (method, path, options = {}) => httpsJson(origin, ca.ca, method, path, options),
    async runScript(script, args) {
      const result = await runNode([...NODE_FLAGS, join(ROOT, "tests/support", script), ...args], env);
      if (result.code !== 0) throw new Error(`${script} failed (${result.code}):\n${result.stderr}`);
      return result.stdout;
    },
    async createAccount(username) {
      const result = await runNode([...SERVER, "accounts", "create", username, `--email=${username}@example.com`, "--confirmed"], env);
      if (result.code !== 0) throw new Error(`accounts create failed (${result.code}):\n${result.stderr}`);
      const password = /New password: (\S+)/.exec(result.stdout)?.[1];
      if (!password) throw new Error(`No password printed:\n${result.stdout}`);
      return password;
    },
    kill: (signal = "SIGKILL") => end(signal, 10_000),
    async restart() {
      if (processes.some((server) => !server.exited())) throw new Error(`${name} is still running; kill it first`);
      processes = await startAll();
    },
    async stop() {
      await end("SIGTERM", 10_000);
      // Dropped once the processes that hold connections to it have ended.
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts `count` servers (named a, b, c...) sharing one test CA, each on a database of `engine`. Stop them with `stop()` in afterAll. */
export async function startFederation(
  count = 2,
  extraEnv: Record<string, string> = {},
  engine: EngineName = "sqlite",
): Promise<Federation> {
  const ca = makeTestCa();
  // Started side by side; if one fails, the others are stopped before the error is passed on.
  const started = await Promise.allSettled(
    Array.from({ length: count }, (_, index) => startInstance(String.fromCharCode(97 + index), ca, extraEnv, ["all"], engine)),
  );
  const instances = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failure = started.find((result) => result.status === "rejected");
  if (failure) {
    await Promise.all(instances.map((instance) => instance.stop()));
    rmSync(ca.dir, { recursive: true, force: true });
    throw failure.reason;
  }
  return {
    ca,
    instances,
    async stop() {
      await Promise.all(instances.map((instance) => instance.stop()));
      rmSync(ca.dir, { recursive: true, force: true });
    },
  };
}
