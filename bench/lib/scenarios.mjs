// What the benchmark measures on a seeded dataset. `requests` are driven by
// the load generator and compared with the bare baseline; `probes` measure
// one thing each (latency of a fan-out, streaming delivery) their own way.

import { writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { sql } from "kysely";
import { median } from "./median.mjs";
import { startBaseline } from "./processes.mjs";

const bearer = (token) => ({ authorization: `Bearer ${token}` });

export function scenarioSet(dataset) {
  const { tokens } = dataset;
  const [reader50, reader2000] = dataset.readers;
  const json = { "content-type": "application/json" };
  const requests = [
    {
      name: `home timeline, 40 posts, follows ${reader50.follows}`,
      request: { path: "/api/v1/timelines/home?limit=40", headers: bearer(tokens.reader50) },
    },
    {
      name: `home timeline, 40 posts, follows ${reader2000.follows}`,
      series: "home timeline, 40 posts, follows up to 2000",
      request: { path: "/api/v1/timelines/home?limit=40", headers: bearer(tokens.reader2000) },
    },
    // A group's timeline is read as the home timeline is (its target is the home timeline's).
    ...(dataset.group
      ? [
          {
            name: `group timeline, 40 posts, ${dataset.group.members} members`,
            series: "group timeline, 40 posts, up to 10000 members",
            request: { path: `/api/v1/timelines/group/${dataset.group.id}?limit=40`, headers: bearer(tokens.reader50) },
          },
        ]
      : []),
    { name: "public timeline, 40 posts", request: { path: "/api/v1/timelines/public?limit=40", headers: bearer(tokens.reader50) } },
    {
      name: "hashtag timeline, 40 posts",
      request: { path: `/api/v1/timelines/tag/${dataset.tag}?limit=40`, headers: bearer(tokens.reader50) },
    },
    { name: "profile", request: { path: `/api/v1/accounts/${dataset.profileId}` } },
    { name: "notifications, 40", request: { path: "/api/v1/notifications?limit=40", headers: bearer(tokens.reader50) } },
    {
      name: "full-text search, statuses",
      request: { path: `/api/v2/search?q=${dataset.searchWord}&type=statuses&limit=20`, headers: bearer(tokens.reader50) },
    },
    { name: "calendar events of the caller, 40", request: { path: "/api/v1/events/my?limit=40", headers: bearer(tokens.reader50) } },
    {
      name: "calendar event search, local",
      request: { path: `/api/v1/events/search?mode=local&q=${dataset.searchWord}&limit=20`, headers: bearer(tokens.reader50) },
    },
    // Platform data: the first reader holds Data.Manage globally, so the AND of two tags runs over every entry.
    ...(dataset.data
      ? [
          {
            name: `platform data, 40 entries tagged ${dataset.data.tags.join(" AND ")} of ${dataset.data.entries}`,
            series: "platform data, 40 entries of two tags AND-ed, up to 1000000 entries",
            request: {
              path: `/api/v1/data?${dataset.data.tags.map((tag) => `tags[]=${tag}`).join("&")}&limit=40`,
              headers: bearer(tokens.reader50),
            },
          },
        ]
      : []),
    // Writes last: they add posts that the reads above would otherwise see.
    {
      name: `posting, fan-out to ${dataset.posters[0].followers} followers`,
      request: {
        method: "POST",
        path: "/api/v1/statuses",
        headers: { ...bearer(tokens.fan10), ...json },
        bodyTemplate: JSON.stringify({ status: "A benchmark post, number {n}, with #kith", visibility: "public" }),
      },
    },
  ];
  const probes = [
    // On a dataset with fewer accounts than a poster is named for, two posters have the same followers: measured once.
    ...dataset.posters
      .slice(1)
      .filter((poster, i, posters) => posters.findIndex((other) => other.followers === poster.followers) === i)
      .map((poster) => ({
        name: `posting, fan-out to ${poster.followers} followers`,
        // The same poster across datasets, for the scaling table (small has fewer accounts than the largest fan-out).
        series: `posting as ${poster.name}, fan-out to up to ${poster.name.slice(3)} followers`,
        run: (context) => fanOutProbe(context, poster),
      })),
    { name: "streaming fan-out to 1000 clients", run: (context) => streamingProbe(context, 1_000) },
  ];
  return { requests, probes };
}

/** Posts `text` publicly as `token`'s account; the time of the request and the answer, kept as it came for a bare server to give back. */
async function post(url, token, text) {
  const started = process.hrtime.bigint();
  const response = await fetch(`${url}/api/v1/statuses`, {
    method: "POST",
    headers: { ...bearer(token), "content-type": "application/json" },
    body: JSON.stringify({ status: text, visibility: "public" }),
  });
  const raw = await response.text();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const answer = { status: response.status, headers: { "content-type": "application/json; charset=utf-8" }, body: raw };
  return { response, ms, body: response.ok ? JSON.parse(raw) : raw, answer };
}

/**
 * The median time of `rounds` POSTs of the same body to the requests' bare server (baseline-server.mjs) answering
 * Kith's answer, after as many to warm it.
 */
async function bareRequestMs(workDir, answer, text, rounds = 5) {
  const file = join(workDir, "posting-baseline.json");
  writeFileSync(file, JSON.stringify({ "POST /api/v1/statuses": answer }));
  const bare = await startBaseline(file);
  try {
    const times = [];
    for (let i = 0; i < rounds * 2; i++) {
      const { ms } = await post(bare.url, "baseline", text);
      if (i >= rounds) times.push(ms);
    }
    return median(times);
  } finally {
    await bare.stop();
  }
}

/**
 * The practical limit of writing a post's home-feed entries: Kith's entries of `statusId` taken out, then the same
 * rows (every follower of the author, and the author) written by one INSERT ... SELECT from the benchmark's own
 * connection. Resolves with its time and the rows it wrote.
 */
async function rawFanOut(db, statusId) {
  await db.deleteFrom("home_feed").where("status_id", "=", statusId).execute();
  const started = process.hrtime.bigint();
  await sql`insert into home_feed (account_id, status_id, author_id, reblog_of_id, created_at)
    select f.account_id, s.id, s.account_id, null, s.created_at from statuses s
      join follows f on f.target_account_id = s.account_id where s.id = ${statusId}
    union all select s.account_id, s.id, s.account_id, null, s.created_at from statuses s where s.id = ${statusId}`.execute(db);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const row = await db
    .selectFrom("home_feed")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("status_id", "=", statusId)
    .executeTakeFirstOrThrow();
  return { ms, rows: Number(row.n) };
}

/** How many times each probe posts: it reports the median, since one post can meet a checkpoint or a queue's backlog. */
const PROBE_ROUNDS = 3;

/** One post to the followers of `poster`: the request's time, and the time until every home feed has it (counted every 5 ms). */
async function fanOutOnce({ url, storage, dataset }, poster, text) {
  const { response, ms, body, answer } = await post(url, dataset.tokens[poster.name], text);
  if (!response.ok) return { status: response.status };
  const started = Date.now();
  let entries = 0;
  while (Date.now() - started < 120_000) {
    const row = await storage.db
      .selectFrom("home_feed")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("status_id", "=", body.id)
      .executeTakeFirstOrThrow();
    entries = Number(row.n);
    if (entries >= poster.followers + 1) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { requestMs: ms, completeMs: Date.now() - started + ms, entries, statusId: body.id, answer };
}

/**
 * Posts by an account with many followers (`PROBE_ROUNDS`, the medians reported): how long the request takes, and
 * how long until every follower's home feed has the post; against the same request to a bare server and the same
 * rows written by one statement.
 */
async function fanOutProbe(context, poster) {
  const text = `Fan-out probe to ${poster.followers}`;
  const expected = poster.followers + 1;
  const rounds = [];
  const raws = [];
  for (let n = 0; n < PROBE_ROUNDS; n++) {
    const round = await fanOutOnce(context, poster, text);
    if (round.status) return { summary: `not measured: posting answered ${round.status}` };
    rounds.push(round);
    raws.push(await rawFanOut(context.storage.db, round.statusId));
  }
  const requestMs = median(rounds.map((round) => round.requestMs));
  const completeMs = median(rounds.map((round) => round.completeMs));
  const entries = Math.min(...rounds.map((round) => round.entries));
  const rawMs = median(raws.map((raw) => raw.ms));
  const rawRows = Math.min(...raws.map((raw) => raw.rows));
  const bareMs = await bareRequestMs(context.workDir, rounds[0].answer, text);
  const each = rounds.map((round) => round.completeMs.toFixed(0)).join(" / ");
  return {
    requestMs,
    completeMs,
    entries,
    baselineRequestMs: bareMs,
    baselineMs: rawMs,
    ms: completeMs,
    detail: `request ${requestMs.toFixed(1)} ms (the bare server ${bareMs.toFixed(1)} ms); at least ${entries}/${expected} home feeds written a post (each post: ${each} ms); the baseline wrote ${rawRows} rows; medians of ${PROBE_ROUNDS} posts`,
    summary: `request ${requestMs.toFixed(1)} ms (a bare server: ${bareMs.toFixed(1)} ms); ${entries}/${expected} home feeds written after ${completeMs.toFixed(0)} ms (${each}; polled every 5 ms); the same ${rawRows} rows by one INSERT ... SELECT: ${rawMs.toFixed(0)} ms; medians of ${PROBE_ROUNDS} posts`,
  };
}

/**
 * `clients` server-sent-event connections to `path` of `base`, all open when this resolves. `watch(marker)` starts
 * looking for `marker`: `received[i]` is when client i first read it (performance.now()); the first client's text and
 * response headers are kept.
 */
async function openStreams(base, path, headers, clients) {
  const target = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const requests = [];
  const received = [];
  let marker = null;
  let firstText = "";
  let firstHeaders = {};
  await Promise.all(
    Array.from(
      { length: clients },
      (_, i) =>
        new Promise((resolve, reject) => {
          const request = http.get({ host: target.hostname, port: target.port, path, agent, headers }, (response) => {
            if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`));
            if (i === 0) firstHeaders = response.headers;
            response.setEncoding("utf8");
            response.on("data", (chunk) => {
              if (i === 0) firstText += chunk;
              if (marker && received[i] === undefined && chunk.includes(marker)) received[i] = performance.now();
            });
            resolve();
          });
          request.on("error", reject);
          requests.push(request);
        }),
    ),
  ).catch((error) => {
    for (const request of requests) request.destroy();
    agent.destroy();
    throw error;
  });
  return {
    watch(text) {
      marker = text;
      received.length = 0;
    },
    /** Resolves with the time the last client read the marker, `started` taken off; null if some had not in 30 s. */
    async allRead(started) {
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        if (received.filter(Boolean).length === clients) return Math.max(...received) - started;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return null;
    },
    got: () => received.filter(Boolean).length,
    /** The message of the first client's stream that has the marker (its blank line included), and the stream's headers. */
    firstMessage: () => ({
      event: `${firstText.split("\n\n").find((message) => message.includes(marker))}\n\n`,
      headers: firstHeaders,
    }),
    close() {
      for (const request of requests) request.destroy();
      agent.destroy();
    },
  };
}

/**
 * Sends a post to `base` as `poster` for each of `markers` (one after another, each in the post's text) with `clients`
 * streams of `viewer` open: the median ms until all read it, each round's, and the last post with its event as the
 * first client read it.
 */
async function streamRounds(base, { viewer, poster }, clients, markers) {
  const streams = await openStreams(base, "/api/v1/streaming/public", { ...bearer(viewer), accept: "text/event-stream" }, clients);
  try {
    const times = [];
    let posted = null;
    for (const marker of markers) {
      streams.watch(marker);
      const started = performance.now();
      posted = await post(base, poster, marker);
      if (!posted.response.ok) return { posted, doneMs: null, got: 0 };
      const doneMs = await streams.allRead(started);
      if (doneMs === null) return { posted, doneMs: null, got: streams.got() };
      times.push(doneMs);
    }
    return { doneMs: median(times), times, got: streams.got(), posted, ...streams.firstMessage() };
  } finally {
    streams.close();
  }
}

/**
 * `clients` server-sent-event connections on the public stream; a post (`PROBE_ROUNDS`, the median reported); time
 * until every client has the update. Then the same with a bare server (streaming-baseline.mjs) that answers the post
 * with Kith's answer and writes Kith's event to as many streams.
 */
async function streamingProbe({ url, dataset, workDir }, clients) {
  const health = await fetch(`${url}/api/v1/streaming/health`).catch(() => null);
  if (!health?.ok) return { summary: `not measured: streaming answered ${health?.status ?? "nothing"}` };
  const marker = `streaming-probe-${Date.now()}`;
  const markers = Array.from({ length: PROBE_ROUNDS }, (_, n) => `${marker}-${n}`);
  const kith = await streamRounds(url, { viewer: dataset.tokens.reader50, poster: dataset.tokens.fan10 }, clients, markers);
  if (!kith.posted.response.ok) return { summary: `not measured: posting answered ${kith.posted.response.status}` };
  if (kith.doneMs === null)
    return { clients, got: kith.got, doneMs: null, summary: `${kith.got}/${clients} clients had the update after 30 s` };
  const streamHeaders = Object.fromEntries(
    Object.entries(kith.headers).filter(([name]) => ["content-type", "cache-control", "x-accel-buffering"].includes(name)),
  );
  const file = join(workDir, "streaming-baseline.json");
  writeFileSync(file, JSON.stringify({ streamHeaders, event: kith.event, answer: kith.posted.answer }));
  const bare = await startBaseline(file, "streaming-baseline.mjs");
  let baseline;
  try {
    const tokens = { viewer: "baseline", poster: "baseline" };
    baseline = await streamRounds(
      bare.url,
      tokens,
      clients,
      markers.map(() => markers.at(-1)),
    );
  } finally {
    await bare.stop();
  }
  const each = (times) => times.map((ms) => ms.toFixed(0)).join(" / ");
  const bareText = baseline.doneMs === null ? `${baseline.got}/${clients} had it after 30 s` : `${baseline.doneMs.toFixed(1)} ms`;
  return {
    clients,
    got: kith.got,
    doneMs: kith.doneMs,
    baselineMs: baseline.doneMs,
    ms: kith.doneMs,
    detail: `${kith.got}/${clients} clients had each update (each post: ${each(kith.times)} ms); the bare server's ${baseline.got}/${clients} (${baseline.times ? each(baseline.times) : "–"} ms); medians of ${PROBE_ROUNDS} posts`,
    summary: `all ${clients} clients had the update ${kith.doneMs.toFixed(1)} ms after the post was sent (${each(kith.times)}; a bare server writing the same event to as many streams: ${bareText}); medians of ${PROBE_ROUNDS} posts`,
  };
}
