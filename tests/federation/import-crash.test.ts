/**
 * An import survives its worker's crash: A's process is SIGKILLed while an
 * import of accounts on B is being worked, and after A's restart the job
 * goes on from its cursor and finishes with every row applied once: each of
 * B's accounts followed (or asked) once on A, none twice on B, each unknown
 * one reported once, none left out. Two servers as processes, over HTTPS, on
 * each engine.
 */
import { rmSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { accountWithToken, call, eventually } from "../support/federation-api.js";
import { describeOnEngines } from "../support/engines.js";
import { type TestCa, type TestInstance, makeTestCa, startInstance } from "../support/federation-harness.js";

interface ImportJob {
  id: string;
  state: string;
  progress: { processed: number; total: number };
  results: { imported: number; skipped: number; failed: number };
  errors: { row: number; account: string | null; reason: string }[];
}

const instances: TestInstance[] = [];
let ca: TestCa | undefined;

afterEach(async () => {
  await Promise.all(instances.splice(0).map((instance) => instance.stop()));
  if (ca) rmSync(ca.dir, { recursive: true, force: true });
  ca = undefined;
});

/** A multipart body as a browser sends a file with its fields. */
function multipart(fields: Record<string, string>, file: { name: string; content: string }): { body: string; type: string } {
  const boundary = "kithimportboundary";
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n${file.content}\r\n`,
  );
  return { body: `${parts.join("")}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}

describeOnEngines("an import whose worker is killed", (engine) => {
  it("finishes after the restart with every row applied exactly once", async () => {
    ca = makeTestCa();
    const [a, b] = await Promise.all([startInstance("a", ca, {}, ["all"], engine.name), startInstance("b", ca, {})]);
    instances.push(a, b);
    const alice = await accountWithToken(a, "alice");
    const real = ["bob", "carol", "dave", "erin"];
    const tokens = new Map<string, string>();
    for (const name of real) tokens.set(name, (await accountWithToken(b, name)).token);

    // Real accounts among unknown ones, all on B: one row each half second (the pace per host), long enough to be cut.
    const names = Array.from({ length: 20 }, (_, index) => (index % 5 === 0 ? real[index / 5] : `ghost${index}`) as string);
    const { body, type } = multipart(
      { type: "following", mode: "merge" },
      { name: "following_accounts.csv", content: names.map((name) => `${name}@${b.host}\n`).join("") },
    );
    const created = await a.request("POST", "/api/v1/import", {
      headers: { authorization: `Bearer ${alice.token}`, "content-type": type },
      body,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = (created.body as ImportJob).id;
    expect((await call(a, alice.token, "POST", `/api/v1/import/start/${id}`)).status).toBe(200);

    const job = async (): Promise<ImportJob> => {
      let response = await call(a, alice.token, "GET", `/api/v1/import/${id}`);
      // A server shedding load (503 on a busy machine) is asked again shortly.
      for (let tries = 0; response.status === 503 && tries < 50; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        response = await call(a, alice.token, "GET", `/api/v1/import/${id}`);
      }
      if (response.status !== 200) throw new Error(`GET /api/v1/import/${id}: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body as ImportJob;
    };
    const under = await eventually(job, (now) => now.progress.processed >= 3, 60_000);
    expect(under.state, JSON.stringify(under)).toBe("PROCESSING");
    await a.kill("SIGKILL");
    const cut = await (async () => {
      const storage = a.openStorage();
      try {
        const row = await storage.db
          .withTables<{ import_jobs: { id: string; cursor: number } }>()
          .selectFrom("import_jobs")
          .select("cursor")
          .where("id", "=", id)
          .executeTakeFirst();
        return Number(row?.cursor);
      } finally {
        await storage.close();
      }
    })();
    expect(cut).toBeLessThan(20);

    await a.restart();
    const done = await eventually(job, (now) => now.state === "FINISHED", 150_000);
    expect(done.state).toBe("FINISHED");
    expect(done.progress).toEqual({ processed: 20, total: 20 });
    expect(done.results).toEqual({ imported: 4, skipped: 0, failed: 16 });
    expect(done.errors.map((error) => error.account)).toEqual(
      names.filter((name) => name.startsWith("ghost")).map((name) => `${name}@${b.host}`),
    );

    // On A, each real account followed or asked once, and nothing more: four targets, none twice.
    const storage = a.openStorage();
    try {
      const me = (await call(a, alice.token, "GET", "/api/v1/accounts/verify_credentials")).body as { id: string };
      const targets: string[] = [];
      for (const table of ["follows", "follow_requests"] as const) {
        const rows = await storage.db.selectFrom(table).select("target_account_id").where("account_id", "=", me.id).execute();
        targets.push(...rows.map((row) => row.target_account_id));
      }
      expect(targets).toHaveLength(4);
      expect(new Set(targets).size).toBe(4);
    } finally {
      await storage.close();
    }
    // On B, no account has A's alice as a follower twice.
    for (const name of real) {
      const token = tokens.get(name) as string;
      const me = (await call(b, token, "GET", "/api/v1/accounts/verify_credentials")).body as { id: string };
      const followers = (await call(b, token, "GET", `/api/v1/accounts/${me.id}/followers`)).body as { acct: string }[];
      expect(followers.filter((account) => account.acct === `alice@${a.host}`).length, name).toBeLessThanOrEqual(1);
    }
  }, 300_000);
});
