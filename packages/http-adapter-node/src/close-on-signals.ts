import { constants } from "node:os";
import type { NodeServer } from "./node-server.js";

/**
 * Installs handlers for `signals` that close the server gracefully once, then
 * exit the process with code 0 (1 if shutdown failed). A second signal while
 * shutting down exits at once with 128 + the signal number, so an impatient
 * Ctrl-C still works. Returns a function that removes the handlers.
 */
export function closeOnSignals(server: NodeServer, signals: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT"]): () => void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      process.exit(128 + (constants.signals[signal] ?? 0));
      return;
    }
    closing = true;
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("kith http: shutdown failed:", error);
        process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
