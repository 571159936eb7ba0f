import { describe, expect, it } from "vitest";
import type { Logger } from "../../logging.js";
import { AttemptFailures, type FailedAttempt } from "./attempt-failures.js";

/** A logger that keeps its lines, by level. */
function recordingLogger(): { logger: Logger; lines: { level: string; message: string; fields: Record<string, unknown> }[] } {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}): void => {
      lines.push({ level, message, fields });
    };
  const logger = { debug: at("debug"), info: at("info"), warn: at("warning"), error: at("error") } as unknown as Logger;
  return { logger, lines };
}

const attempt = (overrides: Partial<FailedAttempt> = {}): FailedAttempt => ({
  id: "jb_1",
  queue: "federation",
  attempt: 1,
  error: "Error: connect ECONNREFUSED",
  delayMs: 60_000,
  ...overrides,
});

describe("the log of failed attempts", () => {
  it("warns once for a failure that repeats, then with its count every five minutes", () => {
    let now = 0;
    const { logger, lines } = recordingLogger();
    const failures = new AttemptFailures(logger, () => now);
    for (let i = 1; i <= 40; i++) {
      failures.failed(attempt({ id: `jb_${i}`, attempt: i }));
      now += 10_000;
    }
    const warnings = lines.filter((line) => line.level === "warning");
    // 40 failures over 400 s: the first, and one summary after five minutes.
    expect(warnings).toHaveLength(2);
    expect(warnings[0]?.fields).toMatchObject({ id: "jb_1", queue: "federation", error: "Error: connect ECONNREFUSED" });
    expect(warnings[1]?.fields).toMatchObject({ queue: "federation", count: 30, minutes: 5 });
    expect(lines.filter((line) => line.level === "debug")).toHaveLength(40);
    // No stack in any line: only the message given.
    expect(JSON.stringify(lines)).not.toContain("    at ");
  });

  it("warns for each new kind of failure, by queue and message", () => {
    const { logger, lines } = recordingLogger();
    const failures = new AttemptFailures(logger, () => 0);
    failures.failed(attempt());
    failures.failed(attempt({ queue: "media" }));
    failures.failed(attempt({ error: "Error: 503 Service Unavailable" }));
    failures.failed(attempt());
    expect(lines.filter((line) => line.level === "warning")).toHaveLength(3);
  });
});
