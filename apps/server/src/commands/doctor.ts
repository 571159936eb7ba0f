import { connect } from "node:net";
import { coreMigrations, defaultModules, migrationsWithModules, pendingMigrations } from "@kith/core";
import { assembleKith, openStorage } from "../assemble.js";
import { type ServerConfig, isLoopbackHost } from "../config.js";
import { type Command, type CommandIo, parse } from "./command.js";

/**
 * `kith doctor`: what an administrator checks when something is off, each finding one line that says what to fix.
 * It reads and connects; it changes nothing (no migration, no job).
 */

type Verdict = "ok" | "warn" | "fail";

interface Finding {
  readonly verdict: Verdict;
  readonly area: string;
  readonly text: string;
}

const TIMEOUT_MS = 5_000;
/** A job ready this long ago and not started means no worker runs. */
const STUCK_AFTER_MS = 5 * 60_000;

const ok = (area: string, text: string): Finding => ({ verdict: "ok", area, text });
const warn = (area: string, text: string): Finding => ({ verdict: "warn", area, text });
const fail = (area: string, text: string): Finding => ({ verdict: "fail", area, text });

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function configuration(config: ServerConfig): Finding[] {
  const origin = new URL(config.origin);
  const findings = [ok("configuration", `origin ${config.origin}, ${config.database.kind} database, media ${config.blob.kind}`)];
  if (origin.protocol !== "https:" && !isLoopbackHost(origin.hostname)) {
    findings.push(
      warn(
        "configuration",
        `KITH_ORIGIN is ${config.origin}: other servers expect https; put Kith behind TLS and set KITH_ORIGIN=https://...`,
      ),
    );
  }
  if (config.allowPrivateAddress) findings.push(warn("configuration", "KITH_ALLOW_PRIVATE_ADDRESS is on: meant for test networks only"));
  return findings;
}

/** The database answers, and every migration is applied; returns whether the rest may read it. */
async function database(config: ServerConfig, findings: Finding[]): Promise<boolean> {
  let storage: Awaited<ReturnType<typeof openStorage>>;
  try {
    storage = await openStorage(config);
  } catch (error) {
    findings.push(fail("database", `cannot open it: ${messageOf(error)}; check KITH_DATABASE_URL or KITH_DATA_DIR`));
    return false;
  }
  try {
    await storage.ping();
    const info = await storage.info();
    const pending = await pendingMigrations(storage.db, migrationsWithModules(coreMigrations, defaultModules));
    findings.push(
      ok("database", `${info.engine} ${info.version}${info.sizeBytes === null ? "" : `, ${Math.round(info.sizeBytes / 1024 / 1024)} MB`}`),
    );
    if (pending.length) {
      findings.push(
        warn(
          "migrations",
          `${pending.length} not applied (${pending.slice(0, 3).join(", ")}${pending.length > 3 ? ", ..." : ""}): run kith migrate, or restart kith serve`,
        ),
      );
      return false;
    }
    findings.push(ok("migrations", "all applied"));
    return true;
  } catch (error) {
    findings.push(fail("database", `does not answer: ${messageOf(error)}`));
    return false;
  } finally {
    await storage.close();
  }
}

async function queue(config: ServerConfig, findings: Finding[]): Promise<void> {
  const kith = await assembleKith(config, { migrate: false });
  try {
    const summary = await kith.services.jobs.summary();
    let troubled = false;
    for (const entry of summary) {
      const { failed, dlq } = entry.counts;
      if (failed || dlq) {
        troubled = true;
        findings.push(
          warn(
            "jobs",
            `${entry.queue}: ${failed} failed, ${dlq} dead letters: see kith jobs list --queue=${entry.queue} --status=failed, then kith jobs retry`,
          ),
        );
      }
      if (entry.latencyMs !== null && entry.latencyMs > STUCK_AFTER_MS) {
        troubled = true;
        findings.push(
          fail(
            "jobs",
            `${entry.queue}: the oldest ready job has waited ${Math.round(entry.latencyMs / 60_000)} minutes: is a worker running (kith serve, or --role=worker)?`,
          ),
        );
      }
      if (entry.lastFailure)
        findings.push(warn("jobs", `${entry.queue}: job ${entry.lastFailure.jobId} is retrying after: ${entry.lastFailure.error}`));
    }
    if (!troubled) findings.push(ok("jobs", `${summary.length} queues, none stuck, none failed`));
  } finally {
    await kith.close();
  }
}

async function fetchWithin(url: string): Promise<Response> {
  return fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: "application/json" } });
}

async function origin(config: ServerConfig, findings: Finding[]): Promise<void> {
  const host = new URL(config.origin).host;
  try {
    const nodeinfo = await fetchWithin(new URL("/.well-known/nodeinfo", config.origin).href);
    if (!nodeinfo.ok) throw new Error(`/.well-known/nodeinfo answered ${nodeinfo.status}`);
    findings.push(ok("origin", `${config.origin} answers`));
  } catch (error) {
    findings.push(
      fail("origin", `${config.origin} does not answer (${messageOf(error)}): is kith serve running, and does the proxy forward to it?`),
    );
    return;
  }
  try {
    // The instance actor is always there: WebFinger answers for it as other servers will ask.
    const resource = `acct:${host}@${host}`;
    const webfinger = await fetchWithin(new URL(`/.well-known/webfinger?resource=${encodeURIComponent(resource)}`, config.origin).href);
    if (!webfinger.ok) throw new Error(`answered ${webfinger.status}`);
    findings.push(ok("webfinger", `answers for ${resource}`));
  } catch (error) {
    findings.push(fail("webfinger", `does not answer (${messageOf(error)}): the proxy must forward /.well-known/ to Kith`));
  }
}

function reachable(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, timeout: TIMEOUT_MS });
    socket.once("connect", () => {
      socket.destroy();
      resolve();
    });
    socket.once("timeout", () => {
      socket.destroy();
      reject(new Error("timed out"));
    });
    socket.once("error", reject);
  });
}

async function messaging(config: ServerConfig, findings: Finding[]): Promise<void> {
  if (!config.smtp)
    findings.push(warn("mail", "no KITH_SMTP_URL: mail (confirmations, password resets) is only logged; set it to send mail"));
  else {
    const url = new URL(config.smtp.url);
    const port = Number(url.port || (url.protocol === "smtps:" ? 465 : 587));
    try {
      await reachable(url.hostname, port);
      findings.push(ok("mail", `SMTP server ${url.hostname}:${port} reachable, sending as ${config.smtp.from}`));
    } catch (error) {
      findings.push(fail("mail", `SMTP server ${url.hostname}:${port} unreachable (${messageOf(error)}): check KITH_SMTP_URL`));
    }
  }
  if (!config.sms) findings.push(warn("sms", "no KITH_SMS_URL: text messages (phone sign-in codes) are only logged"));
  else findings.push(ok("sms", `provider ${new URL(config.sms.url).host}`));
}

export async function diagnose(config: ServerConfig): Promise<Finding[]> {
  const findings = configuration(config);
  if (await database(config, findings)) await queue(config, findings);
  await origin(config, findings);
  await messaging(config, findings);
  return findings;
}

async function runDoctor(args: string[], config: ServerConfig, io: CommandIo): Promise<number> {
  parse(args, {});
  const findings = await diagnose(config);
  for (const finding of findings) io.out(`${finding.verdict.padEnd(4)} ${finding.area}: ${finding.text}`);
  const failed = findings.filter((finding) => finding.verdict === "fail").length;
  const warned = findings.filter((finding) => finding.verdict === "warn").length;
  io.out(failed ? `${failed} to fix, ${warned} to look at` : warned ? `Nothing to fix; ${warned} to look at` : "All good");
  return failed ? 1 : 0;
}

export const doctorCommand: Command = {
  name: "doctor",
  summary: "Check the configuration, database, jobs, origin, mail and SMS",
  usage: ["doctor", "    Check what a running server needs, one line a finding, each saying what to fix; exits 1 when something fails"],
  run: runDoctor,
};
