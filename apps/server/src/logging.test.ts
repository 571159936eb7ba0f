import { getLogger, withContext } from "@logtape/logtape";
import { afterEach, describe, expect, it, vi } from "vitest";
import { configureLogging, resetLogging } from "./logging.js";

/**
 * Fedify runs every queued message and inbox request inside LogTape's
 * `withContext`: the server's logging must give it a context store, or LogTape
 * writes a warning about the missing store for each of them.
 */
describe("server logging", () => {
  afterEach(async () => {
    vi.restoreAllMocks();
    await resetLogging();
  });

  it("runs logging contexts without a warning, and their records carry the context", async () => {
    await configureLogging("info", "json");
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const value = withContext({ messageId: "m-1" }, () => {
      getLogger(["kith", "test"]).info("inside");
      return 42;
    });
    expect(value).toBe(42);
    expect(written).toHaveLength(1);
    const record = JSON.parse(written[0] ?? "{}") as { message?: string; properties?: Record<string, unknown> };
    expect(record.message).toBe("inside");
    expect(record.properties?.messageId).toBe("m-1");
  });
});
