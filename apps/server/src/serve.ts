import { getLogger } from "@kith/core";
import { type NodeServer, closeOnSignals, startNodeServer } from "@kith/http-adapter-node";
import { assembleKith } from "./assemble.js";
import type { ServerConfig } from "./config.js";

export type ServeRole = "web" | "worker" | "all";

export interface RunningServer {
  readonly url: string | null;
  close(): Promise<void>;
}

/**
 * Runs Kith: the HTTP server (`web`), the job workers (`worker`), or both.
 * SIGTERM and SIGINT stop it gracefully: no new connections, in-flight
 * requests finish, workers stop, the database closes.
 */
export async function serve(
  config: ServerConfig,
  role: ServeRole = "all",
  options: { installSignalHandlers?: boolean } = {},
): Promise<RunningServer> {
  const logger = getLogger(["server"]);
  const kith = await assembleKith(config);
  if (role !== "web") await kith.start();
  let http: NodeServer | null = null;
  if (role !== "worker") {
    http = await startNodeServer({
      handler: (request, info) => kith.fetch(request, info),
      host: config.host,
      port: config.port,
      bodyLimits: { json: config.maxBodyBytes, other: config.maxUploadBytes },
      trustedProxies: config.trustedProxies,
      onShutdown: () => kith.close(),
    });
    logger.info("Kith listening on {url} as {origin} ({database})", {
      url: http.url,
      origin: config.origin,
      database: config.database.kind,
    });
  } else {
    logger.info("Kith workers running ({database})", { database: config.database.kind });
  }
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= http ? http.close() : kith.close();
    return closing;
  };
  const server: RunningServer = { url: http?.url ?? null, close };
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
