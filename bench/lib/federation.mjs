// The federation scenarios: inbox throughput (signed activities from remote
// actors, counted when they are in the database) and delivery of one post to
// remote followers on 100 hosts (counted when the hosts have verified it).
// Each is measured against Kith and against a bare baseline in the same run.

import { spawn } from "node:child_process";
import { createPublicKey } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { cpuMs, mainThreadWaitMs } from "./processes.mjs";
import { addDeliveryAudience } from "./seed.mjs";
import { inboxActors, landedActivities, likeTargetUrls } from "./inbox-activities.mjs";
import { statementTotals, statementsPer } from "./statement-totals.mjs";
import { gcPausesPer, gcTotals } from "./gc-pauses.mjs";
import { median } from "./median.mjs";

const LIB = new URL(".", import.meta.url).pathname;
const HOSTS = 100;
const ACTORS_PER_HOST = 10;
/** Activities each inbox sender sends in the warm-up, before the measured run. */
const WARM_ACTIVITIES_PER_ACTOR = 5;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const epochMs = () => performance.timeOrigin + performance.now();

/** Runs `node <script> <args>` to its end; its stdout is one JSON line. */
function runJson(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(LIB, script), ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${script} exited with ${code}`))));
  });
}

/** Starts `node <script> <args>`, resolving with its first stdout line (JSON) and a stop function. */
function startJson(script, args) {
  const child = spawn(process.execPath, [join(LIB, script), ...args], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout.once("data", (chunk) =>
      resolve({
        info: JSON.parse(String(chunk).trim().split("\n")[0]),
        pid: child.pid,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", done);
            child.kill("SIGTERM");
          }),
      }),
    );
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/**
 * Polls until `expected` activities of `tag`, sent from `sinceMs` on, landed, or nothing new landed for `idleMs`; the
 * time of the last increase.
 */
async function waitLanded(db, tag, sinceMs, expected, idleMs = 15_000) {
  let seen = -1;
  let lastChange = epochMs();
  let lastIncreaseAt = epochMs();
  while (true) {
    const now = await landedActivities(db, tag, sinceMs);
    if (now !== seen) {
      if (now > seen) lastIncreaseAt = epochMs();
      seen = now;
      lastChange = epochMs();
    }
    if (seen >= expected || epochMs() - lastChange > idleMs) return { landed: seen, at: lastIncreaseAt };
    await sleep(25);
  }
}

const percentile = (value) => (value === null || value === undefined ? null : value);

export function startRemoteHosts(workDir, keys) {
  const specFile = join(workDir, "remote-hosts.json");
  writeFileSync(specFile, JSON.stringify({ hosts: HOSTS, actorsPerHost: ACTORS_PER_HOST, keys }));
  return startJson("remote-hosts.mjs", [specFile]);
}

/** Inbox throughput: `count` signed activities to Kith's shared inbox, then the same requests to the bare baseline. */
export async function inboxScenario({ kith, storage, workDir, keys, remote, count, connections, log }) {
  const actors = inboxActors(remote.info.hosts, keys.length);
  const warmCount = WARM_ACTIVITIES_PER_ACTOR * actors.length;
  const postUrls = await likeTargetUrls(storage.db, kith.url, count + warmCount);
  // The warm-up likes other posts than the run: a second like of a post by the same actor would store nothing.
  const likeTargets = postUrls.slice(0, count);
  const warmTargets = postUrls.slice(count);
  const kithUrl = new URL(kith.url);
  const specFor = (tag, url, n, likes) => {
    const file = join(workDir, `inbox-${tag}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        url: `${url}/inbox`,
        host: kithUrl.host,
        tag,
        count: n,
        connections,
        actors,
        keys: keys.map((k) => k.privateKey),
        likeTargets: likes,
      }),
    );
    return file;
  };

  // Warm-up: every actor sends several times, creating and liking, so Kith knows them (their documents fetched and
  // stored) and has compiled its code for both kinds before the clock starts. With one activity an actor, the first
  // few hundred of the run were still the server's slow start: 300 activities came in at 430/s, 3 000 at 700-800/s.
  const warmSince = epochMs();
  const warm = await runJson("inbox-load.mjs", [specFor("warm", kith.url, warmCount, warmTargets)]);
  const warmLanded = await waitLanded(storage.db, "warm", warmSince, warm.statuses[202] ?? 0, 30_000);
  if (warmLanded.landed < warmCount)
    log(`  inbox warm-up: ${warmLanded.landed}/${warmCount} landed (answers ${JSON.stringify(warm.statuses)})`);

  const documentsBefore = (await (await fetch(`${remote.info.control}/stats`)).json()).documentsServed;
  const tag = `run${Date.now()}`;
  const file = specFor(tag, kith.url, count, likeTargets);
  const statementsBefore = await statementTotals(kith);
  const gcBefore = await gcTotals(kith);
  const before = cpuMs(kith.pid);
  const mainBefore = cpuMs(kith.pid, { mainThread: true });
  const waitBefore = mainThreadWaitMs(kith.pid);
  const since = epochMs();
  const sent = await runJson("inbox-load.mjs", [file]);
  const accepted = sent.statuses[202] ?? 0;
  const done = await waitLanded(storage.db, tag, since, accepted);
  const cpu = cpuMs(kith.pid) - before;
  const mainCpu = cpuMs(kith.pid, { mainThread: true }) - mainBefore;
  const waitAfter = waitBefore === null ? null : mainThreadWaitMs(kith.pid);
  const mainWait = waitAfter === null ? null : waitAfter - waitBefore;
  // Over the sends alone: read around them by the load generator, whose signing before them is not the server's load.
  const machineCpu = sent.machineMs;
  const statements = statementsPer(statementsBefore, await statementTotals(kith), done.landed);
  const gc = gcPausesPer(gcBefore, await gcTotals(kith), done.landed);
  const documentsFetched = (await (await fetch(`${remote.info.control}/stats`)).json()).documentsServed - documentsBefore;
  const seconds = (done.at - sent.startedAt) / 1000;

  const keysFile = join(workDir, "inbox-keys.json");
  writeFileSync(
    keysFile,
    JSON.stringify({ keys: Object.fromEntries(actors.map((actor) => [`${actor.id}#main-key`, keys[actor.key].publicKey])) }),
  );
  const baseline = await startJson("inbox-baseline.mjs", [keysFile]);
  let bare;
  try {
    const baselineUrl = `http://127.0.0.1:${baseline.info}`;
    await runJson("inbox-load.mjs", [specFor("warm", baselineUrl, warmCount, warmTargets)]);
    const bareBefore = cpuMs(baseline.pid);
    bare = await runJson("inbox-load.mjs", [specFor(tag, baselineUrl, count, likeTargets)]);
    bare.cpu = cpuMs(baseline.pid) - bareBefore;
  } finally {
    await baseline.stop();
  }
  const perLanded = (ms) => (done.landed ? (ms / done.landed).toFixed(2) : "-");
  const bareRate = (bare.statuses[202] ?? 0) / ((bare.endedAt - bare.startedAt) / 1000);
  const rate = done.landed / seconds;
  return {
    scenario: `inbox, ${count} signed activities (Create/Like) from ${actors.length} actors on ${new Set(actors.map((actor) => new URL(actor.id).host)).size} hosts`,
    rate,
    p50: percentile(sent.p50),
    p99: percentile(sent.p99),
    cpuMsPerActivity: done.landed ? cpu / done.landed : null,
    statements,
    gc,
    baselineRate: bareRate,
    baselineP50: bare.p50,
    baselineP99: bare.p99,
    baselineCpuMsPerActivity: bare.statuses[202] ? bare.cpu / bare.statuses[202] : null,
    ratio: rate / bareRate,
    detail: `${done.landed}/${count} stored (answers ${Object.entries(sent.statuses)
      .map(([status, n]) => `${n}×${status}`)
      .join(
        ", ",
      )}, ${documentsFetched} actor documents fetched); answered in ${((sent.endedAt - sent.startedAt) / 1000).toFixed(1)} s, stored by ${seconds.toFixed(1)} s; CPU an activity: ${perLanded(mainCpu)} ms Kith's main thread (which waited ${mainWait === null ? "–" : perLanded(mainWait)} ms more for a core), ${perLanded(sent.cpuMs)} ms the load generator, ${perLanded(machineCpu)} ms the whole machine`,
  };
}

async function deliveries(remote, withBodies = false) {
  const response = await fetch(`${remote.info.control}/deliveries${withBodies ? "?bodies" : ""}`);
  return response.json();
}

/**
 * Waits until every host has a verified delivery, or `timeoutMs`; the time of the last one. One request the hosts
 * answer when it is so: polling them while Kith's round ran (and not the baseline's, which is waited on after its
 * script has its answers) took CPU from that round alone.
 */
async function waitDelivered(remote, timeoutMs = 60_000) {
  const response = await fetch(`${remote.info.control}/wait?hosts=${HOSTS}&timeoutMs=${timeoutMs}`);
  const got = await response.json();
  const verified = got.filter((delivery) => delivery.verified);
  return {
    hosts: new Set(verified.map((delivery) => delivery.host)).size,
    verified: verified.length,
    refused: got.length - verified.length,
    personal: verified.filter((delivery) => delivery.path !== "/inbox").length,
    lastAt: verified.length ? Math.max(...verified.map((delivery) => delivery.at)) : null,
  };
}

/** Posts once as the audience's account and waits until every host verified a delivery: the time and the server's CPU. */
async function postOnce({ kith, remote, audience }, n) {
  await fetch(`${remote.info.control}/reset`, { method: "POST" });
  const statementsBefore = await statementTotals(kith);
  const before = cpuMs(kith.pid);
  const startedAt = epochMs();
  const response = await fetch(`${kith.url}/api/v1/statuses`, {
    method: "POST",
    headers: { authorization: `Bearer ${audience.token}`, "content-type": "application/json" },
    body: JSON.stringify({ status: `One post to a thousand remote followers on a hundred servers (${n})`, visibility: "public" }),
  });
  const requestMs = epochMs() - startedAt;
  if (!response.ok) return { skipped: `posting answered ${response.status}` };
  const done = await waitDelivered(remote);
  const cpu = cpuMs(kith.pid) - before;
  // Per delivery: the post's own statements (posting, fan-out) are in it too, a few dozen spread over a hundred.
  const statements = statementsPer(statementsBefore, await statementTotals(kith), done.verified);
  return { requestMs, done, cpu, kithMs: done.lastAt === null ? null : done.lastAt - startedAt, statements };
}

/**
 * The bare script (delivery-baseline.mjs), started once for every round of a scenario: `round()` has it deliver
 * `body` to every host's shared inbox and resolves with the time until every host verified, and its CPU.
 */
async function startBaseline({ remote, workDir, keys, baselineKeyId }, body) {
  const specFile = join(workDir, "delivery-baseline.json");
  writeFileSync(
    specFile,
    JSON.stringify({
      inboxes: remote.info.hosts.map((origin) => `${origin}/inbox`),
      body,
      keyId: baselineKeyId,
      privateKey: keys[0].privateKey,
    }),
  );
  const child = spawn(process.execPath, [join(LIB, "delivery-baseline.mjs"), specFile], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    async round() {
      await fetch(`${remote.info.control}/reset`, { method: "POST" });
      child.stdin.write("go\n");
      const { value, done: ended } = await lines.next();
      if (ended) throw new Error(`delivery-baseline.mjs exited with ${child.exitCode}`);
      const bare = JSON.parse(value);
      const done = await waitDelivered(remote, 10_000);
      return { done, cpu: bare.cpuMs, ms: done.lastAt === null ? null : done.lastAt - bare.startedAt };
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", resolve);
        child.stdin.end();
      });
    },
  };
}

/** The RSA key sizes both sides sign with: a fair baseline signs with a key as large as Kith's (signing cost grows with it). */
function keySizes(actor, baselineKey) {
  const bits = (pem) => (pem ? createPublicKey(pem).asymmetricKeyDetails?.modulusLength : undefined) ?? "unknown";
  return `RSA keys: Kith ${bits(actor.publicKey?.publicKeyPem)} bits, baseline ${bits(baselineKey.publicKey)} bits`;
}

/**
 * One public post by an account with 1 000 remote followers on 100 hosts, then the same body signed and POSTed by a
 * bare script; `posts` times each (Kith's posts first, one after another), reporting the medians.
 */
export async function deliveryScenario({ kith, storage, workDir, keys, remote, posts = 1, log = () => {} }) {
  const audience = await addDeliveryAudience(storage, { hosts: remote.info.hosts, actorsPerHost: ACTORS_PER_HOST });
  // A server that has heard from this actor before has its key: fetched here, before the clock starts (which also has Kith make the key).
  const actor = await (await fetch(`${kith.url}/users/${audience.username}`, { headers: { accept: "application/activity+json" } })).json();
  const baselineKeyId = `${remote.info.hosts[0]}/users/baseline#main-key`;
  for (const keyId of [actor.publicKey?.id, baselineKeyId]) {
    if (keyId) await fetch(`${remote.info.control}/prewarm?keyId=${encodeURIComponent(keyId)}`, { method: "POST" });
  }

  const rounds = [];
  for (let n = 1; n <= posts; n++) {
    const round = await postOnce({ kith, remote, audience }, n);
    if (round.skipped) return { skipped: round.skipped };
    round.body = (await deliveries(remote, true)).find((delivery) => delivery.verified)?.body;
    rounds.push(round);
    if (posts > 1)
      log(`  delivery post ${n}: ${round.kithMs?.toFixed(0)} ms, ${round.cpu.toFixed(0)} ms CPU, ${round.done.verified} verified`);
  }
  const bares = [];
  const baseline = await startBaseline({ remote, workDir, keys, baselineKeyId }, rounds.at(-1).body);
  try {
    for (let n = 1; n <= posts; n++) {
      const bare = await baseline.round();
      bares.push(bare);
      if (posts > 1) log(`  delivery baseline ${n}: ${bare.ms?.toFixed(0)} ms, ${bare.cpu.toFixed(0)} ms CPU`);
    }
  } finally {
    await baseline.stop();
  }
  const kithDone = rounds.at(-1).done;
  const bareDone = bares.at(-1).done;
  const kithMs = median(rounds.map((round) => round.kithMs));
  const bareMs = median(bares.map((bare) => bare.ms));
  const cpu = median(rounds.map((round) => round.cpu));
  const bareCpu = median(bares.map((bare) => bare.cpu));
  return {
    scenario: `delivery of one post to ${audience.followers} followers on ${HOSTS} hosts`,
    requestMs: median(rounds.map((round) => round.requestMs)),
    kithMs,
    cpuMs: cpu,
    cpuMsPerDelivery: kithDone.verified ? cpu / kithDone.verified : null,
    statements: rounds.at(-1).statements,
    baselineMs: bareMs,
    baselineCpuMs: bareCpu,
    baselineCpuMsPerDelivery: bareDone.verified ? bareCpu / bareDone.verified : null,
    ratio: kithMs !== null && bareMs ? kithMs / bareMs : null,
    detail: `${kithDone.hosts}/${HOSTS} hosts verified a delivery (${kithDone.verified} verified, ${kithDone.personal} to personal inboxes, ${kithDone.refused} refused); baseline ${bareDone.hosts}/${HOSTS}; ${keySizes(actor, keys[0])}${posts > 1 ? `; medians of ${posts} posts` : ""}`,
  };
}
