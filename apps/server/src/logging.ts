import { AsyncLocalStorage } from "node:async_hooks";
import { type Sink, configure, getTextFormatter, jsonLinesFormatter, reset } from "@logtape/logtape";
import type { LogLevel } from "./config.js";

/**
 * One logging library for Kith and Fedify: LogTape. Logs go to stderr, so a
 * command's own output (`New password: ...`) stays alone on stdout.
 */
export async function configureLogging(level: LogLevel, format: "text" | "json"): Promise<void> {
  const formatter = format === "json" ? jsonLinesFormatter : getTextFormatter();
  const stderr: Sink = (record) => {
    process.stderr.write(formatter(record));
  };
  await configure({
    reset: true,
    sinks: { stderr },
    // Fedify runs every queued message and inbox request in a logging context; without a store for it, LogTape
    // writes a warning about the missing store on every such call (several lines per delivery and per activity).
    contextLocalStorage: new AsyncLocalStorage(),
    loggers: [
      { category: ["kith"], lowestLevel: level, sinks: ["stderr"] },
      { category: ["fedify"], lowestLevel: level === "trace" || level === "debug" ? level : "warning", sinks: ["stderr"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["stderr"] },
    ],
  });
}

export async function resetLogging(): Promise<void> {
  await reset();
}
