/**
 * Starts the fake relay (fake-relay-server.ts) as a process of its own on
 * loopback, serving https with the federation's test CA, and reads its
 * state through its control endpoints.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { request as httpsRequest } from "node:https";
import { join, resolve } from "node:path";
import { NODE_FLAGS, type TestCa, freePort } from "./federation-harness.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** A POST the relay's inbox received. */
export interface RelayReceived {
  readonly type: string;
  readonly id: string | null;
  readonly actor: string | null;
  readonly object: string | null;
  /** 202, or 401 for a signature it did not verify (an RFC 9421 one, which it does not read). */
  readonly status: number;
  readonly signer: string | null;
  readonly ldSigned: boolean;
  readonly body: Record<string, unknown>;
}

export interface RelayState {
  readonly received: readonly RelayReceived[];
  readonly deliveries: readonly { readonly inbox: string; readonly type: string; readonly status: number }[];
  /** Follows waiting for an answer (mode `hold`). */
  readonly held: number;
  readonly subscribers: readonly { readonly actor: string; readonly inbox: string; readonly kind: "mastodon" | "litepub" }[];
}

export interface FakeRelay {
  /** https://localhost:<port> */
  readonly origin: string;
  readonly actor: string;
  readonly inbox: string;
  state(): Promise<RelayState>;
  /** How it answers the Follows to come: at once (accept, reject), or not until `answerHeld`. */
  mode(mode: "accept" | "reject" | "hold"): Promise<void>;
  /** Answers the Follows it held. */
  answerHeld(mode: "accept" | "reject"): Promise<void>;
  /** POSTs `activity` to `inbox` as it forwards, signed by its key alone; the inbox's answer status. */
  forward(inbox: string, activity: unknown): Promise<number>;
  stop(): Promise<void>;
}

function control(origin: string, ca: string, path: string, body?: unknown): Promise<unknown> {
  return new Promise((done, fail) => {
    const req = httpsRequest(new URL(path, origin), { method: body === undefined ? "GET" : "POST", ca }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on("end", () => (res.statusCode === 200 ? done(JSON.parse(text)) : fail(new Error(`${path}: ${res.statusCode}`))));
    });
    req.on("error", fail);
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}

export async function startFakeRelay(ca: TestCa): Promise<FakeRelay> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...NODE_FLAGS, join(ROOT, "tests/support/fake-relay-server.ts")], {
    env: {
      PATH: process.env.PATH ?? "",
      NODE_EXTRA_CA_CERTS: ca.caFile,
      RELAY_PORT: String(port),
      RELAY_TLS_CERT: ca.certFile,
      RELAY_TLS_KEY: ca.keyFile,
    },
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((done) => child.on("exit", () => done()));
  const deadline = Date.now() + 30_000;
  while (!/relay listening on/.test(output)) {
    if (child.exitCode !== null) throw new Error(`The relay exited before it listened:\n${output}`);
    if (Date.now() > deadline) throw new Error(`The relay did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const origin = `https://localhost:${port}`;
  return {
    origin,
    actor: `${origin}/actor`,
    inbox: `${origin}/inbox`,
    state: async () => (await control(origin, ca.ca, "/control/state")) as RelayState,
    async mode(mode) {
      await control(origin, ca.ca, "/control/mode", { mode });
    },
    async answerHeld(mode) {
      await control(origin, ca.ca, "/control/answer-held", { mode });
    },
    async forward(inbox, activity) {
      return ((await control(origin, ca.ca, "/control/forward", { inbox, activity })) as { status: number }).status;
    },
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
