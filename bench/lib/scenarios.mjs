// What the benchmark measures on a seeded dataset. `requests` are driven by
// the load generator and compared with the bare baseline; `probes` measure
// one thing each (latency of a fan-out, streaming delivery) their own way.

import http from "node:http";

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

async function post(url, token, text) {
  const started = process.hrtime.bigint();
  const response = await fetch(`${url}/api/v1/statuses`, {
    method: "POST",
    headers: { ...bearer(token), "content-type": "application/json" },
    body: JSON.stringify({ status: text, visibility: "public" }),
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { response, ms, body: response.ok ? await response.json() : await response.text() };
}

/** One post by an account with many followers: how long the request takes, and how long until every follower's home feed has it. */
async function fanOutProbe({ url, storage, dataset }, poster) {
  const { response, ms, body } = await post(url, dataset.tokens[poster.name], `Fan-out probe to ${poster.followers}`);
  if (!response.ok) return { summary: `not measured: posting answered ${response.status}` };
  const started = Date.now();
  const expected = poster.followers + 1;
  let entries = 0;
  while (Date.now() - started < 120_000) {
    const row = await storage.db
      .selectFrom("home_feed")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("status_id", "=", body.id)
      .executeTakeFirstOrThrow();
    entries = Number(row.n);
    if (entries >= expected) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const completeMs = Date.now() - started + ms;
  return {
    requestMs: ms,
    completeMs,
    entries,
    summary: `request ${ms.toFixed(1)} ms; ${entries}/${expected} home feeds written after ${completeMs.toFixed(0)} ms`,
  };
}

/** `clients` server-sent-event connections on the public stream; one post; time until every client has the update. */
async function streamingProbe({ url, dataset }, clients) {
  const health = await fetch(`${url}/api/v1/streaming/health`).catch(() => null);
  if (!health?.ok) return { summary: `not measured: streaming answered ${health?.status ?? "nothing"}` };
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const requests = [];
  const received = [];
  let marker = null;
  await Promise.all(
    Array.from(
      { length: clients },
      (_, i) =>
        new Promise((resolve, reject) => {
          const request = http.get(
            {
              host: target.hostname,
              port: target.port,
              path: "/api/v1/streaming/public",
              agent,
              headers: { ...bearer(dataset.tokens.reader50), accept: "text/event-stream" },
            },
            (response) => {
              if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`));
              response.setEncoding("utf8");
              response.on("data", (chunk) => {
                if (marker && received[i] === undefined && chunk.includes(marker)) received[i] = performance.now();
              });
              resolve();
            },
          );
          request.on("error", reject);
          requests.push(request);
        }),
    ),
  ).catch((error) => {
    for (const request of requests) request.destroy();
    throw error;
  });
  marker = `streaming-probe-${Date.now()}`;
  const started = performance.now();
  const { response } = await post(url, dataset.tokens.fan10, marker);
  let doneMs = null;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (received.filter(Boolean).length === clients) {
      doneMs = Math.max(...received) - started;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  for (const request of requests) request.destroy();
  agent.destroy();
  if (!response.ok) return { summary: `not measured: posting answered ${response.status}` };
  const got = received.filter(Boolean).length;
  return {
    clients,
    got,
    doneMs,
    summary:
      doneMs === null
        ? `${got}/${clients} clients had the update after 30 s`
        : `all ${clients} clients had the update ${doneMs.toFixed(1)} ms after the post was sent`,
  };
}
