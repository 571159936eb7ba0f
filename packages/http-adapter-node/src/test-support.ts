import { type Agent, type IncomingHttpHeaders, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterEach } from "vitest";
import { type NodeServer, type NodeServerOptions, startNodeServer } from "./node-server.js";

/** Test-only helpers: real servers on 127.0.0.1, real sockets. */

export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const started: NodeServer[] = [];

/** Every test file that starts servers closes them after each test. */
export function useServers(): (options: NodeServerOptions) => Promise<NodeServer> {
  afterEach(async () => {
    const servers = started.splice(0);
    await Promise.all(servers.map((server) => server.close()));
  });
  return async (options) => {
    // Tests must not wait out a real shutdown timeout, nor print to stderr unless they mean to.
    const server = await startNodeServer({ shutdownTimeoutMs: 200, onError: () => {}, ...options });
    started.push(server);
    return server;
  };
}

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** node:http, for what fetch cannot do: a chosen Host, chunked bodies written piece by piece. */
export function nodeRequest(
  url: string,
  options: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    chunks?: readonly (string | Uint8Array)[];
    /** A keep-alive agent, for requests on the same connection; a connection of its own by default. */
    agent?: Agent;
  } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const target = {
      hostname,
      port,
      path: options.path ?? "/",
      method: options.method ?? "GET",
      headers: options.headers,
      agent: options.agent ?? false,
    };
    const req = httpRequest(target, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

/** Everything the server sends back on a raw connection, until it closes it. */
export function rawExchange(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.on("error", reject);
  });
}

/** Fails fast (instead of at the test timeout) when something that should happen promptly does not. */
export function within<T>(promise: Promise<T>, ms = 2000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
