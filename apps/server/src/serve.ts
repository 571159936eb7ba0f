import { readFileSync } from "node:fs";
import { type Kith, getLogger } from "@kith/core";
import { type NodeServer, closeOnSignals, startNodeServer } from "@kith/http-adapter-node";
import { assembleKith } from "./assemble.js";
import type { ServerConfig } from "./config.js";
import { turnOffPretenuring } from "./pretenuring.js";

export type ServeRole = "web" | "worker" | "all";

export interface RunningServer {
  /** Where the HTTP server listens; null for the `worker` role, which opens no port. */
  readonly url: string | null;
  readonly role: ServeRole;
  readonly kith: Kith;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Stop gracefully on SIGTERM and SIGINT. @default true */
  readonly installSignalHandlers?: boolean;
  /** Called with the assembled Kith before its workers start and before it listens: register an embedding's job handlers here. */
  readonly prepare?: (kith: Kith) => void | Promise<void>;
}

/**
 * Runs Kith: the HTTP server (`web`: answers requests and enqueues jobs,
 * works none), the job workers (`worker`: works jobs, opens no port), or
 * both (`all`). Several web and worker processes may share one database (or
 * Redis). SIGTERM and SIGINT stop it gracefully: no new connections,
 * in-flight requests finish, running jobs finish, the database closes.
 */
export async function serve(config: ServerConfig, role: ServeRole = "all", options: ServeOptions = {}): Promise<RunningServer> {
  if (config.optimisations?.isOn("v8-no-pretenuring") ?? true) turnOffPretenuring();
  const logger = getLogger(["server"]);
  const kith = await assembleKith(config);
  try {
    await options.prepare?.(kith);
    if (role !== "web") await kith.start();
  } catch (error) {
    await kith.close();
    throw error;
  }
  let http: NodeServer | null = null;
  if (role !== "worker") {
    try {
      http = await startNodeServer({
        handler: (request, info) => kith.fetch(request, info),
        host: config.host,
        port: config.port,
        bodyLimits: { json: config.maxBodyBytes, other: config.maxUploadBytes },
        trustedProxies: config.trustedProxies,
        loadShedding: { maxEventLoopDelayMs: config.maxEventLoopDelayMs },
        onShutdown: () => kith.close(),
        ...(config.tls && { tls: { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } }),
      });
    } catch (error) {
      await kith.close();
      throw error;
    }
    logger.info("Kith listening on {url} as {origin} ({database}; {work})", {
      url: http.url,
      origin: config.origin,
      database: config.database.kind,
      work: role === "web" ? "no job workers in this process" : "job workers running",
    });
  } else {
    logger.info("Kith workers running ({database})", { database: config.database.kind });
  }
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= http ? http.close() : kith.close();
    return closing;
  };
  const server: RunningServer = { url: http?.url ?? null, role, kith, close };
  if (options.installSignalHandlers ?? true) {
    if (http) closeOnSignals(http);
    else {
      const stop = () => void server.close().then(() => process.exit(0));
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    }
  }
  return server;
}
