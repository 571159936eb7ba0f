import type { ServerResponse } from "node:http";
import { type EventLoopDelayProbe, startEventLoopDelayProbe } from "./event-loop-delay.js";

/**
 * When the event loop runs late, every request already waits for it; taking
 * more only makes the wait longer. Past the bound, new requests are answered
 * 503 with Retry-After before any of their work starts (as GoToSocial sheds
 * load), so clients back off and the server catches up. Health checks are
 * still answered: a load balancer must tell "busy" from "down".
 */
export interface LoadSheddingOptions {
  /** Event-loop delay, in milliseconds, past which requests are shed; 0 never sheds. @default 1000 */
  readonly maxEventLoopDelayMs?: number;
  /** Paths answered however late the loop runs. @default ["/health", "/api/v1/streaming/health"] */
  readonly exemptPaths?: readonly string[];
  /** Where the delay comes from. @default a timer drift probe (event-loop-delay.ts) */
  readonly probe?: EventLoopDelayProbe;
}

export const DEFAULT_MAX_EVENT_LOOP_DELAY_MS = 1_000;
const DEFAULT_EXEMPT_PATHS = ["/health", "/api/v1/streaming/health"];
/** Retry-After never sends a client away for longer than this. */
const MAX_RETRY_AFTER_SECONDS = 30;
const OVERLOADED_BODY = '{"error":"The server is too busy to answer; try again shortly","code":"server.overloaded"}';

export interface LoadShedder {
  /** Answers the request 503 and returns true when the server is saturated and the path is not exempt. */
  shed(path: string, res: ServerResponse): boolean;
  stop(): void;
}

export function createLoadShedder(options: LoadSheddingOptions = {}): LoadShedder {
  const bound = options.maxEventLoopDelayMs ?? DEFAULT_MAX_EVENT_LOOP_DELAY_MS;
  if (!Number.isFinite(bound) || bound < 0) throw new TypeError("maxEventLoopDelayMs must be a number of milliseconds, 0 or more");
  if (bound === 0) return { shed: () => false, stop: () => {} };
  const exempt = new Set(options.exemptPaths ?? DEFAULT_EXEMPT_PATHS);
  const probe = options.probe ?? startEventLoopDelayProbe();
  return {
    shed(path, res) {
      const delay = probe.delayMs();
      if (delay <= bound || exempt.has(path)) return false;
      const retryAfter = Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(delay / 1000)));
      res.writeHead(503, {
        "content-type": "application/json; charset=utf-8",
        "retry-after": String(retryAfter),
        // The body is left unread: the connection is not worth keeping for another request now.
        connection: "close",
      });
      res.end(OVERLOADED_BODY);
      return true;
    },
    stop: () => probe.stop(),
  };
}
